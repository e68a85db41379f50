"""The whole study through the main window: Data → Models → Run → Results."""

from __future__ import annotations

import random
import time

import pytest
from PySide6.QtCore import Qt

from guiapp.core.events import Progress
from guiapp.core.study.spec import ExperimentSpec
from guiapp.ui.main_window import DATA_STEP, MODELS_STEP, RESULTS_STEP, RUN_STEP
from guiapp.ui.steps.data.mapping_panel import NONE_CHOICE
from guiapp.workers import registry
from tests.ui.helpers import wait_for_report


def enabled_steps(window) -> list[bool]:
    return [window.steps.is_step_enabled(row) for row in range(window.steps.count())]


class EndlessRun:
    """A stand-in for the engine that works until it is cancelled, remembering what it got."""

    def __init__(self) -> None:
        self.calls: list[tuple[ExperimentSpec, object]] = []

    def __call__(self, spec, on_event, table=None, spec_file=None):
        self.calls.append((spec, table))
        while True:  # the worker's callback raises Cancelled once Cancel is pressed
            on_event(Progress(0.1, "working"))
            time.sleep(0.01)


@pytest.fixture
def ready_window(qtbot, window):
    window.open_example()
    wait_for_report(qtbot, window)
    return window


def test_models_step_opens_when_the_data_is_ready(qtbot, window):
    assert enabled_steps(window) == [True, False, False, False, False, False, False, False]
    assert window.models_page.reason_label.text() == "Open your coded texts on the Data step first."
    window.open_example()
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))
    # Coding, Models, and Findings (the table's own codings can be measured)
    assert enabled_steps(window) == [True, True, True, False, False, False, False, True]
    assert "Not available" not in window.steps.item(MODELS_STEP).toolTip()
    assert "Not available yet: start a run" in window.steps.item(RUN_STEP).toolTip()
    window.steps.setCurrentRow(MODELS_STEP)
    assert window.pages.currentWidget() is window.models_page
    page = window.models_page
    assert page.data_label.text().startswith("4,449 coded texts in 20 categories: 3,114 to train")
    assert page.run_button.isEnabled() and page.run_button.text() == "Run 3 models"

    # Without a category column there is nothing to compare: the step says so.
    window.steps.setCurrentRow(DATA_STEP)
    combo = window.data_page.mapping_panel.category
    old = window.data_page.report
    combo.setCurrentIndex(combo.findText(NONE_CHOICE))
    qtbot.waitUntil(lambda: window.data_page.report not in (None, old) and not window.data_page.is_busy(), timeout=30_000)
    assert not window.steps.is_step_enabled(MODELS_STEP)
    assert "Choose a category column on the Data step first." in window.steps.item(MODELS_STEP).toolTip()
    assert not page.run_button.isEnabled()


def test_run_button_starts_the_run_step(qtbot, ready_window):
    window = ready_window
    engine = EndlessRun()
    window.run_page.run_fn = engine
    window.steps.setCurrentRow(MODELS_STEP)
    qtbot.mouseClick(window.models_page.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(engine.calls) == 1)
    assert window.steps.currentRow() == RUN_STEP and window.pages.currentWidget() is window.run_page
    assert window.run_page.is_busy() and window.steps.is_step_enabled(RUN_STEP)
    assert not window.steps.is_step_enabled(RESULTS_STEP)
    spec, table = engine.calls[0]
    assert [model.display_name for model in spec.models] == [
        "SVM · Basic BOW", "SVM · Word vectors", "Logistic regression · Sentence embeddings"]
    assert table is window.data_page.table_frame()  # the table as read, not read again

    # A second run while the first is going asks first; "No" keeps the first one.
    asked = []
    window.run_page._confirm_replace_run = lambda: asked.append(True) or False
    window.steps.setCurrentRow(MODELS_STEP)
    window.models_page.run_button.click()
    assert asked == [True] and window.run_page.spec is spec and window.steps.currentRow() == MODELS_STEP
    window.run_page._confirm_replace_run = lambda: True
    window.models_page.choice.none_button.click()
    window.models_page.choice.checkbox("bow", "naive_bayes").click()
    window.models_page.run_button.click()
    qtbot.waitUntil(lambda: len(engine.calls) == 2)
    assert [m.display_name for m in window.run_page.spec.models] == ["Naive Bayes · Basic BOW"]

    window.run_page.cancel()
    qtbot.waitUntil(lambda: not window.run_page.is_busy(), timeout=10_000)
    assert window.steps.is_step_enabled(RUN_STEP)  # it still shows what happened


def test_closing_the_window_stops_the_run(qtbot, ready_window):
    window = ready_window
    engine = EndlessRun()
    window.run_page.run_fn = engine
    window.models_page.run_button.click()
    qtbot.waitUntil(lambda: len(engine.calls) == 1)
    assert window.run_page.is_busy()
    window.close()
    assert registry.running_workers() == []  # stopped before the window went away


def test_save_study_includes_the_models(qtbot, ready_window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    window = ready_window
    assert window.save_spec_action.text().replace("&", "") == "Save study file as…"
    window.models_page.choice.checkbox("bow", "xgboost").click()
    target = tmp_path / "bills.textlab.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), ""))
    window.models_page.save_button.click()
    spec = ExperimentSpec.load(target)
    assert len(spec.models) == 4 and ("bow", "xgboost") in [(m.representation, m.classifier) for m in spec.models]
    assert spec.data.mapping.category_column == "Topic"
    assert spec.to_dict() == window.models_page.build_spec().to_dict()


def _coded_csv(path, n=90):
    words = {
        "tax": ["tax", "budget", "revenue", "income", "spending", "deficit", "credit", "rate", "fiscal", "treasury"],
        "health": ["health", "hospital", "medicare", "patients", "doctors", "insurance", "drugs", "care", "nurses", "clinic"],
        "defense": ["defense", "army", "navy", "troops", "weapons", "military", "veterans", "security", "missile", "base"],
    }
    rng = random.Random(1)
    lines = ["text,topic"]
    for i in range(n):
        topic = list(words)[i % 3]
        lines.append(" ".join(rng.sample(words[topic], 5)) + f",{topic}")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_a_whole_study_from_data_to_results(qtbot, window, tmp_path):
    from guiapp.core.experiment.run.runner import run_experiment

    window.open_path(_coded_csv(tmp_path / "topics.csv"))
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))
    window.run_page.run_fn = lambda spec, on_event, **kwargs: run_experiment(spec, on_event, n_jobs=1, **kwargs)
    page = window.models_page
    page.choice.none_button.click()
    page.choice.checkbox("bow", "naive_bayes").click()
    page.choice.checkbox("bow", "logistic_regression").click()
    page.run_button.click()
    qtbot.waitUntil(lambda: window.steps.currentRow() == RESULTS_STEP, timeout=60_000)
    qtbot.waitUntil(lambda: not window.run_page.is_busy())
    assert enabled_steps(window) == [True, True, True, True, True, True, True, True]
    results = window.results_page
    # the two ticked models and the two combined models the app builds from them by default
    assert results.result is not None and len(results.result.finished_models()) == 2 + 2
    assert results.picker.count() == 4
    assert sum(model.representation == "combined" for model in results.result.models) == 2
    assert window.run_page.state() == "finished"


def test_open_study_takes_over_table_roles_test_file_and_models(qtbot, window, tmp_path):
    """The documented hand-written study opens in the app and runs there as it does on the CLI."""
    import shutil
    from pathlib import Path

    from guiapp.core.experiment.run.runner import run_experiment

    folder = tmp_path / "bills"
    shutil.copytree(Path(__file__).resolve().parents[2] / "docs" / "examples" / "bills", folder)
    window.open_study(folder / "study.toml")
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.data_page.test_count() == 200, timeout=5000)  # the test file is read too
    data = window.data_page.data_spec()
    assert data.mapping.text_columns == ["text"] and data.mapping.category_column == "label"
    assert data.test_source == str(folder / "test.csv")
    assert "test texts from test.csv" in window.data_page.file_details.text()
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))
    assert sorted(window.models_page.checked_models()) == [("bow", "naive_bayes"), ("bow", "svm"), ("word_vectors", "svm")]
    spec = window.models_page.build_spec()
    assert spec.data.test_source == str(folder / "test.csv")
    # the Models step keeps one set of preprocessing per representation, and says so
    assert "different settings to models of the same kind (Basic BOW, SVM grid)" in window.files.study_notes_box.text()
    window.files.study_notes_box.close()

    window.run_page.run_fn = lambda spec, on_event, **kwargs: run_experiment(spec, on_event, n_jobs=1, **kwargs)
    window.models_page.choice.checkbox("bow", "svm").click()  # keep the test quick: two models
    window.models_page.run_button.click()
    qtbot.waitUntil(lambda: window.steps.currentRow() == RESULTS_STEP, timeout=60_000)
    qtbot.waitUntil(lambda: not window.run_page.is_busy())
    result = window.results_page.result
    assert result.split["how"] == "test file" and result.split["n_test"] == 200


def test_a_broken_study_file_is_explained(qtbot, window, tmp_path):
    study = tmp_path / "study.toml"
    study.write_text('[data]\nsource = "missing.csv"\n', encoding="utf-8")
    window.open_study(study)
    qtbot.waitUntil(lambda: bool(window.errors.history))
    assert "missing.csv" in str(window.errors.history[-1])
    study.write_text("[data\n", encoding="utf-8")
    window.open_study(study)
    qtbot.waitUntil(lambda: len(window.errors.history) == 2)
    assert "not valid TOML" in str(window.errors.history[-1])


def test_a_separate_test_file_can_be_chosen_and_dropped_on_the_data_step(qtbot, window, tmp_path, monkeypatch):
    import shutil
    from pathlib import Path

    from PySide6.QtWidgets import QFileDialog

    folder = tmp_path / "bills"
    shutil.copytree(Path(__file__).resolve().parents[2] / "docs" / "examples" / "bills", folder)
    window.open_path(folder / "train.csv")
    wait_for_report(qtbot, window)
    choice = window.data_page.test_choice
    assert "Set aside at random" in choice.label.text() and not choice.remove_button.isVisibleTo(window)

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(folder / "test.csv"), ""))
    choice.choose_button.click()
    qtbot.waitUntil(lambda: choice.count == 200, timeout=5000)
    assert "From the file test.csv (200 coded texts)" in choice.label.text()
    assert window.data_page.data_spec().test_source == str(folder / "test.csv")
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))
    assert "200 coded test texts from the file test.csv" in window.models_page.data_label.text()

    (tmp_path / "wrong.csv").write_text("words,code\nhello,a\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(tmp_path / "wrong.csv"), ""))
    window.data_page.test_choice.set_file((str(tmp_path / "wrong.csv"), None), lambda e: window.errors.report(e, "Reading the test file"))
    qtbot.waitUntil(lambda: bool(window.errors.history), timeout=5000)
    assert "does not have the study's columns" in str(window.errors.history[-1])
    qtbot.waitUntil(lambda: not choice.is_busy())
    assert choice.file[0] == str(folder / "test.csv") and choice.count == 200  # the good file stays

    choice.remove_button.click()
    assert window.data_page.data_spec().test_source == ""
    assert "Set aside at random" in choice.label.text()
