"""The README.txt of a cluster folder: what the folder is and how to run it, in plain English,
for a researcher who has a cluster account but does not program."""

from __future__ import annotations

from guiapp.core.compute.sbatch_script import DRIVER_JOB_NAME, SCRIPT_NAME
from guiapp.core.study.sections import ClusterSpec


def _activates_textlab(cluster: ClusterSpec) -> bool:
    return bool(cluster.python) or any("activate" in line or "textlab" in line for line in cluster.setup)


def readme_text(study_name: str, folder_name: str, cluster: ClusterSpec, rows: int, test_file: bool = False) -> str:
    """README.txt for the folder ``folder_name`` of the study ``study_name`` (``rows`` rows of data;
    ``test_file``: the folder has the study's separate test texts)."""
    test_line = "\n    test-data.parquet     your separate test texts" if test_file else ""
    name = " ".join(study_name.split()) or "your study"
    setup = "\n".join(f"        {line}" for line in cluster.setup) or "        (none)"
    if _activates_textlab(cluster):
        activate = ("The job script and each worker job run these setup lines first, so they find TextLab:\n"
                    f"{setup}\n"
                    "   If you installed TextLab somewhere else, change them in both run-on-cluster.sbatch\n"
                    "   and study.toml ([cluster] setup).")
    else:
        activate = ("IMPORTANT: the job needs to find TextLab. Add the line\n"
                    "        source ~/textlab/bin/activate\n"
                    "   to the setup lines: in run-on-cluster.sbatch (before the textlab line, and as one more\n"
                    "   --worker-setup 'source ~/textlab/bin/activate'), or prepare this folder again with it\n"
                    "   among the setup lines. Setup lines now:\n"
                    f"{setup}")
    return f"""\
TextLab study "{name}", ready to run on a SLURM cluster
{'=' * (len(name) + 48)}

This folder holds everything the study needs, so a computing cluster can run it without
the TextLab app:

    data.parquet          your coded texts ({rows:,} rows; only the columns the study uses){test_line}
    study.toml            the study: its models and settings, and where it runs ([cluster])
    {SCRIPT_NAME:<21} the job script you give to SLURM
    SHA256SUMS            checksums: the job checks the data arrived unchanged
    README.txt            this text

The job script starts a small "driver" job. The driver asks SLURM for the worker jobs that
do the actual work: {cluster.describe()}. It
waits for the study to finish, writes the results into the folder results/ here, and
then releases the worker jobs. You do not need to keep your laptop on meanwhile.


1. Copy this folder to the cluster
   From your own computer (replace you@cluster.example.edu with your login):

        scp -r "{folder_name}" you@cluster.example.edu:~/
   or
        rsync -av "{folder_name}" you@cluster.example.edu:~/

2. Install TextLab on the cluster (once)
   Log in to the cluster (ssh you@cluster.example.edu) and run:

        python3 -m venv ~/textlab
        ~/textlab/bin/pip install 'textlab[cluster]'

   If you were given a TextLab wheel file (textlab-….whl) instead, copy it there and run
        ~/textlab/bin/pip install './textlab-VERSION-py3-none-any.whl[cluster]'
   Some clusters need "module load python" (or similar) before python3 works: ask your
   cluster's help desk, or look in its documentation.

   {activate}

3. Start the study
        cd ~/"{folder_name}"
        sbatch {SCRIPT_NAME}

   SLURM answers "Submitted batch job 123456"; that number is the job's ID.

4. Follow it
        squeue --me
   lists your jobs: the driver ({DRIVER_JOB_NAME}) and, once it runs, the workers (textlab-worker).
        tail -f {DRIVER_JOB_NAME}-123456.log
   shows what the study reports (Ctrl-C stops watching, not the job).

   To stop the study: scancel 123456 (the worker jobs are released too).
   If the log says a setting is wrong (partition, account, time, memory), change it in
   {SCRIPT_NAME} and submit again.

5. Copy the results back
   From your own computer, in the folder that holds your copy of "{folder_name}":

        scp -r you@cluster.example.edu:~/"{folder_name}"/results ./"{folder_name}"/

   The results then sit in "{folder_name}/results", beside data.parquet: the TextLab app
   reads your texts from there to show them with the results.

6. Look at the results
   In the TextLab app: File → Open results folder…, and choose "{folder_name}/results". It
   shows how well each model agrees with your coding, the test texts with every model's answer,
   and the trained models, ready to code new texts (Save project… keeps it all in one file).

   results/predictions.csv opens in any spreadsheet program: one row per test text and model,
   with the category each model chose. results/results.json holds every score. With TextLab
   installed on your computer, these commands read the folder too:

        textlab agreement "{folder_name}/results"
        textlab subgroups "{folder_name}/results" --column COLUMN
        textlab predict "{folder_name}/results" new-texts.xlsx --out coded.xlsx
"""
