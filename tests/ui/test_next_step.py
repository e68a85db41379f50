"""Every step has a "Next" button: it goes to the next step, is enabled only when that step can be
shown (and says why not otherwise), and is gone on the last step."""

from __future__ import annotations

from PySide6.QtCore import Qt

from guiapp.ui.main_window import (
    CODING_STEP,
    DATA_STEP,
    DOCUMENTS_STEP,
    FINDINGS_STEP,
    MODELS_STEP,
    PREDICT_STEP,
    RESULTS_STEP,
    RUN_STEP,
)
from tests.ui.helpers import wait_for_report
from tests.ui.sample_results import sample_result
from tests.ui.test_run_page import scripted_run


def test_next_is_greyed_until_the_next_step_is_ready_and_then_moves_on(qtbot, window):
    button = window.next_button
    assert button.isVisible() and button.text() == "Next: Coding →"
    assert not button.isEnabled()  # no table yet
    assert button.toolTip().startswith("Not available yet:")

    window.open_example()
    wait_for_report(qtbot, window)
    qtbot.waitUntil(button.isEnabled)
    assert "Code more texts" in button.toolTip()  # what the next step is for
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.steps.currentRow() == CODING_STEP
    assert button.text() == "Next: Models →" and "models to compare" in button.toolTip()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.steps.currentRow() == MODELS_STEP
    assert button.text() == "Next: Run →" and not button.isEnabled()  # Run starts from the Models step
    assert "Run button" in button.toolTip()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # a greyed button does nothing
    assert window.steps.currentRow() == MODELS_STEP

    window.run_page.run_fn = scripted_run(sample_result())
    window.models_page.run_button.click()
    qtbot.waitUntil(lambda: window.steps.currentRow() == RESULTS_STEP, timeout=60_000)
    qtbot.waitUntil(lambda: not window.run_page.is_busy())
    for step, after in ((DATA_STEP, CODING_STEP), (CODING_STEP, MODELS_STEP), (RUN_STEP, RESULTS_STEP), (RESULTS_STEP, DOCUMENTS_STEP)):
        window.steps.setCurrentRow(step)
        assert button.isEnabled(), button.toolTip()
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert window.steps.currentRow() == after
        assert window.pages.currentIndex() == after  # the page shown follows

    window.steps.setCurrentRow(DOCUMENTS_STEP)
    assert button.text() == "Next: Predict →"
    window.go_to_step(PREDICT_STEP)
    assert button.text() == "Next: Findings →" and button.isEnabled()  # the table's own codings can be measured
    window.go_to_step(FINDINGS_STEP)
    assert not button.isVisible()  # the last step
