"""Reading tables: formats, encodings, delimiters, native cell types, names, progress, cancel."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xlsxwriter

from guiapp.core.errors import DataError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.tables.reader import file_sha256, list_sheets, read_table


def write_xlsx(path: Path, sheets: dict[str, list[list]], hidden: tuple[str, ...] = ()) -> Path:
    workbook = xlsxwriter.Workbook(str(path))
    date_format = workbook.add_format({"num_format": "yyyy-mm-dd"})
    for name, rows in sheets.items():
        sheet = workbook.add_worksheet(name)
        if name in hidden:
            sheet.hide()
        elif hidden and not any(s.name not in hidden for s in workbook.worksheets()[:-1]):
            sheet.activate()  # Excel cannot hide the active sheet
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if value is None:
                    continue
                if isinstance(value, dt.date):
                    sheet.write_datetime(r, c, value, date_format)
                else:
                    sheet.write(r, c, value)
    workbook.close()
    return path


def write_ods(path: Path, rows: list[list]) -> Path:
    """A minimal OpenDocument spreadsheet (what LibreOffice writes, without styles)."""
    cells_xml = []
    for row in rows:
        cells = []
        for value in row:
            if isinstance(value, str):
                cells.append(f'<table:table-cell office:value-type="string"><text:p>{value}'
                             "</text:p></table:table-cell>")
            else:
                cells.append(f'<table:table-cell office:value-type="float" '
                             f'office:value="{value}"><text:p>{value}</text:p></table:table-cell>')
        cells_xml.append("<table:table-row>" + "".join(cells) + "</table:table-row>")
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        ' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
        ' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        '<office:body><office:spreadsheet><table:table table:name="Codes">'
        + "".join(cells_xml)
        + "</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<manifest:file-entry manifest:full-path="/" '
        'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet",
                         compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", manifest)
        archive.writestr("content.xml", content)
    return path


# --- delimited text ---------------------------------------------------------------------------


def test_csv_cells_are_strings_and_only_empty_cells_are_missing(tmp_path):
    path = tmp_path / "codes.csv"
    path.write_text('id,text,code\n1,NA,null\n2,"",None\n3,  ,0\n', encoding="utf-8")
    table = read_table(path)
    frame = table.frame
    assert list(frame.columns) == ["id", "text", "code"]
    assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0
    assert frame["id"].tolist() == ["1", "2", "3"]
    assert frame.loc[0, "text"] == "NA" and frame.loc[0, "code"] == "null"
    assert frame.loc[1, "code"] == "None"
    assert pd.isna(frame.loc[1, "text"])  # the only missing cell: empty
    assert frame.loc[2, "text"] == "  "
    assert table.file_format == "csv" and table.delimiter == "," and table.encoding == "utf-8"
    assert table.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert table.notices == []


@pytest.mark.parametrize(
    ("encoding", "bom", "expected"),
    [
        ("utf-8", b"\xef\xbb\xbf", "utf-8-sig"),
        ("utf-16-le", b"\xff\xfe", "utf-16"),
        ("utf-16-be", b"\xfe\xff", "utf-16"),
        ("utf-16-le", b"", "utf-16-le"),
        ("utf-16-be", b"", "utf-16-be"),
    ],
)
def test_unicode_encodings_with_and_without_bom(tmp_path, encoding, bom, expected):
    text = 'Name;Text\nJürgen;"Grüße, 😀"\nZoë;€ 5\n'
    path = tmp_path / "unicode.csv"
    path.write_bytes(bom + text.encode(encoding))
    table = read_table(path)
    assert table.encoding == expected
    assert list(table.frame.columns) == ["Name", "Text"]  # no BOM left in the first name
    assert table.frame["Text"].tolist() == ["Grüße, 😀", "€ 5"]
    assert table.frame["Name"].tolist() == ["Jürgen", "Zoë"]


def test_utf8_guess_that_fails_later_is_retried_with_cp1252(tmp_path):
    lines = ["id,text"] + [f"{i},plain ascii text number {i}" for i in range(30_000)]
    lines.append("30000,Grüße aus Köln")
    path = tmp_path / "late_umlauts.csv"
    path.write_bytes(("\n".join(lines) + "\n").encode("cp1252"))
    assert path.stat().st_size > 300_000  # beyond the sample used for guessing
    table = read_table(path)
    assert table.encoding == "cp1252"
    assert table.frame["text"].iloc[-1] == "Grüße aus Köln"
    assert len(table.frame) == 30_001
    assert any("Windows-1252" in notice for notice in table.notices)


@pytest.mark.parametrize(
    ("name", "delimiter"),
    [("data.csv", ","), ("data.csv", ";"), ("data.tsv", "\t"), ("data.txt", "|"),
     ("data.tab", "\t"), ("data.txt", "\t")],
)
def test_delimiters_are_sniffed(tmp_path, name, delimiter):
    d = delimiter
    rows = [["id", "text", "label"], ["1", "Hello, world; fine | ok", "A"], ["2", "Bye", "B"]]
    body = "\n".join(d.join(f'"{cell}"' if any(x in cell for x in ",;|\t") else cell
                            for cell in row) for row in rows)
    path = tmp_path / name
    path.write_text(body + "\n", encoding="utf-8")
    table = read_table(path)
    assert table.delimiter == delimiter
    assert table.frame.to_dict("list") == {
        "id": ["1", "2"], "text": ["Hello, world; fine | ok", "Bye"], "label": ["A", "B"]
    }


def test_quoted_fields_with_newlines_delimiters_and_quotes(tmp_path):
    path = tmp_path / "quoted.csv"
    path.write_bytes(
        b'id,text\r\n1,"first line\r\nsecond line, with comma"\r\n2,"She said ""hi"""\r\n'
        b'3,"a\nb\nc"\r\n'
    )
    frame = read_table(path).frame
    assert frame["text"].tolist() == [
        "first line\r\nsecond line, with comma", 'She said "hi"', "a\nb\nc"
    ]
    assert frame["id"].tolist() == ["1", "2", "3"]


def test_gzip_compressed_csv(tmp_path):
    path = tmp_path / "codes.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("ID;text;major\n1;To suspend the duty;18\n2;Health care;3\n")
    table = read_table(path)
    assert table.file_format == "csv" and table.delimiter == ";"
    assert table.frame.to_dict("list") == {
        "ID": ["1", "2"], "text": ["To suspend the duty", "Health care"], "major": ["18", "3"]
    }
    assert table.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_headerless_tab_file_like_germeval(tmp_path):
    path = tmp_path / "train.txt"
    lines = [
        "@user Liebe Corinna, wir würden dich gerne gewinnen!\tOTHER\tOTHER",
        "@user Das ist eine Beleidigung\tOFFENSE\tINSULT",
        "@user Noch ein Tweet\tOTHER\tOTHER",
        "@user Und noch einer\tOFFENSE\tABUSE",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = read_table(path)
    assert list(table.frame.columns) == ["Column 1", "Column 2", "Column 3"]
    assert len(table.frame) == 4  # the first line is data, not names
    assert table.frame.iloc[0, 0] == "@user Liebe Corinna, wir würden dich gerne gewinnen!"
    assert table.frame["Column 2"].tolist() == ["OTHER", "OFFENSE", "OTHER", "OFFENSE"]
    assert "looks like data" in table.notices[0]


def test_lines_of_spaces_are_skipped_like_blank_lines(tmp_path):
    path = tmp_path / "spaces.csv"
    path.write_text("id,text\n1,a\n   \n\n2,b\n \t \n", encoding="utf-8")
    assert read_table(path).frame.to_dict("list") == {"id": ["1", "2"], "text": ["a", "b"]}


def test_trailing_empty_rows_and_unnamed_columns_are_dropped_from_csv(tmp_path):
    path = tmp_path / "excel_export.csv"
    path.write_text("id;text;;\n1;a;;\n2;;;\n;;;\n;;;\n", encoding="utf-8")
    frame = read_table(path).frame
    assert list(frame.columns) == ["id", "text"]
    assert frame["id"].tolist() == ["1", "2"]
    assert pd.isna(frame.loc[1, "text"])


# --- workbooks -------------------------------------------------------------------------------


def test_xlsx_keeps_native_types_and_cached_formula_values(tmp_path):
    path = tmp_path / "codes.xlsx"
    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet("Coding")
    sheet.write_row(0, 0, ["id", "text", "score", "coded on", "checked", "double"])
    sheet.write_row(1, 0, [1, "Müller sagt: \"Grüße\"", 0.5])
    day = workbook.add_format({"num_format": "d.m.yyyy"})
    minute = workbook.add_format({"num_format": "d.m.yyyy hh:mm"})
    sheet.write_datetime(1, 3, dt.datetime(2021, 3, 4), day)
    sheet.write_boolean(1, 4, True)
    sheet.write_formula(1, 5, "=A2*2", None, 2)
    sheet.write_row(2, 0, [2, "NA", None])
    sheet.write_datetime(2, 3, dt.datetime(2021, 3, 5, 14, 30), minute)
    sheet.write_boolean(2, 4, False)
    sheet.write_formula(2, 5, "=A3*2", None, 4)
    workbook.close()
    table = read_table(path)
    frame = table.frame
    assert table.file_format == "xlsx" and table.sheet == "Coding" and table.sheets == ["Coding"]
    assert frame["id"].dtype == np.int64 and frame["id"].tolist() == [1, 2]
    assert frame["text"].tolist() == ['Müller sagt: "Grüße"', "NA"]  # "NA" stays text
    assert frame["score"].dtype == np.float64
    assert frame.loc[0, "score"] == 0.5 and np.isnan(frame.loc[1, "score"])
    assert pd.api.types.is_datetime64_dtype(frame["coded on"])
    assert frame["coded on"].tolist() == [
        pd.Timestamp("2021-03-04"), pd.Timestamp("2021-03-05 14:30")
    ]
    assert frame["checked"].dtype == bool and frame["checked"].tolist() == [True, False]
    assert frame["double"].tolist() == [2, 4]  # cached formula results
    assert isinstance(frame.index, pd.RangeIndex)


def test_first_visible_sheet_by_default_and_others_by_name(tmp_path):
    path = write_xlsx(
        tmp_path / "book.xlsx",
        {"Notes": [["hidden note"]], "Data": [["text", "code"], ["a", 1]],
         "More": [["text"], ["b"], ["c"]]},
        hidden=("Notes",),
    )
    assert list_sheets(path) == ["Notes", "Data", "More"]
    first = read_table(path)
    assert first.sheet == "Data" and first.frame.to_dict("list") == {"text": ["a"], "code": [1]}
    assert first.sheets == ["Notes", "Data", "More"]
    more = read_table(path, sheet="More")
    assert more.sheet == "More" and more.frame["text"].tolist() == ["b", "c"]


def test_unknown_sheet_lists_the_sheets(tmp_path):
    path = write_xlsx(tmp_path / "book.xlsx", {"Data": [["a"], [1]], "Codes": [["b"], [2]]})
    with pytest.raises(DataError) as raised:
        read_table(path, sheet="Daten")
    assert '"Daten"' in raised.value.message
    assert '"Data", "Codes"' in raised.value.hint


def test_numeric_and_date_header_cells_become_names(tmp_path):
    path = write_xlsx(tmp_path / "years.xlsx",
                      {"S": [["text", 2019, dt.date(2020, 5, 1)], ["x", 1, 2]]})
    assert list(read_table(path).frame.columns) == ["text", "2019", "2020-05-01"]


def test_table_starting_below_empty_rows_and_trailing_blank_area(tmp_path):
    path = tmp_path / "offset.xlsx"
    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet()
    sheet.write_row(2, 1, ["text", "code"])
    sheet.write_row(3, 1, ["a", "x"])
    sheet.write_row(4, 1, ["b", "y"])
    fmt = workbook.add_format({"bold": True})
    sheet.write_blank(9, 6, None, fmt)  # formatted but empty cells far away
    sheet.write_string(8, 4, "")
    workbook.close()
    table = read_table(path)
    assert table.frame.to_dict("list") == {"text": ["a", "b"], "code": ["x", "y"]}
    assert any("row 3 is used as the column names" in n for n in table.notices)


def test_ods_workbook(tmp_path):
    path = write_ods(tmp_path / "codes.ods", [["text", "code"], ["Grüße", 1], ["Hallo", 2]])
    assert list_sheets(path) == ["Codes"]
    table = read_table(path)
    assert table.file_format == "ods" and table.sheet == "Codes"
    assert table.frame.to_dict("list") == {"text": ["Grüße", "Hallo"], "code": [1, 2]}


def test_list_sheets_is_empty_for_text_files(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("a,b\n1,2\n")
    assert list_sheets(path) == []


def test_parquet_round_trip(tmp_path):
    original = pd.DataFrame(
        {"text": ["a", None, "c"], "code": [1, 2, 3], "when": pd.to_datetime(["2020-01-01"] * 3)}
    )
    path = tmp_path / "snapshot.parquet"
    original.to_parquet(path)
    table = read_table(path)
    assert table.file_format == "parquet"
    assert table.frame["text"].tolist()[::2] == ["a", "c"] and pd.isna(table.frame["text"][1])
    assert table.frame["code"].tolist() == [1, 2, 3]
    assert isinstance(table.frame.index, pd.RangeIndex)
    assert table.frame["when"].iloc[0] == pd.Timestamp("2020-01-01")


# --- progress, hashing, cancel ---------------------------------------------------------------


def test_file_sha256_reports_progress(tmp_path):
    path = tmp_path / "blob.csv"
    path.write_bytes(b"x" * (9 << 20))
    events = []
    assert file_sha256(path, events.append) == hashlib.sha256(path.read_bytes()).hexdigest()
    fractions = [e.fraction for e in events]
    assert len(fractions) >= 3 and fractions == sorted(fractions) and fractions[-1] == 1.0


def test_workbook_progress_and_cancel(tmp_path):
    rows = [["id", "text"]] + [[i, f"text number {i}"] for i in range(30_000)]
    path = write_xlsx(tmp_path / "big.xlsx", {"S": rows})
    events: list[Progress] = []
    table = read_table(path, on_event=events.append)
    assert len(table.frame) == 30_000 and table.frame["text"].iloc[-1] == "text number 29999"
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert len(fractions) > 5 and fractions == sorted(fractions) and fractions[-1] == 1.0

    calls = []

    def cancel_when_parsing(event):
        calls.append(event)
        if isinstance(event, Progress) and event.fraction and event.fraction > 0.05:
            raise Cancelled

    started = time.perf_counter()
    with pytest.raises(Cancelled):
        read_table(path, on_event=cancel_when_parsing)
    assert time.perf_counter() - started < 20  # loose: other processes share the CPU


def _write_big_csv(path: Path, rows: int) -> None:
    categories = ["economy", "health", "defence", "other"]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("id,text,category,score\n")
        chunk = []
        for i in range(rows):
            chunk.append(f'{i},"text number {i}, short",{categories[i % 4]},{i % 7}\n')
            if len(chunk) == 50_000:
                handle.write("".join(chunk))
                chunk.clear()
        handle.write("".join(chunk))


@pytest.fixture(scope="module")
def million_row_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "million.csv"
    _write_big_csv(path, 1_000_000)
    return path


@pytest.mark.slow
def test_million_row_csv_reports_monotonic_progress(million_row_csv):
    events: list[Progress] = []
    gaps: list[float] = []
    stop = threading.Event()

    def probe():  # how long the GIL keeps a second thread (the GUI) waiting
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        table = read_table(million_row_csv, on_event=events.append)
    finally:
        stop.set()
        prober.join()
    frame = table.frame
    assert frame.shape == (1_000_000, 4)
    assert frame["text"].iloc[999_999] == "text number 999999, short"
    assert frame["id"].iloc[123_456] == "123456"
    fractions = [e.fraction for e in events]
    assert len(fractions) > 10
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    # Typically ~10 ms here; the bound is loose because other processes share the CPU in CI.
    # Parsing 1M rows while holding the GIL (e.g. pandas.read_csv) would stall for seconds.
    assert max(gaps) < 0.5, f"a second thread (the GUI) stalled {max(gaps) * 1000:.0f} ms"


@pytest.mark.slow
def test_million_row_csv_cancel_stops_quickly(million_row_csv):
    seen: list[float] = []

    def cancel_on_first_read_progress(event):
        seen.append(time.perf_counter())
        if isinstance(event, Progress) and "Reading" in event.message:
            raise Cancelled

    started = time.perf_counter()
    with pytest.raises(Cancelled):
        read_table(million_row_csv, on_event=cancel_on_first_read_progress)
    assert time.perf_counter() - seen[-1] < 5  # loose: other processes share the CPU
    assert time.perf_counter() - started < 20


# --- real corpora ----------------------------------------------------------------------------


@pytest.mark.shared_data
def test_us_congress_bills_gzip_semicolon(shared_data):
    table = read_table(shared_data / "cap_uscongress_bills" / "USCongress.csv.gz")
    frame = table.frame
    assert list(frame.columns) == ["ID", "cong", "billnum", "h_or_sen", "major", "text"]
    assert len(frame) == 4449 and table.delimiter == ";"
    assert frame.loc[0, "text"] == "To suspend temporarily the duty on Fast Magenta 2 Stage."
    assert frame.loc[0, "major"] == "18"
    assert frame["major"].value_counts()["3"] == 617


@pytest.mark.shared_data
def test_davidson_tweets(shared_data):
    table = read_table(shared_data / "davidson2017_hate_offensive" / "labeled_data.csv")
    frame = table.frame
    assert len(frame) == 24_783
    assert list(frame.columns) == [
        "Column 1", "count", "hate_speech", "offensive_language", "neither", "class", "tweet"
    ]
    assert frame["class"].value_counts().to_dict() == {"1": 19_190, "2": 4_163, "0": 1_430}
    assert frame.loc[0, "tweet"].startswith("!!! RT @mayasolovely: As a woman")
    assert table.notices == [
        'Column 1 has no name in the header row; it is shown as "Column 1".'
    ]


def test_texts_that_start_with_a_quotation_are_not_csv_quoting(tmp_path):
    # Like GermEval's tweets: a line starting with a quotation must not swallow the next lines.
    path = tmp_path / "tweets.txt"
    path.write_text(
        'text\tlabel\n"Yes we can" - said he, quoting\tOTHER\n"unclosed quote here\tOFFENSE\n'
        "plain tweet\tOTHER\n",
        encoding="utf-8",
    )
    frame = read_table(path).frame
    assert frame["text"].tolist() == [
        '"Yes we can" - said he, quoting', '"unclosed quote here', "plain tweet"
    ]
    assert frame["label"].tolist() == ["OTHER", "OFFENSE", "OTHER"]


def test_stray_quotation_after_the_sample_is_noticed(tmp_path):
    path = tmp_path / "late_quote.tsv"
    lines = ["text\tlabel"] + [f"tweet number {i}\tOTHER" for i in range(20_000)]
    lines += ['"unclosed quotation\tOFFENSE', "after it\tOTHER", 'and "more\tOTHER']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert path.stat().st_size > 300_000  # the stray quote is beyond the sniffed sample
    table = read_table(path)
    assert len(table.frame) == 20_003
    assert table.frame["text"].tolist()[-3:] == ['"unclosed quotation', "after it", 'and "more']
    assert any("Quotation marks are read as part of the texts" in n for n in table.notices)


@pytest.mark.shared_data
def test_germeval_tab_separated_without_header(shared_data):
    folder = shared_data / "germeval2018_offensive_de"
    train = read_table(folder / "germeval2018.training.txt").frame
    test = read_table(folder / "germeval2018.test.txt").frame
    assert (len(train), len(test)) == (5009, 3532)  # one row per line, none swallowed
    assert list(train.columns) == ["Column 1", "Column 2", "Column 3"]
    assert set(train["Column 2"]) == {"OTHER", "OFFENSE"}
    assert set(test["Column 3"]) == {"OTHER", "ABUSE", "INSULT", "PROFANITY"}
    assert test["Column 1"].iloc[8].startswith('"Wenn man Mädchen bildet')
