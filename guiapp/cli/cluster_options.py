"""The command line's options for where a study runs (``run`` and ``cluster-script``): they override
the study file's ``[cluster]`` section, whose keys they mirror."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the study's modules load when a command runs, not when the command line starts
    from guiapp.core.study.sections import ClusterSpec
    from guiapp.core.study.spec import ExperimentSpec

_OPTIONS = (  # flag, [cluster] key, type, metavar, help
    ("--workers", "workers", int, "N", "worker jobs to start (default 2)"),
    ("--cores-per-worker", "cores_per_worker", int, "N", "processor cores of each worker job (default 4)"),
    ("--gpus-per-worker", "gpus_per_worker", int, "N", "GPUs of each worker job (default 0)"),
    ("--memory", "memory", str, "SIZE", "memory of each worker job, e.g. 16GB"),
    ("--walltime", "walltime", str, "TIME", "longest run of each worker job, e.g. 04:00:00"),
    ("--queue", "queue", str, "NAME", "the partition (queue) to submit to"),
    ("--account", "account", str, "NAME", "the account the jobs are charged to"),
    ("--worker-python", "python", str, "PATH", "the Python with TextLab installed on the cluster's nodes"),
)


def add_cluster_options(parser: argparse.ArgumentParser, *, scheduler: bool = True) -> None:
    group = parser.add_argument_group("where it runs (default: the study file's [cluster] section, else this computer)")
    if scheduler:
        group.add_argument("--scheduler", metavar="ADDRESS",
                           help="a running Dask scheduler to run the pieces of work on, e.g. tcp://host:8786")
    group.add_argument("--cluster", choices=["slurm"], help="start Dask workers as jobs of this cluster system "
                       "(run on the cluster's login node); they are released when the study ends or on Ctrl-C")
    for flag, _, kind, metavar, text in _OPTIONS:
        group.add_argument(flag, type=kind, metavar=metavar, help=text)
    group.add_argument("--worker-setup", action="append", metavar="LINE",
                       help="a shell line each worker job runs first, e.g. 'module load cuda' (repeatable)")


def apply_cluster_options(spec: ExperimentSpec, args: argparse.Namespace) -> ClusterSpec:
    """``spec.cluster`` with the given options written over it, checked (a SpecError when wrong)."""
    from guiapp.core.study.sections import ClusterSpec

    data = spec.cluster.to_dict()
    if getattr(args, "scheduler", None):
        data.update(scheduler=args.scheduler, system="")
    if args.cluster:
        data.update(system=args.cluster, scheduler="")
    for _, key, _, _, _ in _OPTIONS:
        value = getattr(args, key if key not in ("python",) else "worker_python", None)
        if value is not None:
            data[key] = value
    if args.worker_setup:
        data["setup"] = list(args.worker_setup)
    spec.cluster = ClusterSpec.from_dict(data)
    return spec.cluster
