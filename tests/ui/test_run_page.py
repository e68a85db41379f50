"""The Run step driven through its real widgets, with fake engines that report like the real one
(and one run of the real engine on a tiny table)."""

from __future__ import annotations

import re
import threading
import time
from functools import partial

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from guiapp.core.errors import UserError
from guiapp.core.events import Log, Progress, TaskUpdate, ignore_events
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.ui.steps.run.run_log import LOG_COLORS
from guiapp.ui.steps.run.run_page import CANCELLED_TEXT, EMPTY_TEXT, RunPage
from guiapp.ui.steps.results.results_charts import format_seconds
from guiapp.workers import ErrorSink
from tests.ui.helpers import save_screenshot
from tests.ui.sample_results import FAILED_MESSAGE, sample_result, sample_spec

SAFETY_S = 20.0  # a fake engine never runs longer than this, even if a test goes wrong


def scripted_run(result, step_delay=0.003, gate: threading.Event | None = None):
    """A fake engine that walks through ``result``'s models, reporting as the real one does.
    With ``gate``, it waits after the first model's first progress report until the gate opens."""

    def run(spec, on_event=ignore_events, *, spec_file=None, table=None, n_jobs=None):
        n = len(result.models)
        on_event(Log("Reading the coded texts."))
        on_event(Log("The smallest category has only 12 test texts.", "warning"))
        for index, model in enumerate(result.models):
            on_event(TaskUpdate(index, "running", model.name))
            for fold in range(1, 4):
                on_event(Progress((index + fold / 4) / n, f"{model.name} — fold {fold} of 3, setting 2 of 4",
                                  task=index, task_fraction=fold / 4))
                if gate is not None and index == 0 and fold == 1:
                    started = time.monotonic()
                    while not gate.is_set() and time.monotonic() - started < SAFETY_S:
                        on_event(Progress(0.05, f"{model.name} — fold 1 of 3, setting 2 of 4", task=0,
                                          task_fraction=0.25))
                        time.sleep(0.01)
                time.sleep(step_delay)
            if model.ok:
                on_event(Log(f"{model.name}: test macro-F1 {model.test.macro_f1:.3f}."))
                on_event(TaskUpdate(index, "done", model.name, model))
            else:
                on_event(Log(f"{model.name} failed: {model.message}", "error"))
                on_event(TaskUpdate(index, "failed", model.message, model))
        on_event(Progress(1.0, "Finished"))
        return result

    return run


def endless_run(result, stall_at=1, fraction=0.45):
    """Finishes model 0, then reports progress on model ``stall_at`` every 10 ms until cancelled."""

    def run(spec, on_event=ignore_events, **_):
        n = len(spec.models)
        for index in range(stall_at):
            model = result.models[index]
            on_event(TaskUpdate(index, "running", model.name))
            on_event(Progress((index + 1) / n, f"{model.name} — done", task=index, task_fraction=1.0))
            on_event(Log(f"{model.name}: test macro-F1 {model.test.macro_f1:.3f}."))
            on_event(TaskUpdate(index, "done", model.name, model))
        name = spec.models[stall_at].display_name
        on_event(TaskUpdate(stall_at, "running", name))
        started = time.monotonic()
        while time.monotonic() - started < SAFETY_S:
            on_event(Progress((stall_at + fraction) / n, f"{name} — fold 3 of 5, setting 7 of 12",
                              task=stall_at, task_fraction=fraction))
            time.sleep(0.01)
        return result

    return run


def failing_run(spec, on_event=ignore_events, **_):
    on_event(Log("Reading the coded texts."))
    on_event(TaskUpdate(0, "running"))
    raise UserError("The column “Topic” has no coded texts.", "Choose the column that holds your coding.")


@pytest.fixture
def errors(qtbot):
    return ErrorSink(None)


def make_page(qtbot, errors, run_fn):
    page = RunPage(errors, run_fn=run_fn)
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    return page


def finish(qtbot, page, timeout=30_000):
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=timeout)


def test_empty_state_before_a_run(qtbot, errors):
    page = make_page(qtbot, errors, scripted_run(sample_result()))
    assert page.stack.currentWidget() is page.empty
    assert page.empty_label.text() == EMPTY_TEXT
    assert "Models step" in EMPTY_TEXT and page.state() == "idle" and not page.is_busy()


def test_a_run_shows_one_row_per_model_and_ends_with_the_results(qtbot, errors):
    result = sample_result()
    spec = sample_spec()
    page = make_page(qtbot, errors, scripted_run(result))
    running = []
    page.runningChanged.connect(running.append)
    with qtbot.waitSignal(page.resultReady, timeout=30_000) as ready:
        page.start(spec)
        assert page.stack.currentWidget() is page.running
        assert page.title_label.text() == "Comparing 5 models on “Party manifestos 2021”"
        assert "30 % of your coded texts kept aside as test texts" in page.details_label.plain_text()
        assert "5-fold cross-validation" in page.details_label.plain_text()
        assert [row.name for row in page.rows()] == [m.display_name for m in spec.models]
    finish(qtbot, page)
    assert ready.args == [result]
    assert running == [True, False]
    rows = page.rows()
    assert [row.state() for row in rows] == ["done"] * 4 + ["failed"]
    assert rows[0].result_text() == f"{result.models[0].test.macro_f1:.2f} agreement (macro-F1)"
    assert rows[0].fraction() == 1.0
    assert rows[0].stage_text() == f"finished in {format_seconds(result.models[0].seconds['total'])}"
    assert page.state() == "finished"
    assert page.banner_text().startswith("Finished in ")
    assert "4 of 5 models compared; 1 failed" in page.banner_text()
    assert page.results_button.isVisible() and page.results_button.text() == "See the results →"
    assert not page.cancel_button.isVisible()
    assert page.time_text().startswith("Took 0:0")
    with qtbot.waitSignal(page.resultReady) as again:
        qtbot.mouseClick(page.results_button, Qt.MouseButton.LeftButton)
    assert again.args == [result]


def test_rows_go_from_waiting_to_running_to_done(qtbot, errors):
    result = sample_result()
    gate = threading.Event()
    page = make_page(qtbot, errors, scripted_run(result, gate=gate))
    page.start(sample_spec())
    try:
        rows = page.rows()
        qtbot.waitUntil(lambda: rows[0].state() == "running" and rows[0].stage_text() != "", timeout=30_000)
        assert rows[0].state_text() == "Running"
        assert rows[0].stage_text() == "fold 1 of 3, setting 2 of 4"
        assert rows[0].result_text() == ""
        assert 0.2 < rows[0].fraction() < 0.3
        assert [row.state_text() for row in rows[1:]] == ["Waiting"] * 4
        assert "SVM · Basic BOW — fold 1 of 3" in page.overall_message.text()
        assert "Elapsed 0:0" in page.time_text() and "estimating…" in page.time_text()
        assert page.cancel_button.isEnabled()
    finally:
        gate.set()
    finish(qtbot, page)
    assert rows[0].state_text() == "Done"
    assert rows[0].result_text().endswith("agreement (macro-F1)")


def test_the_log_has_timestamps_colours_and_can_be_copied(qtbot, errors):
    result = sample_result()
    page = make_page(qtbot, errors, scripted_run(result))
    page.start(sample_spec())
    finish(qtbot, page)
    lines = page.log_text().splitlines()
    assert all(re.match(r"^\d\d:\d\d:\d\d ", line) for line in lines)
    assert any(line.endswith("Reading the coded texts.") for line in lines)
    assert any("Warning: The smallest category has only 12 test texts." in line for line in lines)
    assert any(f"{result.models[0].name}: test macro-F1" in line for line in lines)
    assert page.log_view.isReadOnly()
    html = page.log_view.document().toHtml()
    assert LOG_COLORS["warning"] in html and LOG_COLORS["error"] in html
    qtbot.mouseClick(page.copy_button, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == page.log_text()


def test_a_failed_model_shows_its_message(qtbot, errors):
    page = make_page(qtbot, errors, scripted_run(sample_result()))
    page.start(sample_spec())
    finish(qtbot, page)
    failed = page.rows()[4]
    assert failed.state_text() == "Failed"
    assert failed.message_text() == FAILED_MESSAGE
    assert failed.message_label.toolTip() == FAILED_MESSAGE
    assert "#c62828" in failed.message_label.styleSheet()  # red
    assert failed.result_text() == "" and page.rows()[3].message_text() == ""
    assert errors.history == []  # one model failing is not an error of the run


def test_cancel_during_a_run_ends_within_two_seconds(qtbot, errors):
    result = sample_result()
    page = make_page(qtbot, errors, endless_run(result))
    ready = []
    page.resultReady.connect(ready.append)
    page.start(sample_spec())
    rows = page.rows()
    qtbot.waitUntil(lambda: rows[1].state() == "running" and rows[1].stage_text() != "", timeout=30_000)
    assert rows[0].state() == "done"
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    assert page.cancel_button.text() == "Stopping…" and not page.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: page.state() == "cancelled", timeout=30_000)
    finish(qtbot, page)
    assert page.banner_text() == CANCELLED_TEXT
    assert "nothing was saved" in page.banner_text()
    assert [row.state_text() for row in rows] == ["Done", "Cancelled", "Not run", "Not run", "Not run"]
    assert rows[0].result_text().endswith("agreement (macro-F1)")  # finished models keep their score
    assert not page.results_button.isVisible()
    assert ready == [] and errors.history == []
    assert "The run was cancelled" in page.log_text()


def test_cancel_keeps_the_finished_models_for_the_results_step(qtbot, errors):
    import dataclasses

    from guiapp.core.events import Cancelled

    result = sample_result()
    partial = dataclasses.replace(result, models=result.models[:1], status="cancelled")
    inner = endless_run(result)

    def run(spec, on_event=ignore_events, **kwargs):
        try:
            return inner(spec, on_event, **kwargs)
        except Cancelled as stop:  # as the engine does: the finished models travel with Cancel
            stop.partial = partial
            raise

    page = make_page(qtbot, errors, run)
    ready = []
    page.resultReady.connect(ready.append)
    page.start(sample_spec())
    qtbot.waitUntil(lambda: page.rows()[1].state() == "running", timeout=30_000)
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.state() == "cancelled", timeout=30_000)
    finish(qtbot, page)
    assert "The 1 model that had finished keeps its result" in page.banner_text()
    assert page.results_button.isVisible() and ready == []
    qtbot.mouseClick(page.results_button, Qt.MouseButton.LeftButton)
    assert ready == [partial]


def test_an_engine_error_goes_to_the_error_sink(qtbot, errors):
    page = make_page(qtbot, errors, failing_run)
    ready = []
    page.resultReady.connect(ready.append)
    page.start(sample_spec())
    finish(qtbot, page)
    assert [report.message for report in errors.history] == ["The column “Topic” has no coded texts."]
    assert errors.history[0].title == "Running the study did not work"
    assert errors.last_dialog is not None and "Traceback" not in errors.last_dialog.text()
    errors.last_dialog.close()
    assert page.state() == "failed"
    assert page.banner_text() == "The run stopped: The column “Topic” has no coded texts."
    assert page.rows()[0].state_text() == "Cancelled" and page.rows()[1].state_text() == "Not run"
    assert ready == []
    assert "Starting" not in page.overall_message.text() and "Stopped" in page.overall_message.text()


def test_header_names_a_separate_test_file(qtbot, errors):
    page = make_page(qtbot, errors, scripted_run(sample_result()))
    page.start(sample_spec(test_source="/data/held_out.xlsx"))
    assert "test texts from the file held_out.xlsx" in page.details_label.plain_text()
    finish(qtbot, page)


def test_a_new_run_replaces_the_old_one(qtbot, errors):
    result = sample_result()
    page = make_page(qtbot, errors, endless_run(result))
    page.start(sample_spec())
    qtbot.waitUntil(lambda: page.rows()[1].state() == "running", timeout=30_000)
    page.run_fn = scripted_run(result)
    ready = []
    page.resultReady.connect(ready.append)
    page.start(sample_spec(name="Second study"))
    qtbot.waitUntil(lambda: page.state() == "finished" and not page.is_busy(), timeout=30_000)
    assert ready == [result]
    assert page.title_label.text().endswith("“Second study”")
    assert "cancelled" not in page.log_text()


def _tiny_table(n=60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    words = {
        "Economy": "tax budget jobs market inflation wages",
        "Health": "hospital doctor nurse care vaccine patients",
        "Defence": "army navy troops weapons border soldiers",
    }
    common = ["the", "a", "of", "and", "policy", "new", "bill", "for"]
    rows = []
    for i in range(n):
        topic = list(words)[i % 3]
        vocabulary = words[topic].split() + common
        rows.append({"ID": i, "Text": " ".join(rng.choice(vocabulary, 9)), "Topic": topic})
    return pd.DataFrame(rows)


def test_the_real_engine_on_a_tiny_table(qtbot, errors):
    from guiapp.core.experiment.run.runner import run_experiment

    spec = ExperimentSpec(
        data=DataSpec(source="tiny.csv", mapping=ColumnMapping(text_columns=["Text"], category_column="Topic",
                                                                  id_column="ID")),
        name="Tiny study",
        evaluation=EvaluationSpec(folds=2, bootstrap_samples=100),
        models=[ModelSpec("bow", "naive_bayes")],
    )
    page = make_page(qtbot, errors, partial(run_experiment, n_jobs=1))
    with qtbot.waitSignal(page.resultReady, timeout=30_000) as ready:
        page.start(spec, table=_tiny_table())
    finish(qtbot, page)
    result = ready.args[0]
    assert errors.history == []
    assert page.state() == "finished"
    row = page.rows()[0]
    assert row.name == "Naive Bayes · Basic BOW" and row.state() == "done"
    assert row.result_text() == f"{result.models[0].test.macro_f1:.2f} agreement (macro-F1)"
    assert "Naive Bayes · Basic BOW: test macro-F1" in page.log_text()
    assert len(result.test_true) == result.split["n_test"] > 0


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cancel_stops_the_real_engine_mid_grid_within_two_seconds(qtbot, errors, n_jobs):
    """The real engine on the example study (4,449 titles, 20 topics): Cancel during the grid
    search of the paper's SVM grid takes effect within 2 s, in-process and with worker processes."""
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.locations import example_path

    spec = ExperimentSpec(
        data=DataSpec(str(example_path()), "Bills", mapping=ColumnMapping(text_columns=["Title"], category_column="Topic")),
        models=[ModelSpec("bow", "svm"), ModelSpec("bow", "logistic_regression")],
    )
    page = make_page(qtbot, errors, partial(run_experiment, n_jobs=n_jobs))
    page.start(spec)
    rows = page.rows()
    qtbot.waitUntil(lambda: "setting" in rows[0].stage_text(), timeout=60_000)
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.state() == "cancelled", timeout=30_000)  # at once; generous for busy machines
    finish(qtbot, page)
    assert rows[0].state() == "cancelled" and rows[1].state() != "done"
    assert errors.history == []


# -- screenshots (screenshots/, gitignored) ---------------------------------------------------------------
THREE_MODELS = [("bow", "svm", 0.745), ("sentence_embeddings", "logistic_regression", 0.73),
                ("word_vectors", "xgboost", 0.66)]


def test_screenshots_of_the_run_page(qtbot, errors):
    result = sample_result(models=THREE_MODELS)
    page = make_page(qtbot, errors, endless_run(result, stall_at=1, fraction=0.45))
    page.resize(1090, 740)  # the page's room in a 1280 × 820 window
    page.start(sample_spec(models=THREE_MODELS))
    rows = page.rows()
    qtbot.waitUntil(lambda: rows[1].stage_text() != "" and rows[1].time_left_text() != "", timeout=30_000)
    assert [row.state_text() for row in rows] == ["Done", "Running", "Waiting"]
    save_screenshot(page, "run_page_mid_run")
    page.resize(810, 610)  # a 1000 × 700 window
    qtbot.wait(30)
    save_screenshot(page, "run_page_mid_run_small")
    page.resize(1090, 740)
    page.cancel()
    qtbot.waitUntil(lambda: page.state() == "cancelled", timeout=30_000)
    finish(qtbot, page)
    qtbot.wait(30)
    save_screenshot(page, "run_page_cancelled")


def test_the_expected_time_allows_for_a_busy_computer_and_says_so(qtbot, errors):
    from guiapp.core.compute.machine_load import MachineLoad
    from tests.ui.sample_reports import ready_report

    gate = threading.Event()
    page = make_page(qtbot, errors, scripted_run(sample_result(), gate=gate))
    page.ask_before_large_runs = False
    page.session.set_data(report=ready_report())
    page.load_reader = lambda: MachineLoad(2, None)
    unknown = page.run_size(sample_spec()).describe()
    assert "if nothing else runs (how busy this computer is could not be read" in unknown
    idle = page.run_size(sample_spec())
    page.load_reader = lambda: MachineLoad(2, 1.6)
    busy = page.run_size(sample_spec())
    assert busy.seconds == pytest.approx(idle.seconds * 1.8)
    page.start(sample_spec())
    try:
        shown = page.details_label.plain_text()
        assert "on this computer (allowing for other programs, which keep 1.6 of its 2 cores busy" in shown
    finally:
        gate.set()
    finish(qtbot, page)
