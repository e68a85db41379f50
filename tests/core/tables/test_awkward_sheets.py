"""Awkward spreadsheets: title rows, a read-me sheet first, no data, uncalculated formulas,
JSON lines named .csv, NUL bytes; and many columns stay quick."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sys
import time
import zipfile
from pathlib import Path

import pytest
import xlsxwriter

from guiapp.core.errors import DataError
from guiapp.core.study.mapping import suggest_mapping
from guiapp.core.tables.empty_data import EmptyTableError
from guiapp.core.tables.reader import read_table

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from bench_many_columns import make_wide_csv  # noqa: E402

ROWS = [["text", "category", "id"]] + [[f"text number {i} is here", "ab"[i % 2], i] for i in range(6)]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_unchanged(path: Path, **kwargs):
    """read_table, checking that the user's file is never modified."""
    before = digest(path)
    try:
        return read_table(path, **kwargs)
    finally:
        assert digest(path) == before


def write_book(path: Path, sheets: dict[str, list[list]], merged_title: str | None = None) -> Path:
    workbook = xlsxwriter.Workbook(str(path))
    for name, rows in sheets.items():
        sheet = workbook.add_worksheet(name)
        start = 0
        if merged_title is not None and name == "Data":
            sheet.merge_range(0, 0, 0, 2, merged_title, workbook.add_format({"bold": True}))
            start = 2
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if value is not None:
                    sheet.write(start + r, c, value)
    workbook.close()
    return path


# --- title rows above the header --------------------------------------------------------------


def test_xlsx_title_row_above_the_header_is_skipped(tmp_path):
    path = write_book(tmp_path / "study.xlsx", {"Data": [["Study 2024"], ["Coded by A. and B."], []] + ROWS})
    table = read_unchanged(path)
    assert list(table.frame.columns) == ["text", "category", "id"]
    assert table.frame["id"].tolist() == list(range(6))
    assert table.notices == [
        "Skipped 3 rows above the header: “Study 2024”, “Coded by A. and B.”; row 4 is used as "
        "the column names."
    ]
    assert suggest_mapping(table.frame).text_columns == ["text"]


def test_a_column_name_that_is_also_one_of_its_values_still_makes_a_header(tmp_path):
    # the column "debate" holds "first", "second" … and "debate" (the last debate of a campaign)
    rows = [["2016 debates, coded by party"], ["id", "debate", "text", "party"]]
    rows += [[f"U{i}", ["first", "second", "debate"][i % 3], f"we will talk about jobs {i}", "Dem" if i % 2 else "Rep"]
             for i in range(12)]
    table = read_unchanged(write_book(tmp_path / "debates.xlsx", {"Data": rows}))
    assert list(table.frame.columns) == ["id", "debate", "text", "party"]
    assert table.notices[0].startswith("Skipped 1 row above the header")


def test_xlsx_merged_title_cell_is_skipped(tmp_path):
    path = write_book(tmp_path / "merged.xlsx", {"Data": ROWS}, merged_title="Study 2024")
    table = read_unchanged(path)
    assert list(table.frame.columns) == ["text", "category", "id"] and len(table.frame) == 6
    assert "“Study 2024”" in table.notices[0] and "row 3 is used" in table.notices[0]


def test_ods_title_row_is_skipped(tmp_path):
    from tests.core.tables.test_data_reading import write_ods

    path = write_ods(tmp_path / "study.ods", [["Study 2024"], ["text", "code"], ["Grüße an alle", 1], ["Hallo du", 2]])
    table = read_unchanged(path)
    assert table.frame.to_dict("list") == {"text": ["Grüße an alle", "Hallo du"], "code": [1, 2]}
    assert table.notices[0].startswith("Skipped 1 row above the header: “Study 2024”")


@pytest.mark.parametrize("title", ["Study 2024\n\n", "Study 2024,,\nExported 2024-05-01,,\n"])
def test_csv_title_lines_above_the_header_are_skipped(tmp_path, title):
    path = tmp_path / "study.csv"
    path.write_text(title + "text,category,id\n" + "".join(f"text number {i},{'ab'[i % 2]},{i}\n" for i in range(6)),
                    encoding="utf-8")
    table = read_unchanged(path)
    assert list(table.frame.columns) == ["text", "category", "id"]
    assert table.frame["id"].tolist() == [str(i) for i in range(6)]
    assert table.notices[0].startswith(f"Skipped {title.count(chr(10))} lines above the header: “Study 2024”")


def test_a_header_with_a_category_below_is_not_taken_for_a_title(tmp_path):
    # One filled cell in row 1, then rows whose values repeat: that is a table, not a title.
    path = tmp_path / "plain.csv"
    path.write_text("text\na,x\nb,x\nc,x\n", encoding="utf-8")
    table = read_unchanged(path)  # as before: one column of lines, nothing skipped
    assert list(table.frame.columns) == ["text"] and table.notices == []
    plain = write_book(tmp_path / "plain.xlsx", {"Data": ROWS})
    assert read_unchanged(plain).notices == []


# --- which sheet -------------------------------------------------------------------------------


def test_read_me_sheet_first_reads_the_data_sheet_with_a_notice(tmp_path):
    path = write_book(tmp_path / "book.xlsx", {
        "Read me": [["About this file"], ["Texts coded by two coders in 2024."], ["Contact: someone"]],
        "Data": ROWS,
        "Codes": [["a"], ["b"]],
    })
    table = read_unchanged(path)
    assert table.sheet == "Data" and len(table.frame) == 6
    assert table.notices == [
        "The first sheet “Read me” does not look like a table, so the sheet “Data” was read. "
        "The workbook's other sheets: “Read me”, “Codes”; choose one of them to read it instead."
    ]
    named = read_unchanged(path, sheet="Read me")  # a sheet the user names is read as it is
    assert named.sheet == "Read me" and list(named.frame.columns) == ["About this file"]
    assert named.notices == []


def test_the_biggest_table_wins_when_the_first_sheet_is_no_table(tmp_path):
    path = write_book(tmp_path / "book.xlsx", {
        "Notes": [["notes only"]], "Small": ROWS[:3], "Big": ROWS, "Also notes": [["x"]],
    })
    assert read_unchanged(path).sheet == "Big"


# --- no data -----------------------------------------------------------------------------------


def test_header_only_sheet_and_file_say_so(tmp_path):
    book = write_book(tmp_path / "header.xlsx", {"Data": [["text", "category"]]})
    with pytest.raises(EmptyTableError) as raised:
        read_unchanged(book)
    assert raised.value.reason == "no_rows"
    assert raised.value.message == 'The sheet "Data" in "header.xlsx" has a header row but no rows of data.'
    assert raised.value.hint
    csv = tmp_path / "header.csv"
    csv.write_text("text,category\n\n", encoding="utf-8")
    with pytest.raises(EmptyTableError, match="has a header row but no rows of data"):
        read_unchanged(csv)


def _without_cached_values(source: Path, target: Path) -> Path:
    """The .xlsx as written by a program that stores formulas but never calculates them."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            data = old.read(item.filename)
            if item.filename.startswith("xl/worksheets/"):
                data = re.sub(rb"(</f>)<v>[^<]*</v>", rb"\1", data)
                assert b"<v>" not in data.split(b"</row>", 1)[1]
            new.writestr(item, data)
    return target


def test_formulas_without_calculated_values_say_how_to_fix(tmp_path):
    source = tmp_path / "source.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    sheet = workbook.add_worksheet("Data")
    sheet.write_row(0, 0, ["text", "category"])
    for row in range(1, 5):
        sheet.write_formula(row, 0, '="text number "&ROW()&" here"')
        sheet.write_formula(row, 1, "=MOD(ROW(),2)")
    workbook.close()
    path = _without_cached_values(source, tmp_path / "formulas.xlsx")
    with pytest.raises(EmptyTableError) as raised:
        read_unchanged(path)
    assert raised.value.reason == "formulas"
    assert "formulas that were never calculated" in raised.value.message
    assert "save it, and load it again" in raised.value.hint
    assert read_table(source).frame["category"].tolist() == [0, 0, 0, 0]  # cached values: read


# --- JSON lines --------------------------------------------------------------------------------


RECORDS = [{"text": f"text number {i}", "category": "ab"[i % 2], "score": i / 2, "meta": {"coder": "A"}}
           for i in range(5)]


@pytest.mark.parametrize("name", ["export.csv", "export.jsonl", "export.ndjson", "export.jsonl.gz"])
def test_json_lines_are_read_as_a_table(tmp_path, name):
    path = tmp_path / name
    data = ("\n".join(json.dumps(r) for r in RECORDS) + "\n\n").encode("utf-8")
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    table = read_unchanged(path)
    assert list(table.frame.columns) == ["text", "category", "score", "meta"]
    assert table.frame["text"].tolist() == [r["text"] for r in RECORDS]
    assert table.frame["score"].tolist() == [r["score"] for r in RECORDS]
    assert table.frame["meta"].iloc[0] == '{"coder": "A"}'
    assert len(table.notices) == 1 and "JSON lines" in table.notices[0]
    assert suggest_mapping(table.frame).category_column == "category"


def test_a_broken_json_line_names_its_line(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(json.dumps(RECORDS[0]) + "\n" + json.dumps(RECORDS[1]) + "\n{broken\n", encoding="utf-8")
    with pytest.raises(DataError, match="Line 3 of"):
        read_unchanged(path)


# --- NUL bytes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("gzipped", [False, True])
def test_stray_nul_bytes_are_dropped_with_a_notice(tmp_path, gzipped):
    data = b"text,category\nhel\0lo there,a\nbye\0 now\0,b\n"
    path = tmp_path / ("nul.csv.gz" if gzipped else "nul.csv")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    table = read_unchanged(path)
    assert table.frame.to_dict("list") == {"text": ["hello there", "bye now"], "category": ["a", "b"]}
    assert table.notices[0].startswith("Removed 3 NUL characters")


def test_nul_bytes_after_the_sample_are_dropped_too(tmp_path):
    path = tmp_path / "late.csv"
    lines = [f"text number {i},{'ab'[i % 2]}\n" for i in range(40_000)]
    lines[-1] = "last\0 text,a\n"
    path.write_text("text,category\n" + "".join(lines), encoding="utf-8")
    table = read_unchanged(path)
    assert table.frame["text"].iloc[-1] == "last text"
    assert table.notices == ["Removed 1 NUL character (invisible “null” bytes, often left by a faulty export "
                             "or a crash while saving) from the file; check that the texts are complete."]


# --- many columns ------------------------------------------------------------------------------


def test_a_thousand_columns_are_guessed_quickly(tmp_path):
    table = read_table(make_wide_csv(tmp_path / "wide.csv", rows=200, columns=1000))
    started = time.perf_counter()
    mapping = suggest_mapping(table.frame)
    seconds = time.perf_counter() - started
    assert (mapping.text_columns, mapping.category_column, mapping.id_column) == (["text"], "label", "id")
    assert seconds < 4  # ~0.8 s here; it was ~5 s with pandas string calls per column
