"""Before an explanation job of more than a minute the app says how long it will take and asks;
a shorter job starts without a question."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox, QWidget

from guiapp.core.explain.job_estimate import JobEstimate
from guiapp.ui.common.job_progress import JobProgress
from guiapp.ui.common.long_job_warning import LongJobCheck
from guiapp.workers import WorkerSlot


def _estimate(seconds: float):
    def estimate(on_event):
        return JobEstimate(seconds, 275)

    return estimate


@pytest.fixture
def check(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    progress = JobProgress(parent)
    slot = WorkerSlot()
    events = {"started": 0, "not started": 0, "errors": []}
    gate = LongJobCheck(parent, slot, progress, "Explaining all test documents", events["errors"].append,
                        lambda: events.__setitem__("not started", events["not started"] + 1))

    def start():
        assert not gate.should_estimate()  # the page's start method may be the one that asked
        events["started"] += 1

    yield gate, slot, progress, start, events
    slot.cancel()


@pytest.mark.parametrize("answer", [QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No])
def test_a_long_job_is_announced_and_starts_only_when_the_user_continues(qtbot, check, monkeypatch, answer):
    gate, slot, progress, start, events = check
    asked = []

    def reply(box):
        asked.append((box.objectName(), box.windowTitle(), box.text(), box.informativeText()))
        return answer

    monkeypatch.setattr(QMessageBox, "exec", reply)
    gate.estimate_then(_estimate(7920), start=start)
    assert progress.isVisibleTo(progress.parentWidget())
    qtbot.waitUntil(lambda: bool(asked) and not slot.is_busy(), timeout=10_000)
    assert asked[0][:3] == ("longJobWarning", "Explaining all test documents",
                            "This will take about 2 hours 10 minutes. Continue?")
    assert "275 texts" in asked[0][3]
    continued = answer == QMessageBox.StandardButton.Yes
    qtbot.waitUntil(lambda: events["started"] + events["not started"] == 1, timeout=5_000)
    assert events["started"] == int(continued) and events["not started"] == int(not continued)
    assert gate.should_estimate()
    if not continued:
        assert not progress.isVisibleTo(progress.parentWidget())


def test_a_short_job_starts_without_a_question(qtbot, check, monkeypatch):
    gate, slot, _, start, events = check
    monkeypatch.setattr(QMessageBox, "exec", lambda box: (_ for _ in ()).throw(AssertionError("asked")))
    gate.estimate_then(_estimate(45), start=start)
    qtbot.waitUntil(lambda: events["started"] == 1, timeout=10_000)


def test_a_failed_estimate_is_reported_and_nothing_starts(qtbot, check):
    gate, slot, _, start, events = check

    def broken(on_event):
        raise ValueError("the model folder is gone")

    gate.estimate_then(broken, start=start)
    qtbot.waitUntil(lambda: bool(events["errors"]) and events["not started"] == 1, timeout=10_000)
    assert events["started"] == 0 and str(events["errors"][0]) == "the model folder is gone"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    from tests.core.project.helpers import run_project

    return run_project(tmp_path_factory.mktemp("models"))


@pytest.mark.parametrize("answer", [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes])
def test_explain_all_asks_before_a_long_job(qtbot, project, monkeypatch, answer):
    from guiapp.ui.steps.documents import explanation_panel
    from guiapp.ui.steps.documents.explanation_panel import ExplanationPanel

    asked = []

    def long_estimate(models, name, folder, texts, steps, cache, on_event):
        return JobEstimate(7920, len(texts))

    def reply(box):
        asked.append(box.text())
        return answer

    monkeypatch.setattr(explanation_panel, "estimate_all_job", long_estimate)
    monkeypatch.setattr(QMessageBox, "exec", reply)
    panel = ExplanationPanel()
    qtbot.addWidget(panel)
    panel.set_result(project.result, lambda model: project.model_folder(model.name))
    panel.all_button.click()
    qtbot.waitUntil(lambda: bool(asked) and not panel.is_busy(), timeout=60_000)
    assert asked == ["This will take about 2 hours 10 minutes. Continue?"]
    if answer == QMessageBox.StandardButton.Yes:
        qtbot.waitUntil(lambda: panel.corpus is not None and not panel.is_busy(), timeout=60_000)
        assert len(panel.corpus.documents) > 0
    else:
        assert panel.corpus is None and not panel.progress.isVisibleTo(panel)
    panel.cancel_jobs()


@pytest.mark.parametrize("answer", [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes])
def test_predicting_with_top_words_asks_before_a_long_job(qtbot, project, monkeypatch, answer):
    from guiapp.core.explain import job_estimate
    from guiapp.ui.steps.predict.predict_page import PredictPage
    from tests.ui.helpers import session_with_table

    table = project.table.copy()
    table.loc[:9, "label"] = None  # ten rows nobody has coded yet
    page = PredictPage(session=session_with_table(table, project.spec.data.mapping))
    qtbot.addWidget(page)
    page.set_result(project.result, lambda model: project.model_folder(model.name))
    page.source.own_button.click()
    page.top_words_box.setChecked(True)
    asked = []
    monkeypatch.setattr(page, "_slow_chosen", lambda: page.chosen_models())  # as if they explained slowly
    monkeypatch.setattr(job_estimate, "estimate_predicting", lambda *args, on_event: JobEstimate(900, 10))
    monkeypatch.setattr(QMessageBox, "exec", lambda box: asked.append(box.text()) or answer)
    page.predict()
    assert not page.predict_button.isEnabled() and page.progress.isVisibleTo(page)
    qtbot.waitUntil(lambda: bool(asked), timeout=30_000)
    assert asked == ["This will take about 15 minutes. Continue?"]
    if answer == QMessageBox.StandardButton.Yes:
        qtbot.waitUntil(lambda: page.found is not None, timeout=60_000)
        assert page.found.top_words and "10 texts predicted" in page.summary.text()
    else:
        qtbot.waitUntil(page.predict_button.isEnabled, timeout=10_000)
        assert page.found is None and not page.progress.isVisibleTo(page)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30_000)
    page.cancel_jobs()
