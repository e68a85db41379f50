"""``textlab run --cluster slurm`` against a real SLURM: Dask workers started as SLURM jobs run a
small study, and the worker job script TextLab writes is one ``sbatch`` accepts.

Needs a SLURM whose ``sbatch`` works from here, with an idle node (``sudo scripts/local-slurm.sh``
starts a one-node SLURM on a Debian/Ubuntu machine or CI runner), and the cluster extra
(dask-jobqueue). Skipped otherwise. Dask runs only in child processes: its threads must not share a
process with the Qt tests.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "bills"
JOB_NAME = "textlab-worker"  # slurm_jobs.slurm_arguments' job_name
RUN_SECONDS = 400


def _slurm_node_ready(seconds: float = 5.0) -> str:
    """Why SLURM cannot run a job from here, or "" when a node is idle or mixed."""
    deadline = time.monotonic() + seconds
    why = "sinfo shows no node"
    while True:
        try:
            done = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=seconds,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"sinfo failed: {error}"
        if done.returncode != 0:
            why = f"sinfo failed: {(done.stderr or done.stdout).strip()}"
        else:
            states = {line.strip().rstrip("*~#!%$@^-") for line in done.stdout.splitlines() if line.strip()}
            if states & {"idle", "mixed"}:
                return ""
            why = f"no idle or mixed SLURM node (sinfo: {', '.join(sorted(states)) or 'nothing'})"
        if time.monotonic() >= deadline:
            return why
        time.sleep(1.0)


if shutil.which("sbatch") is None:
    pytest.skip("SLURM's sbatch is not on PATH (sudo scripts/local-slurm.sh starts a one-node SLURM)",
                allow_module_level=True)
if importlib.util.find_spec("dask_jobqueue") is None:
    pytest.skip("the cluster extra (dask-jobqueue) is not installed", allow_module_level=True)
_WHY_NOT = _slurm_node_ready()
if _WHY_NOT:
    pytest.skip(f"SLURM cannot run jobs here: {_WHY_NOT}", allow_module_level=True)


def _jobs_started_in(folder: Path) -> dict[str, str]:
    """TextLab's worker jobs submitted from ``folder`` (their working directory): job id -> state."""
    listed = subprocess.run(["squeue", "-h", "-n", JOB_NAME, "-o", "%i|%T|%Z"],
                            capture_output=True, text=True, timeout=30, check=True)
    jobs = {}
    for line in listed.stdout.splitlines():
        job_id, state, workdir = (line.split("|", 2) + ["", ""])[:3]
        if Path(workdir.strip()).resolve() == folder.resolve():
            jobs[job_id.strip()] = state.strip()
    return jobs


def _copy_example(tmp_path: Path) -> Path:
    """The bills example as documented (three conventional models and their two combinations: about
    20 s on one one-core worker job)."""
    folder = tmp_path / "bills"
    shutil.copytree(EXAMPLE, folder)
    return folder / "study.toml"


@pytest.mark.slow
@pytest.mark.timeout(RUN_SECONDS + 120)
def test_a_small_study_runs_on_slurm_workers(tmp_path) -> None:
    study = _copy_example(tmp_path)
    out = tmp_path / "results"
    command = [sys.executable, "-m", "guiapp", "run", str(study), "--out", str(out),
               "--cluster", "slurm", "--workers", "1", "--cores-per-worker", "1",
               "--memory", "1GB", "--walltime", "00:20:00"]
    started = time.monotonic()
    try:
        # Run from tmp_path: sbatch gives the worker jobs this working directory, which tells this
        # run's jobs from any other TextLab worker jobs on the same SLURM.
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=RUN_SECONDS,
                              check=False)
        printed = done.stdout + done.stderr
        assert done.returncode == 0, printed
        assert (out / "results.json").is_file(), printed
        assert "SLURM" in printed, printed
        result = json.loads((out / "results.json").read_text(encoding="utf-8"))
        assert [model["status"] for model in result["models"]] == ["done"] * 5, printed

        # The run released its jobs (scancel); a cancelled job may still be completing briefly.
        deadline = time.monotonic() + 30
        while (left := {job: state for job, state in _jobs_started_in(tmp_path).items() if state != "COMPLETING"}) \
                and time.monotonic() < deadline:
            time.sleep(1.0)
        assert not left, f"worker jobs still queued or running after the run: {left}"
        print(f"study ran on SLURM in {time.monotonic() - started:.0f} s\n{printed}")
    finally:
        leftover = list(_jobs_started_in(tmp_path))
        if leftover:  # a failed or timed-out run: do not leave its workers holding the node
            subprocess.run(["scancel", *leftover], capture_output=True, timeout=30, check=False)


JOB_SCRIPT = """
from guiapp.core.compute.slurm_jobs import worker_job_script
from guiapp.core.study.sections import ClusterSpec

print(worker_job_script(ClusterSpec(system="slurm", workers=1, cores_per_worker=1, memory="1GB", walltime="00:20:00")))
"""


def test_the_worker_job_script_is_accepted_by_sbatch(tmp_path) -> None:
    made = subprocess.run([sys.executable, "-c", JOB_SCRIPT], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    script = tmp_path / "worker.sh"
    script.write_text(made.stdout, encoding="utf-8")
    assert "#SBATCH" in made.stdout and "distributed.cli.dask_worker" in made.stdout, made.stdout

    checked = subprocess.run(["sbatch", "--test-only", str(script)], cwd=tmp_path, capture_output=True,
                             text=True, timeout=60, check=False)
    assert checked.returncode == 0, f"sbatch refused TextLab's worker job script:\n{checked.stderr}\n{made.stdout}"
    assert "to start at" in checked.stderr, checked.stderr  # sbatch: Job 12 to start at ... using 1 processors ...
