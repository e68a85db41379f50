"""Running a study: run_experiment, tuning, fitting, SVM kernels, resampling, metrics, results and their files, estimates, the process pool."""
