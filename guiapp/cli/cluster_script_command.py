"""``textlab cluster-script STUDY --out FOLDER``: a folder to copy to a SLURM cluster that runs the
whole study there as one batch job (for clusters whose login node forbids long processes).

The folder (``core/compute/cluster_folder.py``) holds the study's data as Parquet, a study file
pointing at it, the batch script ``run-on-cluster.sbatch``, checksums and a README. The cluster
options (``--workers``, ``--memory``, ``--queue`` …) override the study file's ``[cluster]``
section. Exit status: 0 written, 2 could not (the message says why).
"""

from __future__ import annotations

import argparse


def add_cluster_script_command(commands) -> None:
    from guiapp.cli.cluster_options import add_cluster_options

    sub = commands.add_parser(
        "cluster-script",
        help="write a folder that runs the study on a SLURM cluster as one batch job (sbatch)",
        description="Write a folder to copy to a SLURM cluster: the study's data, the study file, a batch "
                    "script (sbatch run-on-cluster.sbatch) and a README with the steps.",
    )
    sub.add_argument("spec", help="the study file, e.g. study.toml")
    sub.add_argument("--out", required=True, help="the folder to write (new, or empty)")
    add_cluster_options(sub, scheduler=False)


def cluster_script_command(args: argparse.Namespace, progress) -> int:
    from guiapp.cli.cluster_options import apply_cluster_options
    from guiapp.cli.console import stopped
    from guiapp.core.compute.cluster_folder import README_FILE, prepare_cluster_folder
    from guiapp.core.compute.sbatch_script import SCRIPT_NAME
    from guiapp.core.study.spec import ExperimentSpec

    try:
        spec = ExperimentSpec.load(args.spec)
        if args.cluster is None:
            args.cluster = "slurm"  # the only system a batch script is written for
        apply_cluster_options(spec, args)
        folder = prepare_cluster_folder(spec, args.out, spec_file=args.spec, on_event=progress)
    except OSError as error:
        return stopped(progress, f"The folder {args.out} could not be written: {error.strerror or error}.\n"
                       "Choose a folder you can write to, on a drive with free space.", 2)
    progress.clear()
    files = sorted(path.name for path in folder.iterdir())
    print(f"Wrote {folder}: {', '.join(files)}")
    print(f"Where it runs: {spec.cluster.describe()}.")
    print("")
    print("Next steps (details in README.txt):")
    print(f"  1. copy the folder to the cluster, e.g.  scp -r {_shell(folder.name)} you@cluster.example.edu:~/")
    print("  2. install TextLab there once:  python3 -m venv ~/textlab && ~/textlab/bin/pip install 'textlab[cluster]'")
    print(f"  3. on the cluster:  cd ~/{_shell(folder.name)} && sbatch {SCRIPT_NAME}")
    print(f"  4. follow it with  squeue --me  and the log; copy results/ back when it has finished ({README_FILE}).")
    return 0


def _shell(name: str) -> str:
    import shlex

    return shlex.quote(name)
