"""Bad input in the real window: a readable message, no traceback, and the app stays usable."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.ui.helpers import wait_for_report

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from _common import make_csv


def _wait_for_error(qtbot, window):
    qtbot.waitUntil(lambda: window.errors.last_dialog is not None and window.errors.last_dialog.isVisible(), timeout=15_000)
    return window.errors.last_dialog


def test_png_renamed_xlsx_gives_message_and_app_stays_usable(qtbot, window, tmp_path):
    fake = tmp_path / "results.xlsx"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 200)
    window.open_path(fake)
    dialog = _wait_for_error(qtbot, window)
    assert "PNG" in dialog.text()
    assert "Traceback" not in dialog.text() + dialog.informativeText()
    assert dialog.informativeText()  # says what to do
    dialog.close()
    page = window.data_page
    assert page.stack.currentWidget() is page.welcome
    window.open_example()
    assert wait_for_report(qtbot, window).n_rows == 4449


def test_failed_open_keeps_the_current_table(qtbot, window, tmp_path):
    window.open_example()
    wait_for_report(qtbot, window)
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    window.open_path(empty)
    dialog = _wait_for_error(qtbot, window)
    assert "empty" in dialog.text().lower()
    dialog.close()
    page = window.data_page
    assert page.stack.currentWidget() is page.workspace
    assert page.table.path.name == "us_congress_bills.xlsx"
    assert page.table_view.model().rowCount() == 4449


def test_missing_file_is_explained(qtbot, window, tmp_path):
    window.open_path(tmp_path / "gone.csv")
    dialog = _wait_for_error(qtbot, window)
    assert "gone.csv" in dialog.text() + dialog.informativeText()
    dialog.close()


def test_single_category_is_reported_not_crashed(qtbot, window, tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("text,label\n" + "\n".join(f"some text {i},yes" for i in range(20)), encoding="utf-8")
    window.open_path(path)
    report = wait_for_report(qtbot, window)
    assert report.verdict == "not_ready"
    assert window.errors.history == []


@pytest.mark.slow
def test_million_rows_load_shows_progress_and_cancels(qtbot, window, tmp_path):
    path = make_csv(tmp_path / "big.csv", 1_000_000)
    page = window.data_page
    progress = page.load_progress
    seen = []

    def first_progress(event):
        # Click Cancel as soon as the first progress report reaches the window, as a user would.
        seen.append(event)
        if len(seen) == 1:
            qtbot.mouseClick(progress.cancel_button, Qt.MouseButton.LeftButton)

    window.open_path(path)
    assert page.stack.currentWidget() is page.loading
    page._load_slot.current.signals.progress.connect(first_progress)
    qtbot.waitUntil(lambda: bool(seen), timeout=30_000)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30_000)  # cancel takes effect at once (generous for busy machines)
    # the thread can end a moment before its "cancelled" reaches the window: wait for that too
    qtbot.waitUntil(lambda: page.stack.currentWidget() is not page.loading, timeout=10_000)
    assert page.stack.currentWidget() is page.welcome
    assert page.table is None
    assert window.errors.history == []


def test_password_protected_workbook_says_how_to_fix(qtbot, window, fixtures_dir):
    window.open_path(fixtures_dir / "password_protected.xlsx")
    dialog = _wait_for_error(qtbot, window)
    assert "password" in dialog.text().lower()
    assert "save" in dialog.informativeText().lower()
    dialog.close()
    assert window.data_page.stack.currentWidget() is window.data_page.welcome


def test_opening_a_second_file_while_the_first_loads_shows_the_second(qtbot, window, tmp_path):
    first = make_csv(tmp_path / "first.csv", 300_000)
    second = tmp_path / "second.csv"
    second.write_text("text,label\n" + "\n".join(f"text {i},{'a' if i % 2 else 'b'}" for i in range(50)), encoding="utf-8")
    window.open_path(first)
    window.open_path(second)  # replaces the first job, which is cancelled
    report = wait_for_report(qtbot, window)
    page = window.data_page
    assert page.table.path == second
    assert report.n_rows == 50
    assert page.stack.currentWidget() is page.workspace
    assert window.errors.history == []
