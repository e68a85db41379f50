"""Renders the main screens to PNG under screenshots/ (gitignored) so anyone can look at them."""

from __future__ import annotations

from tests.ui.helpers import save_screenshot, wait_for_report


def test_screenshots_of_the_data_step(qtbot, window, tmp_path):
    window.resize(1360, 900)
    save_screenshot(window, "01_welcome")

    window.open_example()
    report = wait_for_report(qtbot, window)
    assert report.n_rows == 4449
    page = window.data_page
    page.tabs.setCurrentIndex(0)
    qtbot.wait(100)
    save_screenshot(window, "02_example_health")

    page.tabs.setCurrentIndex(1)
    qtbot.wait(50)
    save_screenshot(window, "03_example_table")

    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    window.open_path(broken)
    qtbot.waitUntil(lambda: window.errors.last_dialog is not None and window.errors.last_dialog.isVisible(), timeout=15_000)
    save_screenshot(window.errors.last_dialog, "04_error_dialog")
    window.errors.last_dialog.close()
