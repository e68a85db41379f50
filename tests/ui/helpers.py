"""Helpers for tests that drive the real main window."""

from __future__ import annotations

from pathlib import Path


def wait_for_report(qtbot, window, timeout=60_000):
    """Wait until the Data page shows a health report for the current table."""
    page = window.data_page
    qtbot.waitUntil(lambda: page.report is not None and not page.is_busy(), timeout=timeout)
    return page.report


def finish_scripted_run(qtbot, window, result):
    """Open the example, run ``result`` through a scripted (quick) run from the Models step, and
    wait until the Results step shows it."""
    from guiapp.ui.main_window import MODELS_STEP, RESULTS_STEP
    from tests.ui.test_run_page import scripted_run

    window.open_example()
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))
    window.run_page.run_fn = scripted_run(result)
    window.steps.setCurrentRow(MODELS_STEP)
    window.models_page.run_button.click()
    qtbot.waitUntil(lambda: window.steps.currentRow() == RESULTS_STEP, timeout=60_000)
    qtbot.waitUntil(lambda: not window.run_page.is_busy())
    return window


def settle_chart(chart) -> None:
    """Finish, synchronously and whatever the machine's speed, what Qt and pyqtgraph defer after a
    chart is resized: the pending layout pass, then a paint (just before painting, pyqtgraph moves
    the items inside the plot to the new view). Waiting a few milliseconds instead is flaky on a
    busy machine."""
    from PySide6.QtWidgets import QApplication

    QApplication.sendPostedEvents()
    chart.getPlotItem().layout.activate()
    chart.grab()


SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"


def save_screenshot(widget, name: str) -> Path:
    """Render ``widget`` to screenshots/NAME.png (gitignored) and check it is a real picture."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    assert widget.grab().save(str(path)), f"could not write {path}"
    assert path.stat().st_size > 10_000  # a real picture, not an empty one
    return path


def session_with_table(table, mapping):
    """A study session holding ``table`` with its column roles, as the Data step leaves it."""
    from guiapp.ui.session.study_session import StudySession

    session = StudySession()
    session.set_data(frame=table, mapping=mapping)
    return session
