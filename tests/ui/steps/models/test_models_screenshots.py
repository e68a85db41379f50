"""Renders the Models step and its Advanced dialog to PNG under screenshots/ (gitignored)."""

from __future__ import annotations

from guiapp.ui.main_window import MODELS_STEP
from tests.ui.helpers import save_screenshot, wait_for_report


def test_screenshots_of_the_models_step(qtbot, window):
    window.resize(1360, 900)
    window.open_example()
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))
    window.steps.setCurrentRow(MODELS_STEP)
    qtbot.wait(50)
    save_screenshot(window, "10_models_step")

    page = window.models_page
    dialog = page.open_advanced()
    qtbot.waitUntil(dialog.isVisible)
    for index, name in enumerate(("11_advanced_test_tuning", "12_advanced_preparing_texts", "13_advanced_settings_to_try")):
        dialog.tabs.setCurrentIndex(index)
        qtbot.wait(30)
        save_screenshot(dialog, name)

    # A wrong value: explained in red next to the field, OK disabled.
    dialog.grids_tab.boxes["svm"].fields["C"].edit.setText("0.1, -1")
    qtbot.wait(30)
    save_screenshot(dialog, "14_advanced_grid_error")
    dialog.reject()

    page.choice.none_button.click()
    qtbot.wait(30)
    save_screenshot(window, "15_models_nothing_ticked")

    page.choice.default_button.click()
    window.resize(960, 640)  # a small laptop screen: the page scrolls, the Run button stays in view
    qtbot.wait(50)
    save_screenshot(window, "16_models_small_window")
