"""Coding sheets on the Coding step, driven offscreen: "Export coding sheet…" asks for the coder and
the place and says how many texts went in; "Import coding sheet…" reads the filled-in sheet in the
background, records the codings, and says in words what came in and what was refused (never a
traceback); importing it twice adds nothing. The file dialogs are bypassed."""

from __future__ import annotations

import openpyxl
import pandas as pd
import pytest

from guiapp.core.coding.coding_sheet import CODING_SHEET
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.coding.coding_page import CodingPage
from guiapp.ui.steps.coding.coding_sheet_dialogs import ExportSheetDialog, ImportReportDialog
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, session_with_table

MAPPING = ColumnMapping(text_columns=["text"], category_column="label")


def table() -> pd.DataFrame:
    frame = coded_texts(40, seed=7)
    frame.loc[10:, "label"] = None  # 10 coded in the file, 30 to code
    return frame


@pytest.fixture
def page(qtbot, isolated_settings):
    widget = CodingPage(session=session_with_table(table(), MAPPING))
    qtbot.addWidget(widget)
    widget.resize(1280, 820)
    widget.show()
    widget.bar.coder_edit.setText("Ann")
    widget.session.dataChanged.emit()
    yield widget
    widget.cancel_jobs()


@pytest.fixture
def shown(page):
    """The report dialogs the step shows (not run modally)."""
    dialogs: list[ImportReportDialog] = []
    page.sheets.show_report = dialogs.append
    return dialogs


def export_for(qtbot, page, monkeypatch, path, coder="Bo", limit=6) -> ExportSheetDialog:
    opened: list[ExportSheetDialog] = []
    monkeypatch.setattr(ExportSheetDialog, "exec", lambda self: opened.append(self) or 0)
    page.sheets.ask_save = lambda _name: path
    page.bar.sheet_export_button.click()
    dialog = opened[0]
    qtbot.addWidget(dialog)
    dialog.coder_combo.setEditText(coder)
    dialog.limit_spin.setValue(limit)
    dialog.findChild(type(dialog.export_button), "chooseSheetPath").click()
    return dialog


def fill(path, categories: list) -> None:
    workbook = openpyxl.load_workbook(path)
    sheet = workbook[CODING_SHEET]
    column = next(cell.column for cell in sheet[1] if cell.value == "Category")
    for row, category in enumerate(categories, start=2):
        sheet.cell(row, column).value = category
    workbook.save(path)


def test_export_then_import_records_the_codings_and_twice_adds_nothing(qtbot, page, shown, monkeypatch, tmp_path):
    path = tmp_path / "bo.xlsx"
    dialog = export_for(qtbot, page, monkeypatch, path)
    assert dialog.path_edit.text() == str(path)
    assert "6 texts of the table for Bo, that no one has coded yet" in dialog.preview.text()
    dialog.resize(620, dialog.sizeHint().height())
    save_screenshot(dialog, "coding_sheet_export_dialog")
    said: list[str] = []
    page.sheets.exported.connect(said.append)
    dialog.export_button.click()
    assert path.is_file() and said and "6 texts" in said[0] and str(path) in said[0]
    assert page.bar.export_note.text() == said[0]

    names = page.session.codebook.names() or sorted(set(table()["label"].dropna()))
    fill(path, [names[0], names[1], names[0], names[0][:-1] + "x", "", names[1]])
    edits: list[int] = []
    page.session.codingsEdited.connect(lambda: edits.append(1))
    page.sheets.import_sheet(path)
    qtbot.waitUntil(lambda: bool(shown), timeout=10_000)
    words = shown[0].text()
    assert "Imported 4 new codings by Bo from bo.xlsx." in words
    assert "Did you mean" in words and "1 row could not be imported" in words
    assert "Traceback" not in words
    log = page.session.codings
    assert sum(entry.coder == "Bo" and entry.chosen_by == "coding sheet" for entry in log.entries) == 4
    assert log.team.coders == ["Ann", "Bo"] and edits  # the step's coder and the sheet's coder: a team, autosaved
    shown[0].resize(640, 380)
    save_screenshot(shown[0], "coding_sheet_import_report")

    page.sheets.import_sheet(path)
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=10_000)
    assert "Nothing new from bo.xlsx" in shown[1].text()
    assert sum(entry.coder == "Bo" for entry in log.entries) == 4


def test_a_sheet_refused_whole_is_said_in_words(qtbot, page, shown, tmp_path):
    wrong = tmp_path / "notes.xlsx"
    wrong.write_bytes(b"these are my notes, not a workbook")
    page.sheets.import_sheet(wrong)
    qtbot.waitUntil(lambda: bool(shown), timeout=10_000)
    words = shown[0].text()
    assert "it is not a workbook" in words and "Excel workbook (.xlsx)" in words
    assert len(page.session.codings) == 0


def test_no_texts_left_is_said_before_export(qtbot, page, monkeypatch, tmp_path):
    log = page.session.codings
    for row in range(10, 40):
        log.record(row, "x", coder="Ann", chosen_by="in order")
    dialog = export_for(qtbot, page, monkeypatch, tmp_path / "bo.xlsx")
    assert "no texts left for Bo" in dialog.preview.text()
    assert not dialog.export_button.isEnabled()


def test_the_dialog_offers_the_teams_coders_and_starts_with_the_active_one(qtbot, page):
    from guiapp.core.coding.team import Team

    page.session.codings.team = Team(["Ann", "Bo", "Cy"], active="Cy")
    dialog = ExportSheetDialog(page.session, parent=page, coder="Ann")
    qtbot.addWidget(dialog)
    assert [dialog.coder_combo.itemText(i) for i in range(dialog.coder_combo.count())] == ["Ann", "Bo", "Cy"]
    assert dialog.coder() == "Cy" and "for Cy" in dialog.preview.text()
    dialog.coder_combo.setEditText("Dee")  # a new coder: joins the team when the sheet comes back
    assert "for Dee" in dialog.preview.text()
