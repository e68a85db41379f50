"""Dask workers as SLURM jobs: the arguments of a ``dask_jobqueue.SLURMCluster`` for a study's
``[cluster]`` section, and the job script SLURM will run for each worker.

Each worker job is one Dask worker process with the job's cores as threads (conventional fits run
one per thread), and declares the resource ``fine_tuning`` = its GPUs (or 1 without GPUs) so that
at most that many fine-tunings run on a worker at once. ``setup`` lines (``module load cuda``,
``source ~/textlab/bin/activate``) run before the worker starts.
"""

from __future__ import annotations

import shutil
import sys
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.study.sections import ClusterSpec

FINE_TUNING_RESOURCE = "fine_tuning"  # how many fine-tunings a worker may run at once


def slurm_arguments(cluster: ClusterSpec, log_directory: str | None = None) -> dict[str, Any]:
    """Keyword arguments of ``dask_jobqueue.SLURMCluster`` for ``cluster`` (plain data, no Dask needed)."""
    directives = [f"--gres=gpu:{cluster.gpus_per_worker}"] if cluster.gpus_per_worker else []
    arguments: dict[str, Any] = {
        "cores": cluster.cores_per_worker,
        "processes": 1,
        "memory": cluster.memory.replace(" ", ""),
        "walltime": cluster.walltime,
        "job_name": "textlab-worker",
        "job_extra_directives": directives,
        "job_script_prologue": list(cluster.setup),
        "worker_extra_args": ["--resources", f"{FINE_TUNING_RESOURCE}={max(1, cluster.gpus_per_worker)}"],
        "python": cluster.python or sys.executable,
        "scheduler_options": {"dashboard": False, "dashboard_address": ":0"},  # no dashboard, no clash on 8787
    }
    if cluster.queue:
        arguments["queue"] = cluster.queue
    if cluster.account:
        arguments["account"] = cluster.account
    if log_directory:
        arguments["log_directory"] = log_directory
    return arguments


def check_slurm_here() -> None:
    """Refuse, in plain words, to start SLURM jobs where SLURM's commands are missing."""
    missing = [command for command in ("sbatch", "squeue", "scancel") if shutil.which(command) is None]
    if missing:
        raise UserError(
            f"SLURM's {', '.join(missing)} command{'s are' if len(missing) > 1 else ' is'} not found on this computer.",
            "Run TextLab on the cluster's login node (where sbatch works), or use textlab cluster-script to write "
            "a job script that runs the whole study as one SLURM job.",
        )


def start_slurm_cluster(cluster: ClusterSpec, log_directory: str | None = None) -> Any:
    """A ``dask_jobqueue.SLURMCluster`` asked for ``cluster.workers`` worker jobs (not yet started)."""
    check_slurm_here()
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError as error:
        raise UserError("Starting workers as SLURM jobs needs TextLab's cluster extra.",
                        "Install it with: pip install 'textlab[cluster]' (dask[distributed] and dask-jobqueue).",
                        details=repr(error)) from error
    slurm = SLURMCluster(**slurm_arguments(cluster, log_directory))
    slurm.scale(jobs=cluster.workers)
    return slurm


def worker_job_script(cluster: ClusterSpec) -> str:
    """The job script SLURM runs for each worker (what ``--cluster slurm`` submits), for checking."""
    from dask_jobqueue import SLURMCluster

    slurm = SLURMCluster(**slurm_arguments(cluster))
    try:
        return slurm.job_script()
    finally:
        slurm.close()
