"""Where a study's pieces of work run: this computer's worker processes (``process_pool``), or a Dask
cluster (``executors``, ``where``) — any running Dask scheduler, or workers started as SLURM jobs
(``slurm_jobs``). One :class:`~guiapp.core.compute.executors.Executor` interface serves them all."""
