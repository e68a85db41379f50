"""The Run step's list of models is as tall on a second run as on the first: every row shows
without scrolling the list while the models run."""

from __future__ import annotations

import threading

from guiapp.workers import ErrorSink
from tests.ui.sample_results import sample_result, sample_spec
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
