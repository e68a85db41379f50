"""Coding sheets: written for one coder, filled in as a coder would (openpyxl stands in for Excel),
read back by key whatever the coder did to the rows."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import openpyxl
import pytest

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.coding_sheet import (
    ABOUT_SHEET,
    CODEBOOK_SHEET,
    CODING_SHEET,
    SheetText,
    sheet_text,
    text_hash,
    write_coding_sheet,
)
from guiapp.core.coding.coding_sheet_reading import SheetCoding, new_codings, read_coding_sheet
from guiapp.core.errors import UserError
from tests.core.coding.sheet_filling import fill_sheet

CATEGORIES = ["Health", "Economy", "Other"]
CODEBOOK = Codebook([CodebookCategory("Health", "Illness, doctors, hospitals.", ["The clinic closed."]),
                     CodebookCategory("Economy", "Jobs, prices, trade."), CodebookCategory("Other")])
TEXTS = {1: "The hospital hired nurses.", 2: "Prices rose again.\r\nSecond line.", "7": "=1+1 is not a formula",
         7: "A text keyed by a number.", 5: "Rain all week."}


def _write(path, texts=TEXTS, **options):
    settings = {"project_id": "project-1", "coder": "Ana", "texts": texts, "codebook": CODEBOOK,
                "categories": CATEGORIES, "written": datetime(2026, 1, 2, tzinfo=UTC)}
    settings.update(options)
    return write_coding_sheet(path, **settings)


def _read(path, texts=TEXTS, **options):
    settings = {"project_id": "project-1", "texts_by_key": texts, "categories": CATEGORIES}
    settings.update(options)
    return read_coding_sheet(path, **settings)


_fill = fill_sheet


FILLED = {1: ("Health", "sure"), 2: ("Economy", ""), "7": ("Other", "odd one"), 7: ("Health", "")}


def test_round_trip_reads_each_coding_by_its_key(tmp_path):
    path = _write(tmp_path / "ana.xlsx")
    _fill(path, FILLED)
    imported = _read(path, coder="Ana")
    assert set(imported.codings) == {SheetCoding(key, *value) for key, value in FILLED.items()}
    assert (imported.project_id, imported.coder, imported.written) == ("project-1", "Ana", "2026-01-02T00:00:00+00:00")
    assert (imported.rows, imported.not_coded, imported.left_out, imported.missing) == (5, 1, 0, 0)
    assert imported.problems == ()
    assert "4 codings by Ana; 1 text not coded yet" == imported.summary()


def test_the_sheet_shows_the_texts_the_codebook_and_hides_its_record(tmp_path):
    texts = [SheetText(1, "one", "row 2"), SheetText("b", "two")]
    path = _write(tmp_path / "s.xlsx", texts=texts, extra_columns={"Date": {1: "2024-05-01", "b": 3.5}})
    workbook = openpyxl.load_workbook(path)
    sheet = workbook[CODING_SHEET]
    assert [cell.value for cell in sheet[1]] == ["Key", "Row", "Text", "Date", "Category", "Comment"]
    assert [cell.value for cell in sheet[2]][:4] == ["n:1", "row 2", "one", "2024-05-01"]
    assert [cell.value for cell in sheet[3]][:4] == ["t:b", "b", "two", 3.5]
    assert sheet.column_dimensions["A"].hidden
    assert sheet.freeze_panes == "A2"
    codebook = workbook[CODEBOOK_SHEET]
    rows = [row for row in codebook.iter_rows(values_only=True)]
    assert ("Health", "Illness, doctors, hospitals.", "The clinic closed.") in rows
    assert codebook.protection.sheet
    about = workbook[ABOUT_SHEET]
    assert about.sheet_state == "hidden" and about.protection.sheet
    values = dict((a, b) for a, b in about.iter_rows(values_only=True) if a not in ("category",))
    assert values["project"] == "project-1" and values["coder"] == "Ana"
    assert values["n:1"] == text_hash("one") and values["format"] == "textlab-coding-sheet"


def test_openpyxl_sees_the_drop_down_and_the_protection(tmp_path):
    path = _write(tmp_path / "s.xlsx")
    sheet = openpyxl.load_workbook(path)[CODING_SHEET]
    (validation,) = sheet.data_validations.dataValidation
    assert validation.type == "list" and validation.formula1 == '"Health,Economy,Other"'
    assert str(validation.sqref) == "D2:D6"
    assert validation.showErrorMessage and "Choose one of the categories" in validation.error
    assert sheet.protection.sheet and not sheet.protection.sort  # protected; sorting stays allowed
    assert sheet["C2"].protection.locked and sheet["A2"].protection.locked
    assert not sheet["D2"].protection.locked and not sheet["E2"].protection.locked


def test_many_categories_use_the_codebook_sheet_as_the_list(tmp_path):
    names = [f"Category number {n}, long" for n in range(30)]
    codebook = Codebook([CodebookCategory(name) for name in names])
    path = _write(tmp_path / "s.xlsx", codebook=codebook, categories=names)
    workbook = openpyxl.load_workbook(path)
    (validation,) = workbook[CODING_SHEET].data_validations.dataValidation
    assert validation.formula1 == "'Codebook'!$A$4:$A$33"
    listed = [row[0].value for row in workbook[CODEBOOK_SHEET]["A4:A33"]]
    assert listed == names


def test_a_sheet_sorted_by_category_imports_the_same(tmp_path):
    path = _write(tmp_path / "s.xlsx")

    def sort_by_category(sheet, columns):
        rows = [[cell.value for cell in row] for row in sheet.iter_rows(min_row=2)]
        rows.sort(key=lambda row: (row[columns["Category"] - 1] or "", row[0]), reverse=True)
        for number, values in enumerate(rows, start=2):
            for column, value in enumerate(values, start=1):
                cell = sheet.cell(number, column)
                cell.value = value
                if isinstance(value, str) and value.startswith("="):
                    cell.data_type = "s"  # moved as a text, as Excel moves it, not made a formula

    _fill(path, FILLED, edit=sort_by_category)
    assert openpyxl.load_workbook(path)[CODING_SHEET]["A2"].value != "n:1"  # the order did change
    imported = _read(path)
    assert imported.problems == ()
    assert set(imported.codings) == {SheetCoding(key, *value) for key, value in FILLED.items()}


def test_a_deleted_row_leaves_the_others(tmp_path):
    path = _write(tmp_path / "s.xlsx")
    _fill(path, FILLED, edit=lambda sheet, columns: sheet.delete_rows(2))  # the text keyed 1
    imported = _read(path)
    assert {coding.key for coding in imported.codings} == {2, "7", 7}
    assert imported.missing == 1 and imported.problems == ()


def test_a_typo_is_refused_with_the_closest_category(tmp_path):
    path = _write(tmp_path / "s.xlsx")
    _fill(path, {**FILLED, 1: ("Healht", ""), 5: ("  economy ", "")})
    imported = _read(path)
    assert {coding.key: coding.category for coding in imported.codings} == {2: "Economy", "7": "Other",
                                                                            7: "Health", 5: "Economy"}
    (problem,) = imported.problems
    assert problem == "Row 2: “Healht” is not a category of the codebook. Did you mean “Health”?"
    assert imported.left_out == 1


def test_a_text_edited_in_the_sheet_or_in_the_project_is_refused(tmp_path):
    path = _write(tmp_path / "s.xlsx")
    _fill(path, FILLED, edit=lambda sheet, columns: setattr(sheet.cell(3, columns["Text"]), "value", "Prices fell."))
    imported = _read(path)
    assert 2 not in {coding.key for coding in imported.codings}
    assert imported.problems == ("The text in row 3 was changed in the sheet; the row was not imported. "
                                 "Texts must stay as TextLab wrote them.",)
    changed = {**TEXTS, 1: "The hospital fired nurses."}
    again = _read(path, texts=changed)
    assert {coding.key for coding in again.codings} == {"7", 7}
    assert any("row 2 has changed in the project" in problem for problem in again.problems)


def test_a_sheet_of_another_project_or_coder_is_refused(tmp_path):
    path = _write(tmp_path / "s.xlsx")
    _fill(path, FILLED)
    with pytest.raises(UserError, match="coding sheet of another project"):
        _read(path, project_id="project-2")
    with pytest.raises(UserError, match="it is Ana’s coding sheet, not Ben’s"):
        _read(path, coder="Ben")


def test_keys_given_twice_added_by_hand_or_not_in_the_project_are_listed(tmp_path):
    path = _write(tmp_path / "s.xlsx")

    def copy_rows(sheet, columns):
        first = [cell.value for cell in sheet[2]]
        second = [cell.value for cell in sheet[3]]
        sheet.append(first[:columns["Category"] - 1] + ["Economy", ""])  # the text keyed 1, coded otherwise
        sheet.append(second)  # the text keyed 2, copied as it was
        sheet.append([None, "99", "A text the coder typed in", "Health"])

    _fill(path, FILLED, edit=copy_rows)
    imported = _read(path, texts={key: text for key, text in TEXTS.items() if key != 7})
    assert set(imported.codings) == {SheetCoding(2, "Economy", ""), SheetCoding("7", "Other", "odd one")}
    assert imported.problems == (
        "Row 5 holds a text the project no longer has; it was not imported.",
        "Row 9 was added by hand: it has no key, so TextLab cannot tell which text it is.",
        "Rows 2, 7 hold the same text with different codings; none of them was imported. Keep one of the rows "
        "and import the sheet again.")


def test_importing_twice_changes_nothing(tmp_path):
    path = _write(tmp_path / "s.xlsx")
    _fill(path, FILLED)
    first, second = _read(path), _read(path)
    assert first == second
    existing = {coding.key: (coding.category, coding.comment) for coding in first.codings}
    assert new_codings(second, existing) == ()
    existing[2] = ("Health", "")
    existing.pop(7)
    assert new_codings(second, existing) == (SheetCoding(2, "Economy", ""), SheetCoding(7, "Health", ""))


def test_reading_leaves_the_file_as_it_was(tmp_path):
    path = _write(tmp_path / "s.xlsx")
    _fill(path, FILLED)
    before, stat = hashlib.sha256(path.read_bytes()).hexdigest(), path.stat()
    _read(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert path.stat().st_mtime_ns == stat.st_mtime_ns


def test_an_empty_sheet_or_a_file_that_is_no_coding_sheet_is_refused(tmp_path):
    path = _write(tmp_path / "s.xlsx")
    with pytest.raises(UserError, match="no category is filled in yet"):
        _read(path)
    text = tmp_path / "notes.xlsx"
    text.write_text("key,category\n1,Health\n")
    with pytest.raises(UserError, match="it is not a workbook"):
        _read(text)
    damaged = tmp_path / "damaged.xlsx"
    damaged.write_bytes(path.read_bytes()[:400])
    with pytest.raises(UserError, match="damaged"):
        _read(damaged)
    other = tmp_path / "other.xlsx"
    workbook = openpyxl.Workbook()
    workbook.active.append(["Key", "Text", "Category"])
    workbook.save(other)
    with pytest.raises(UserError, match="not a coding sheet written by TextLab"):
        _read(other)
    emptied = _write(tmp_path / "emptied.xlsx")
    _fill(emptied, {}, edit=lambda sheet, columns: sheet.delete_rows(2, 10))
    with pytest.raises(UserError, match="the sheet holds no texts"):
        _read(emptied)


def test_numbers_typed_as_categories_and_long_texts(tmp_path):
    long_text = "word " * 8000  # longer than a cell holds
    texts = {1: long_text, 2: "short\x07text"}
    path = _write(tmp_path / "s.xlsx", texts=texts, codebook=Codebook(), categories=["1", "2"])
    _fill(path, {1: (1, None), 2: ("2", "")})
    imported = _read(path, texts=texts, categories=["1", "2"])
    assert set(imported.codings) == {SheetCoding(1, "1", ""), SheetCoding(2, "2", "")}
    assert len(sheet_text(long_text)) == 32_767 and sheet_text(long_text).endswith("…")
    assert sheet_text("a\r\nb\x00c") == "a\nbc"


def test_the_writer_refuses_what_a_sheet_cannot_hold(tmp_path):
    with pytest.raises(UserError, match="cannot be called “Category”"):
        _write(tmp_path / "a.xlsx", extra_columns={"Category": {}})
    with pytest.raises(UserError, match="no texts for Ana"):
        _write(tmp_path / "b.xlsx", texts={})
    with pytest.raises(UserError, match="listed twice"):
        _write(tmp_path / "c.xlsx", categories=["Health", "Health"])
    with pytest.raises(UserError, match="needs the coder"):
        _write(tmp_path / "d.xlsx", coder=" ")
    assert not list(tmp_path.iterdir())


def test_a_column_the_coder_inserted_and_a_category_dropped_since(tmp_path):
    texts = {" a ": "spaces around the key", 1: "one"}
    path = _write(tmp_path / "s.xlsx", texts=texts)

    def insert_column(sheet, columns):
        sheet.protection.sheet = False  # as a coder who removed the protection would
        sheet.insert_cols(2)
        sheet.cell(1, 2).value = "My notes"

    _fill(path, {" a ": ("Other", "x"), 1: ("Economy", "")}, edit=insert_column)
    assert openpyxl.load_workbook(path)[CODING_SHEET]["E1"].value == "Category"  # the columns moved
    imported = _read(path, texts=texts, categories=["Health", "Economy"])
    assert imported.codings == (SheetCoding(1, "Economy", ""),)
    assert any("“Other” was a category when the sheet was written but is no longer one" in problem
               for problem in imported.problems)
    assert _read(path, texts=texts).codings[0].key == " a "


def test_a_file_too_large_or_unpacking_to_too_much_is_refused(tmp_path, monkeypatch):
    from guiapp.core.coding import coding_sheet_reading

    path = _write(tmp_path / "s.xlsx")
    _fill(path, FILLED)
    monkeypatch.setattr(coding_sheet_reading, "MAX_UNPACKED_BYTES", 2_000)
    with pytest.raises(UserError, match="unpacks to more than"):
        _read(path)
    monkeypatch.setattr(coding_sheet_reading, "MAX_FILE_BYTES", 1_000)
    with pytest.raises(UserError, match="larger than"):
        _read(path)
