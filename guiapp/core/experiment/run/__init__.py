"""Running a study: its plan and size before it runs, the time estimates, ``run_experiment`` itself, the grid
search and its fits, the units of work any process can run, the shared protocol (test texts, folds,
oversampling, the one evaluation on the test texts) and the results folder with its lock."""
