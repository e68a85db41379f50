"""``textlab run SPEC --out DIR``: DIR is whole or absent. Checked before the study (writable, free
space, no other run), replaced as a whole, readable by colleagues (umask), refused by readers
without its manifest, kept intact by Ctrl-C, and whole or absent after a SIGKILL at any moment,
with no worker process left behind."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from guiapp.cli.entry import main
from guiapp.core.experiment.results import output_folder
from guiapp.core.experiment.run import runner
from guiapp.core.experiment.results.artefacts import model_folder_name
from guiapp.core.experiment.results.results_manifest import MANIFEST_NAME, read_manifest
from guiapp.core.predict.saved_results import read_results
from tests.core.experiment.results.test_output_folder import hidden, unwritable_folder
from tests.test_cli_run import copy_example

psutil = pytest.importorskip("psutil")

ROOT = Path(__file__).resolve().parents[1]
NAIVE_BAYES = """
[[models]]
representation = "bow"
classifier = "naive_bayes"
grid = { alpha = [0.1, 1.0] }
"""
LINEAR_SVM = """
[[models]]
representation = "bow"
classifier = "svm"
grid = { kernel = ["linear"], C = [1] }
"""


def fast_spec(folder: Path, models: str = NAIVE_BAYES) -> Path:
    """The documented example cut down to a study of a few seconds."""
    spec = copy_example(folder)
    text = spec.read_text(encoding="utf-8")
    text = text[: text.index("[[models]]")].replace("folds = 5", "folds = 2") + models
    spec.write_text(text, encoding="utf-8")
    return spec


def whole(out: Path) -> str:
    """Checks that ``out`` holds one run's complete results; returns when they were written."""
    result = read_results(out)  # refuses a folder without its manifest or with a changed file
    predictions = pd.read_csv(out / "predictions.csv", encoding="utf-8-sig")
    finished = result.finished_models()
    assert finished and len(predictions) == len(finished) * len(result.test_true)
    assert set(predictions["model"]) == {model.name for model in finished}
    assert {path.name for path in (out / "models").iterdir()} == {model_folder_name(m.name) for m in finished}
    for model in finished:  # recorded where it is after the move (a copied folder keeps the original's)
        assert Path(model.artefact).parts[-2:] == ("models", model_folder_name(model.name))
        assert ".partial-" not in model.artefact
    return read_manifest(out)["written_at"] + str(sorted(read_manifest(out)["files"].items()))


@pytest.fixture(scope="module")
def earlier(tmp_path_factory) -> tuple[Path, Path]:
    """(a fast study, the complete results of an earlier run of it)."""
    folder = tmp_path_factory.mktemp("earlier")
    spec = fast_spec(folder)
    assert main(["run", str(spec), "--out", str(folder / "results"), "--jobs", "1", "--quiet"]) == 0
    return spec, folder / "results"


@pytest.fixture
def previous(earlier, tmp_path) -> Path:
    """A copy of the earlier results, in a folder of this test."""
    shutil.copytree(earlier[1], tmp_path / "results")
    return tmp_path / "results"


def no_study(*args, **kwargs):
    raise AssertionError("the study must not start")


# ------------------------------------------------------------------ checked before the study
def test_an_unwritable_folder_stops_the_run_before_the_study(earlier, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(runner, "run_experiment", no_study)
    parent = unwritable_folder(tmp_path)
    assert main(["run", str(earlier[0]), "--out", str(parent / "results")]) == 2
    error = capsys.readouterr().err
    assert f"TextLab cannot write the results into {parent}" in error and "Traceback" not in error


def test_a_full_drive_stops_the_run_before_the_study(earlier, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(runner, "run_experiment", no_study)
    monkeypatch.setattr(output_folder, "free_bytes", lambda folder: 10 * 2**20)
    assert main(["run", str(earlier[0]), "--out", str(tmp_path / "results")]) == 2
    assert "not enough free space" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_second_run_into_the_same_folder_is_refused(earlier, previous, monkeypatch, capsys) -> None:
    monkeypatch.setattr(runner, "run_experiment", no_study)
    before = whole(previous)
    other = {"pid": os.getppid(), "host": socket.gethostname(), "started_at": "2024-05-01T10:00:00+00:00"}
    (previous.parent / ".results.textlab-lock").write_text(json.dumps(other), encoding="utf-8")
    assert main(["run", str(earlier[0]), "--out", str(previous)]) == 2
    error = capsys.readouterr().err
    assert f"Another TextLab run is writing its results to {previous} (process {os.getppid()}" in error
    assert whole(previous) == before


def test_a_drive_that_fills_up_during_the_run_gives_status_2_and_keeps_the_earlier_results(
        earlier, previous, monkeypatch, capsys) -> None:
    before = whole(previous)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "predictions.csv")

    monkeypatch.setattr("guiapp.core.experiment.results.result_files.write_results", full)
    assert main(["run", str(earlier[0]), "--out", str(previous), "--jobs", "1", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "No space left on device" in error and "No results were written" in error and "Traceback" not in error
    assert whole(previous) == before and hidden(previous.parent) == []


# ------------------------------------------------------------------ replaced whole, readable by others
def test_a_rerun_replaces_the_older_results_as_a_whole_with_the_users_umask(earlier, previous, capsys) -> None:
    spec = fast_spec(previous.parent / "other", NAIVE_BAYES + LINEAR_SVM)
    before = whole(previous)
    old_umask = os.umask(0o002)
    try:
        assert main(["run", str(spec), "--out", str(previous), "--jobs", "1", "--quiet"]) == 0
    finally:
        os.umask(old_umask)
    assert f"Wrote {previous}" in capsys.readouterr().out
    assert whole(previous) != before and len(read_results(previous).models) == 2 + 2  # and their combinations
    for path in [previous, *previous.rglob("*")]:
        assert path.stat().st_mode & 0o777 == (0o775 if path.is_dir() else 0o664), path
    assert main(["run", str(earlier[0]), "--out", str(previous), "--jobs", "1", "--quiet"]) == 0
    assert len(read_results(previous).models) == 1  # the SVM's model, file rows and entries are gone
    assert hidden(previous.parent) == []


def test_readers_refuse_results_without_their_manifest_or_with_a_changed_file(previous, tmp_path, capsys) -> None:
    new = tmp_path / "new.csv"
    pd.DataFrame({"text": ["a bill on taxes"]}).to_csv(new, index=False)
    command = ["predict", str(previous), str(new), "--out", str(tmp_path / "p.csv")]
    predictions = previous / "predictions.csv"
    predictions.write_bytes(predictions.read_bytes().replace(b"\n", b"\r\n", 1))  # another run's file, say
    assert main(command) == 2
    assert "were changed or damaged since the run" in capsys.readouterr().err
    (previous / MANIFEST_NAME).unlink()
    assert main(command) == 2
    assert "does not hold a complete set of TextLab results" in capsys.readouterr().err
    assert main(["explain", str(previous), "--all", "--out", str(tmp_path / "x")]) == 2
    assert "textlab-results.json" in capsys.readouterr().err


# ------------------------------------------------------------------ Ctrl-C
def test_ctrl_c_keeps_the_earlier_results_and_removes_the_partial_folder(earlier, previous, monkeypatch, capsys):
    before = whole(previous)

    def interrupted(spec, on_event, *, artefacts_dir, **kwargs):
        (artefacts_dir / "half-saved").mkdir(parents=True)
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_experiment", interrupted)
    assert main(["run", str(earlier[0]), "--out", str(previous), "--quiet"]) == 130
    assert "Stopped; no results were written." in capsys.readouterr().err
    assert whole(previous) == before and hidden(previous.parent) == []


class Run:
    """``textlab run`` in a process of its own, watched for the processes it starts."""

    def __init__(self, spec: Path, out: Path) -> None:
        self.out = out
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "guiapp", "run", str(spec), "--out", str(out), "--jobs", "2", "--quiet"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        self.descendants: dict[int, psutil.Process] = {}
        self.workers_when_stopped = 0

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def watch(self) -> None:
        try:
            for child in psutil.Process(self.process.pid).children(recursive=True):
                self.descendants.setdefault(child.pid, child)
        except psutil.Error:
            pass

    def stop(self, signum: int) -> None:
        self.watch()
        self.workers_when_stopped = len(self.survivors())
        if signum == signal.SIGINT:
            os.killpg(self.process.pid, signum)  # as a terminal's Ctrl-C does
        else:
            self.process.send_signal(signum)

    def finish(self) -> tuple[int, str]:
        _, error = self.process.communicate(timeout=120)
        return self.process.returncode, error.decode("utf-8", "replace")

    def survivors(self) -> list[int]:
        return [pid for pid, process in self.descendants.items()
                if process.is_running() and process.status() != psutil.STATUS_ZOMBIE]


def survivors_after(runs: list[Run], seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := [pid for run in runs for pid in run.survivors()]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


SLOW_SVM = """
[[models]]
representation = "bow"
classifier = "svm"
grid = { kernel = ["linear", "rbf"], C = [0.01, 0.1, 1, 10, 100], gamma = [0.01, 0.1, 1] }
"""


def test_ctrl_c_in_a_terminal_keeps_the_earlier_results(earlier, previous, tmp_path) -> None:
    before = whole(previous)
    run = Run(fast_spec(tmp_path / "slow", SLOW_SVM), previous)  # a grid long enough to be stopped midway
    # stop it once the study is under way: its workers run and its partial folder exists
    while (not run.descendants or not hidden(previous.parent)) and run.process.poll() is None:
        run.watch()
        time.sleep(0.02)
    time.sleep(0.5)  # past start-up, into the grid
    assert run.process.poll() is None, "the run ended before it could be stopped"
    run.process.send_signal(signal.SIGINT)  # to the run itself; the workers end with it
    status, error = run.finish()
    assert status == 130 and "Stopped; no results were written." in error and "Traceback" not in error, error
    assert whole(previous) == before and hidden(previous.parent) == []
    assert survivors_after([run]) == []


# ------------------------------------------------------------------ SIGKILL at any moment
# A run spends most of its processor time importing scikit-learn, pandas and skops, which is not
# what these kills are about, and 21 runs of it would take minutes on two busy cores. So the
# runs below are forked from one process that has imported them: each is a process of its own
# running the real entry point (`guiapp.cli.entry.main(["run", …])`, worker processes included),
# killed with SIGKILL. A `python -m guiapp run` process is stopped above (Ctrl-C).
PRELOADED = """
import json, os, signal, sys
os.environ["OPENBLAS_NUM_THREADS"] = "1"
import skops.io, sklearn.naive_bayes, sklearn.model_selection  # what a run imports
from guiapp.cli.entry import main
import guiapp.core.experiment.run.runner, guiapp.core.experiment.protocol.tuning, guiapp.core.experiment.families.conventional_files
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the runs
print("ready", flush=True)
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        try:
            os._exit(main(json.loads(line)))
        finally:
            os._exit(99)
    print(pid, flush=True)
"""


class ForkedRun(Run):
    """``textlab run`` forked from a process that has imported what a run needs."""

    def __init__(self, parent: subprocess.Popen, spec: Path, out: Path) -> None:
        self.out = out
        self.started = time.monotonic()
        parent.stdin.write(json.dumps(["run", str(spec), "--out", str(out), "--jobs", "2", "--quiet"]) + "\n")
        parent.stdin.flush()
        self.pid = int(parent.stdout.readline())
        self.process = psutil.Process(self.pid)
        self.descendants: dict[int, psutil.Process] = {}
        self.workers_when_stopped = 0

    def running(self) -> bool:
        return self.process.is_running() and self.process.status() != psutil.STATUS_ZOMBIE

    def watch(self) -> None:
        try:
            for child in self.process.children(recursive=True):
                self.descendants.setdefault(child.pid, child)
        except psutil.Error:
            pass

    def kill(self) -> None:
        self.watch()
        self.workers_when_stopped = len(self.survivors())
        try:
            self.process.send_signal(signal.SIGKILL)
        except psutil.NoSuchProcess:
            pass

    def wait(self) -> None:
        deadline = time.monotonic() + 120
        while self.running() and time.monotonic() < deadline:
            self.watch()
            time.sleep(0.02)


PARALLEL = 3  # runs at once (into folders of their own)
KILLS = 20


@pytest.fixture
def preloaded():
    parent = subprocess.Popen([sys.executable, "-c", PRELOADED], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert parent.stdout.readline().strip() == "ready"
    yield parent
    parent.stdin.close()
    parent.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_run_killed_at_any_moment_leaves_its_folder_whole_or_absent_and_no_workers(tmp_path, preloaded) -> None:
    spec = fast_spec(tmp_path)
    outs = [tmp_path / f"out{slot}" for slot in range(PARALLEL)]
    first = [ForkedRun(preloaded, spec, out) for out in outs]  # times a run; leaves results to replace
    for run in first:
        run.wait()
    full = max(run.elapsed() for run in first)
    for out in outs:
        whole(out)
    moments = [full * (0.1 + i / (KILLS - 1)) for i in range(KILLS)]  # from 10 % to 110 % of a run
    killed_with_workers, outcomes, before = 0, [], {out: whole(out) for out in outs}
    for wave in range(0, KILLS, PARALLEL):
        runs = [(ForkedRun(preloaded, spec, out), moment) for out, moment in zip(outs, moments[wave:wave + PARALLEL])]
        waiting = list(runs)
        while waiting:
            for run, moment in list(waiting):
                run.watch()
                if run.elapsed() >= moment or not run.running():
                    run.kill()
                    waiting.remove((run, moment))
            time.sleep(0.02)
        for run, _ in runs:
            run.wait()
            killed_with_workers += run.workers_when_stopped > 0
            outcomes.append("absent" if not run.out.exists() else "new" if whole(run.out) != before[run.out] else "old")
            before[run.out] = whole(run.out) if run.out.exists() else None
        assert survivors_after([run for run, _ in runs]) == []
    assert len(outcomes) == KILLS
    print(f"{KILLS} kills over {full:.1f} s runs; {killed_with_workers} with worker processes running; "
          f"left the older results {outcomes.count('old')}, the new ones {outcomes.count('new')}, "
          f"none {outcomes.count('absent')}")
    assert killed_with_workers >= 5, killed_with_workers  # the kills did catch runs with worker processes
    leftovers = [name for name in hidden(tmp_path) if ".partial-" not in name and ".textlab-lock" not in name]
    assert leftovers == []  # what a kill may leave is tidied by the next run into the folder
