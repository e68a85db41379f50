"""Where a study's pieces of work run: this computer's worker processes (``process_pool``), or a Dask
cluster (``executors``, ``where``) — any running Dask scheduler, or workers started as SLURM jobs
(``slurm_jobs``). One :class:`~guiapp.core.compute.executors.Executor` interface serves them all.
To run a study on a SLURM cluster by hand, ``cluster_folder`` writes one folder to copy there: the
study and its table, a batch script (``sbatch_script``) and a plain-English README
(``cluster_readme``)."""
