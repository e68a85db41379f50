"""Files users really pick: each problem gives a DataError that says what is wrong and what to
do, or is read correctly."""

from __future__ import annotations

import builtins
import datetime as dt
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xlsxwriter

from guiapp.core.errors import DataError
from guiapp.core.events import Progress
from guiapp.core.tables.reader import read_table


def small_xlsx(path: Path, rows: list[list] | None = None) -> Path:
    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet("Texts")
    for r, row in enumerate(rows or [["id", "text"], [1, "hello"]]):
        sheet.write_row(r, 0, row)
    workbook.close()
    return path


def read_error(path: Path, **kwargs) -> DataError:
    with pytest.raises(DataError) as raised:
        read_table(path, **kwargs)
    error = raised.value
    assert error.message and error.hint, "every error says what is wrong and what to do"
    assert "Traceback" not in error.message and "Error(" not in error.message
    return error


def test_png_renamed_to_xlsx(tmp_path):
    path = tmp_path / "codes.xlsx"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(200))
    error = read_error(path)
    assert error.message == '"codes.xlsx" is a PNG image, not a spreadsheet.'
    assert "Choose the spreadsheet" in error.hint


@pytest.mark.parametrize("name", ["empty.csv", "empty.xlsx", "empty.parquet"])
def test_empty_file(tmp_path, name):
    path = tmp_path / name
    path.touch()
    error = read_error(path)
    assert error.message == f'"{name}" is empty (0 bytes).'
    assert "copy it again" in error.hint


def test_file_of_blank_lines(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text("\n \n\r\n")
    assert "contains no table" in read_error(path).message


def test_password_protected_workbook(fixtures_dir, tmp_path):
    # tests/fixtures/password_protected.xlsx: encrypted with msoffcrypto-tool (password "textlab")
    error = read_error(fixtures_dir / "password_protected.xlsx")
    assert "protected with a password" in error.message
    assert "remove the password" in error.hint
    assert "File → Info → Protect Workbook" in error.hint
    assert "save a copy" in error.hint


def test_sheet_with_only_a_header_says_there_are_no_rows_of_data(tmp_path):
    path = small_xlsx(tmp_path / "header.xlsx", [["id", "text", "category"]])
    assert "has a header row but no rows of data" in read_error(path).message
    csv = tmp_path / "header.csv"
    csv.write_text("id;text;category\r\n", encoding="utf-8")
    assert "has a header row but no rows of data" in read_error(csv).message


def test_cp1252_csv_with_umlauts(tmp_path):
    path = tmp_path / "umlaute.csv"
    text = (
        'id;name;text\n1;Müller;"Müller sagt: ""Grüße"""\n'
        "2;Öztürk;Straße kostet 5 € – ä ö ü ß\n"
    )
    path.write_bytes(text.encode("cp1252"))
    table = read_table(path)
    assert table.encoding == "cp1252" and table.delimiter == ";"
    assert table.frame.loc[0, "text"] == 'Müller sagt: "Grüße"'
    assert table.frame.loc[1, "text"] == "Straße kostet 5 € – ä ö ü ß"
    assert table.frame["name"].tolist() == ["Müller", "Öztürk"]


def test_semicolon_csv_with_decimal_commas(tmp_path):
    path = tmp_path / "german_excel.csv"
    path.write_text("id;text;score\n1;Ja, sicher;0,5\n2;Nein;1,25\n3;Vielleicht, ja;2\n",
                    encoding="utf-8")
    table = read_table(path)
    assert table.delimiter == ";"
    assert table.frame.to_dict("list") == {
        "id": ["1", "2", "3"], "text": ["Ja, sicher", "Nein", "Vielleicht, ja"],
        "score": ["0,5", "1,25", "2"],
    }


def test_duplicate_and_blank_column_names(tmp_path):
    path = tmp_path / "dupes.csv"
    path.write_text("text,code,text,,text,Column 4\na,1,b,c,d,e\n", encoding="utf-8")
    table = read_table(path)
    assert list(table.frame.columns) == [
        "text", "code", "text (2)", "Column 4 (2)", "text (3)", "Column 4"
    ]
    assert table.frame["text (2)"].tolist() == ["b"]
    assert table.notices == [
        'Column 4 has no name in the header row; it is shown as "Column 4 (2)".',
        'Three columns were all called "text"; they are shown as "text", "text (2)" and '
        '"text (3)".',
    ]
    two = tmp_path / "two.xlsx"
    small_xlsx(two, [["text", "label", "text"], ["a", "x", "b"]])
    table = read_table(two)
    assert list(table.frame.columns) == ["text", "label", "text (2)"]
    assert table.notices == [
        'Two columns were both called "text"; the second is shown as "text (2)".'
    ]


def test_cell_with_more_than_a_megabyte_of_text_csv(tmp_path):
    huge = "Grüße " * 250_000  # 1.75 MB in UTF-8
    path = tmp_path / "huge.csv"
    rows = "".join(f"{i},short {i}\n" for i in range(50_000))  # the big row after many blocks
    path.write_text(f'id,text\n0,"{huge}"\n{rows}99,"{huge}, again"\n', encoding="utf-8")
    frame = read_table(path).frame
    assert frame.loc[0, "text"] == huge
    assert frame["text"].iloc[-1] == huge + ", again"
    assert len(frame) == 50_002


def test_cell_with_more_than_a_megabyte_of_text_xlsx(tmp_path):
    # Excel itself stops at 32,767 characters per cell, but other programs write longer ones.
    small = small_xlsx(tmp_path / "small.xlsx", [["id", "text"], [1, "PLACEHOLDER"]])
    huge = "Grüße, " * 200_000 + "Ende"  # no edge spaces: <t> without xml:space drops them
    path = tmp_path / "huge.xlsx"
    with zipfile.ZipFile(small) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/sharedStrings.xml":
                data = data.replace(b"PLACEHOLDER", huge.encode("utf-8"))
            out.writestr(item, data)
    assert read_table(path).frame.loc[0, "text"] == huge


def test_dates_and_numbers_in_workbook_columns_stay_native(tmp_path):
    path = tmp_path / "mixed.xlsx"
    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet()
    date_format = workbook.add_format({"num_format": "dd.mm.yyyy"})
    sheet.write_row(0, 0, ["date", "number", "mixed"])
    sheet.write_datetime(1, 0, dt.datetime(2020, 1, 31), date_format)
    sheet.write_datetime(2, 0, dt.datetime(2021, 12, 1), date_format)
    sheet.write_number(1, 1, 3)
    sheet.write_number(2, 1, 2.75)
    sheet.write_datetime(1, 2, dt.datetime(2020, 2, 29), date_format)
    sheet.write_number(2, 2, 42)
    workbook.close()
    frame = read_table(path).frame
    assert pd.api.types.is_datetime64_dtype(frame["date"])
    assert frame["date"].tolist() == [pd.Timestamp("2020-01-31"), pd.Timestamp("2021-12-01")]
    assert frame["number"].dtype == np.float64 and frame["number"].tolist() == [3.0, 2.75]
    assert frame["mixed"].dtype == object
    assert frame["mixed"].tolist() == [dt.date(2020, 2, 29), 42.0]


def test_file_gone_before_reading(tmp_path):
    error = read_error(tmp_path / "moved away.xlsx")
    assert error.message == 'The file "moved away.xlsx" is no longer there.'
    assert "Choose the file again" in error.hint


@pytest.mark.parametrize("name", ["codes.csv", "codes.xlsx"])
def test_file_disappears_while_reading(tmp_path, name):
    path = tmp_path / name
    if name.endswith(".xlsx"):
        small_xlsx(path)
    else:
        path.write_text("id,text\n1,hello\n")

    def delete_file(event):
        if isinstance(event, Progress) and path.exists():
            path.unlink()

    error = read_error(path, on_event=delete_file)
    assert error.message == f'The file "{name}" is no longer there.'


@pytest.mark.parametrize("name", ["codes.csv", "codes.xlsx"])
def test_locked_file(tmp_path, monkeypatch, name):
    path = tmp_path / name
    if name.endswith(".xlsx"):
        small_xlsx(path)
    else:
        path.write_text("id,text\n1,hello\n")
    real_open = builtins.open

    def locked_open(file, *args, **kwargs):  # what Windows says while Excel has the file open
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", locked_open)
    error = read_error(path)
    assert error.message == (
        f'"{name}" is open in another program or you lack permission to read it.'
    )
    assert "Close it in Excel" in error.hint and "try again" in error.hint
    assert "Permission denied" in error.details


@pytest.mark.parametrize("name", ["report.docx", "paper.pdf", "notes", "data.xlsx.gz"])
def test_unsupported_extension_lists_supported_formats(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"%PDF-1.4 whatever")
    error = read_error(path)
    assert "cannot read" in error.message
    for listed in (".xlsx", ".xls", ".ods", ".csv", ".tsv", ".txt", ".parquet"):
        assert listed in error.hint


def test_directory_path(tmp_path):
    folder = tmp_path / "exports.csv"
    folder.mkdir()
    error = read_error(folder)
    assert error.message == '"exports.csv" is a folder, not a file.'


def test_corrupt_xlsx_random_zip_bytes(tmp_path):
    path = tmp_path / "broken.xlsx"
    path.write_bytes(b"PK\x03\x04" + os.urandom(5000))
    error = read_error(path)
    assert "damaged or incomplete" in error.message
    assert "download it again" in error.hint
    assert error.details  # the library's own words, for the details fold


def test_truncated_xlsx(tmp_path):
    rows = [["id", "text"]] + [[i, f"t{i}"] for i in range(500)]
    whole = small_xlsx(tmp_path / "whole.xlsx", rows)
    path = tmp_path / "half.xlsx"
    path.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    assert "damaged or incomplete" in read_error(path).message


def test_xlsx_with_broken_contents(tmp_path):
    path = tmp_path / "garbled.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<<< not xml")
    error = read_error(path)
    assert "damaged or incomplete" in error.message
    assert error.details


def test_word_document_renamed_to_xlsx(tmp_path):
    path = tmp_path / "codes.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    assert read_error(path).message == '"codes.xlsx" is a Word document, not a spreadsheet.'


def test_web_page_saved_as_xls(tmp_path):
    path = tmp_path / "export.xls"
    path.write_text("<html><body><table><tr><td>text</td></tr></table></body></html>")
    error = read_error(path)
    assert "web page (HTML)" in error.message and "Save As" in error.hint


def test_tab_separated_text_saved_as_xls_is_read_as_text(tmp_path):
    path = tmp_path / "export.xls"
    path.write_text("text\tcode\nHallo\t1\n", encoding="utf-8")
    table = read_table(path)
    assert table.frame.to_dict("list") == {"text": ["Hallo"], "code": ["1"]}
    assert "plain text, not a workbook" in table.notices[0]


def test_binary_garbage_named_csv(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"a,b\n" + bytes(range(256)) * 20)
    assert "does not hold text" in read_error(path).message


def test_one_text_per_line_txt(tmp_path):
    path = tmp_path / "texts.txt"
    path.write_text("text\nI like it, really.\nNo; never | ever\n\"Quoted\" start\n",
                    encoding="utf-8")
    table = read_table(path)
    assert table.delimiter is None
    assert table.frame.to_dict("list") == {
        "text": ["I like it, really.", "No; never | ever", '"Quoted" start']
    }
    headless = tmp_path / "sentences.txt"
    headless.write_text("The first sentence is a text, not a name.\nSecond one.\nThird.\n")
    table = read_table(headless)
    assert table.frame["Column 1"].tolist() == [
        "The first sentence is a text, not a name.", "Second one.", "Third."
    ]
    assert "looks like data" in table.notices[0]


def test_ragged_rows_name_the_line(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("id,text,label\n1,fine,a\n2,\"multi\nline\",b\n3,hello, world,c\n4,x,d\n")
    error = read_error(path)
    assert error.message == (
        'Line 5 of "ragged.csv" has 4 values separated by commas, but the first line has '
        "3 columns."
    )
    assert "quotation marks" in error.hint
    assert "3,hello, world,c" in error.details
    short = tmp_path / "short.csv"
    short.write_text("id;text;label\n1;fine;a\n2;cut\n")
    error = read_error(short)
    assert error.message.startswith('Line 3 of "short.csv" has 2 values')


def test_not_really_parquet(tmp_path):
    path = tmp_path / "snapshot.parquet"
    path.write_text("id,text\n1,a\n")
    assert "is not a Parquet file" in read_error(path).message


def test_plain_text_named_csv_gz(tmp_path):
    path = tmp_path / "data.csv.gz"
    path.write_text("id,text\n1,a\n")
    assert "gzip" in read_error(path).message


def test_workbook_named_csv_is_read_as_workbook(tmp_path):
    path = tmp_path / "really_excel.csv"
    shutil.copy(small_xlsx(tmp_path / "x.xlsx"), path)
    table = read_table(path)
    assert table.frame.to_dict("list") == {"id": [1], "text": ["hello"]}
    assert table.notices == [
        '"really_excel.csv" is a workbook, not a text file; it was read as a workbook.'
    ]


def test_excel_2003_xml_spreadsheet(tmp_path):
    path = tmp_path / "old.xls"
    path.write_text(
        '<?xml version="1.0"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet">'
        "<Worksheet/></Workbook>"
    )
    error = read_error(path)
    assert "XML Spreadsheet 2003" in error.message and "Save As" in error.hint


def test_list_sheets_explains_unreadable_workbooks(fixtures_dir, tmp_path):
    from guiapp.core.tables.reader import list_sheets

    with pytest.raises(DataError, match="protected with a password"):
        list_sheets(fixtures_dir / "password_protected.xlsx")
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(DataError, match="damaged or incomplete"):
        list_sheets(broken)
    with pytest.raises(DataError, match="no longer there"):
        list_sheets(tmp_path / "gone.xlsx")
