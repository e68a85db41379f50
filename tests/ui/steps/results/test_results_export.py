"""The Results step's Excel and methods-appendix buttons write real files in the background, ask
through the save dialog, and report failures to the error dialog instead of losing them."""

from __future__ import annotations

import pytest
from openpyxl import load_workbook
from PySide6.QtWidgets import QFileDialog

from guiapp.ui.steps.results.results_page import ResultsPage
from tests.ui.helpers import save_screenshot
from tests.ui.sample_results import sample_result


@pytest.fixture
def page(qtbot):
    view = ResultsPage()
    qtbot.addWidget(view)
    view.resize(1090, 760)
    view.show()
    return view


def test_buttons_wait_for_a_result(page, qtbot):
    assert not page.export.excel_button.isEnabled() and not page.export.appendix_button.isEnabled()
    page.show_result(sample_result())
    assert page.export.excel_button.isEnabled() and page.export.appendix_button.isEnabled()
    qtbot.wait(100)  # let the layout settle, as it does on screen, before the picture
    save_screenshot(page, "results_export")
    page.clear()
    assert not page.export.excel_button.isEnabled()


def test_excel_button_writes_the_workbook_chosen_in_the_dialog(page, qtbot, tmp_path, monkeypatch):
    page.show_result(sample_result())
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "my study"), ""))
    with qtbot.waitSignal(page.statusMessage, timeout=60_000) as said:
        page.export.excel_button.click()
    assert said.args[0].startswith("Saved my study.xlsx")
    book = load_workbook(tmp_path / "my study.xlsx", read_only=True)
    assert book.sheetnames == ["Model comparison", "Is the best really better", "Confusion matrices", "Test documents",
                               "Settings"]
    assert "my study.xlsx" in page.export.status_label.text()
    qtbot.waitUntil(page.export.excel_button.isEnabled, timeout=10_000)  # enabled again when the job is done


def test_appendix_button_writes_html_pdf_and_json(page, qtbot, tmp_path, monkeypatch):
    page.show_result(sample_result())
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "methods.html"), ""))
    with qtbot.waitSignal(page.statusMessage, timeout=60_000) as said:
        page.export.appendix_button.click()
    assert said.args[0].startswith("Saved methods.html, methods.pdf, methods.json")
    assert "Wankmüller" in (tmp_path / "methods.html").read_text(encoding="utf-8")
    assert (tmp_path / "methods.pdf").read_bytes()[:5] == b"%PDF-"
    assert (tmp_path / "methods.pdf").stat().st_size > 5_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["methods.html", "methods.json", "methods.pdf"]


def test_a_failed_export_reaches_the_error_dialog(page, qtbot, tmp_path):
    page.show_result(sample_result())
    (tmp_path / "notes.txt").write_text("not a folder")
    with qtbot.waitSignal(page.errorRaised, timeout=60_000) as raised:
        page.export.export_excel(tmp_path / "notes.txt" / "results.xlsx")  # a file where a folder should be
    error, doing = raised.args
    assert doing == "Exporting to Excel" and getattr(error, "message", "")  # a plain message, not a traceback
    qtbot.waitUntil(page.export.excel_button.isEnabled)
    assert page.export.status_label.text() == ""


def test_cancelled_dialog_writes_nothing(page, tmp_path, monkeypatch):
    page.show_result(sample_result())
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    page.export.excel_button.click()
    page.export.appendix_button.click()
    assert list(tmp_path.iterdir()) == [] and page.export.status_label.text() == ""
