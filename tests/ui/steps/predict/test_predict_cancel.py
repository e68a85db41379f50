"""The Predict step after a cancelled or finished prediction: Predict can be pressed again at once,
and the progress bar comes into view in a low window without the user scrolling."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QScrollArea

from guiapp.core.events import Progress
from guiapp.ui.steps.predict.predict_page import PredictPage
from tests.ui.helpers import session_with_table

SAFETY_S = 20.0


@pytest.fixture
def page(qtbot, project):
    table = project.table.copy()
    table.loc[:9, "label"] = None  # ten rows nobody has coded yet
    widget = PredictPage(session=session_with_table(table, project.spec.data.mapping))
    qtbot.addWidget(widget)
    widget.resize(1024, 560)  # a low window: the progress bar starts below the fold
    widget.show()
    widget.set_result(project.result, lambda model: project.model_folder(model.name))
    widget.source.own_button.click()
    yield widget
    widget.cancel_jobs()


def endless_prediction(folders, frame, columns, on_event, **_kwargs):
    """Reports progress until cancelled (Cancelled is raised by ``on_event``)."""
    started = time.monotonic()
    while time.monotonic() - started < SAFETY_S:
        on_event(Progress(0.3, "Predicting…"))
        time.sleep(0.01)
    raise AssertionError("never cancelled")


def shown_in(scroll: QScrollArea, widget) -> bool:
    viewport = scroll.viewport()
    rect = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
    return viewport.rect().contains(rect)


def test_predict_is_usable_again_after_cancel(qtbot, page, monkeypatch):
    monkeypatch.setattr("guiapp.core.explain.top_words.predict_table_with_words", endless_prediction)
    assert page.predict_button.isEnabled()
    qtbot.mouseClick(page.predict_button, Qt.MouseButton.LeftButton)
    assert not page.predict_button.isEnabled() and page.progress.isVisible()
    qtbot.waitUntil(lambda: page.progress.bar.maximum() == 1000)  # the job runs and reports
    qtbot.mouseClick(page.progress.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=10_000)
    qtbot.waitUntil(page.predict_button.isEnabled, timeout=5_000)
    assert not page.progress.isVisible()
    assert "texts from" in page.ready_label.text()  # what Predict would do, not a reason to wait

    monkeypatch.undo()  # the real prediction now: pressing Predict again works
    qtbot.mouseClick(page.predict_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.found is not None, timeout=30_000)
    qtbot.waitUntil(page.predict_button.isEnabled, timeout=10_000)  # and again after it finished
    assert "10 texts predicted" in page.summary.text()


def test_the_progress_bar_comes_into_view_in_a_low_window(qtbot, page, monkeypatch):
    monkeypatch.setattr("guiapp.core.explain.top_words.predict_table_with_words", endless_prediction)
    scroll = page.stack.currentWidget()
    assert isinstance(scroll, QScrollArea)
    scroll.verticalScrollBar().setValue(0)
    page.predict()
    qtbot.waitUntil(lambda: shown_in(scroll, page.progress.bar) and shown_in(scroll, page.progress.cancel_button))
    page.cancel_jobs()
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=10_000)
