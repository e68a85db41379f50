"""How busy this computer is, and what that does to an expected time."""

from __future__ import annotations

import pytest

from guiapp.core.compute import machine_load
from guiapp.core.compute.machine_load import MachineLoad, read_load
from guiapp.core.experiment.run.per_model import progress_spans
from guiapp.core.experiment.run.run_size import estimate_run
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec


def test_other_programs_lengthen_the_time_and_an_idle_or_unread_load_does_not() -> None:
    assert MachineLoad(2, 0.1).slowdown() == 1.0 and MachineLoad(2, 0.1).describe() == ""
    assert MachineLoad(2, 1.6).slowdown() == pytest.approx(1.8)
    assert MachineLoad(4, 400.0).slowdown() == 10.0  # capped
    assert "keep 1.6 of its 2 cores busy and make it take 1.8 times as long" in MachineLoad(2, 1.6).describe()
    assert MachineLoad(2, None).slowdown() == 1.0
    assert "could not be read" in MachineLoad(2, None).describe()


def test_the_load_is_read_from_the_system_or_said_to_be_unknown(monkeypatch) -> None:
    monkeypatch.undo()  # the tests' idle computer: read the real one here
    assert read_load().cores >= 1 and read_load().busy is not None
    monkeypatch.setattr(machine_load.os, "getloadavg", lambda: (_ for _ in ()).throw(OSError()))
    import psutil

    monkeypatch.setattr(psutil, "cpu_percent", lambda interval=None: 50.0)
    assert read_load().busy == pytest.approx(0.5 * read_load().cores)
    monkeypatch.setitem(__import__("sys").modules, "psutil", None)
    assert read_load().busy is None and not read_load().known


def test_a_study_estimate_allows_for_the_load_and_says_so() -> None:
    spec = ExperimentSpec(models=[ModelSpec("bow", "logistic_regression")])
    idle = estimate_run(spec, 600, 200, 3, load=MachineLoad(2, 0.0))
    busy = estimate_run(spec, 600, 200, 3, load=MachineLoad(2, 2.0))
    assert busy.seconds == pytest.approx(2 * idle.seconds)
    assert "allowing for other programs, which keep 2.0 of its 2 cores busy" in busy.describe()
    assert "could not be read" in estimate_run(spec, 600, 200, 3, load=MachineLoad(2, None)).describe()
    assert estimate_run(spec, 600, 200, 3).seconds == idle.seconds  # no load asked: the plan's time


def test_each_model_takes_its_share_of_the_progress_bar_by_its_expected_time() -> None:
    spans = progress_spans([10.0, 90.0])
    assert spans == [(0.0, pytest.approx(0.1)), (pytest.approx(0.1), 1.0)]
    tiny = progress_spans([0.0, 100.0])
    assert tiny[0][1] == pytest.approx(2 / 102)  # a quick model still moves the bar
    assert progress_spans([10.0, None]) is None and progress_spans([]) is None
