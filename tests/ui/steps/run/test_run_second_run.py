"""The Run step's list of models is as tall on a second run as on the first, and after the window
gets smaller: every row shows without scrolling the list."""

from __future__ import annotations

import threading

from guiapp.workers import ErrorSink
from tests.ui.sample_results import FIVE_MODELS, sample_result, sample_spec
from tests.ui.test_run_page import finish, make_page, scripted_run


def run_and_measure(qtbot, page) -> tuple[int, int]:
    """Start a run that waits inside its first model; the list's height and its hidden part then."""
    gate = threading.Event()
    page.run_fn = scripted_run(sample_result(), gate=gate)
    page.start(sample_spec())
    qtbot.waitUntil(lambda: page.rows()[0].state() == "running")
    qtbot.wait(20)  # the layout passes that follow a start
    measured = page.model_list.height(), page.model_list.verticalScrollBar().maximum()
    gate.set()
    finish(qtbot, page)
    return measured


def test_the_model_list_keeps_its_height_on_a_second_run(qtbot):
    page = make_page(qtbot, ErrorSink(None), scripted_run(sample_result()))
    first_height, first_hidden = run_and_measure(qtbot, page)
    second_height, second_hidden = run_and_measure(qtbot, page)
    assert first_hidden == 0, "all five rows show during the first run"
    assert second_hidden == 0, "… and during the second"
    assert second_height == first_height


def test_the_model_list_keeps_its_rows_in_view_when_the_window_gets_smaller(qtbot):
    two = FIVE_MODELS[:2]
    page = make_page(qtbot, ErrorSink(None), scripted_run(sample_result(models=two)))
    page.resize(1400, 900)
    page.start(sample_spec(models=two))
    finish(qtbot, page)
    qtbot.wait(20)
    assert page.model_list.verticalScrollBar().maximum() == 0
    page.resize(1000, 560)  # e.g. the window made smaller, or a 1024 × 700 screen
    qtbot.wait(20)
    assert page.model_list.verticalScrollBar().maximum() == 0, "both models' rows still show whole"
    assert page.log_view.height() >= 4 * page.log_view.fontMetrics().lineSpacing()  # and a few lines of the log
