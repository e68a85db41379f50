""""Export codings…": the researcher's table with TextLab's codings beside it, as xlsx or CSV, read
back with pandas; the spreadsheet the texts came from is never changed."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codings import CodingLog, file_categories
from guiapp.core.errors import UserError
from guiapp.core.events import Progress
from guiapp.core.export.codings_export import (
    CODEBOOK_SHEET,
    SHEET,
    TEXTLAB_COLUMNS,
    codings_table,
    write_codings,
)
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.reader import read_table

MAPPING = ColumnMapping(text_columns=["speech"], category_column="topic")
ROW = "Row in your spreadsheet"


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def source(tmp_path):
    """A workbook of 8 speeches, 3 coded, read as TextLab reads it."""
    path = tmp_path / "speeches.xlsx"
    frame = pd.DataFrame({"speaker": list("ABCDEFGH"),
                          "speech": [f"speech number {i} on “things”" for i in range(8)],
                          "topic": ["econ", None, "health", None, None, "econ", None, None],
                          "year": np.arange(2001, 2009)})
    frame.to_excel(path, index=False, engine="xlsxwriter")
    return path, read_table(path).frame


def the_log(frame: pd.DataFrame) -> CodingLog:
    in_file = file_categories(frame, MAPPING)
    log = CodingLog()
    log.record(1, "econ", coder="Ann", chosen_by="random", probability=0.125, at="2024-05-06T09:00:00+00:00")
    log.record(2, "culture", coder="Ann", chosen_by="review", file_category=in_file.get(2),
               at="2024-05-06T09:01:30+00:00", flag="unsure", comment="arts funding, or health?")
    log.record(3, None, coder="Ann", chosen_by="uncertainty", probability=0.5, at="2024-05-06T09:02:00+00:00",
               flag="ask colleague")
    log.record(6, "health", coder="Bea", chosen_by="uncertainty", probability=0.03125,
               at="2024-05-06T09:03:00+00:00")
    return log


def expected_columns(frame: pd.DataFrame) -> list[str]:
    return [ROW, *frame.columns, *TEXTLAB_COLUMNS]


def check_codings(saved: pd.DataFrame, frame: pd.DataFrame) -> None:
    saved = saved.astype(object).where(saved.notna(), None)
    assert saved.columns.tolist() == expected_columns(frame)
    assert saved[ROW].tolist() == list(range(2, 10))  # the rows Excel shows below the header
    assert saved["speech"].tolist() == frame["speech"].tolist()
    assert saved["topic"].tolist() == ["econ", None, "health", None, None, "econ", None, None]  # the file's, untouched
    assert saved["Coding"].tolist() == ["econ", "econ", "culture", None, None, "econ", "health", None]
    assert saved["Coder"].tolist() == [None, "Ann", "Ann", None, None, None, "Bea", None]
    assert saved["How chosen"].tolist() == [None, "random", "review", None, None, None, "uncertainty", None]
    assert saved["Probability of being chosen"].tolist() == [None, 0.125, None, None, None, None, 0.03125, None]
    assert saved["Flag"].tolist() == [None, None, "unsure", "ask colleague", None, None, None, None]
    assert saved["Comment"].tolist()[2] == "arts funding, or health?"
    assert saved["Previous coding"].tolist() == [None, None, "health", None, None, None, None, None]
    times = pd.to_datetime(pd.Series(saved["Time (UTC)"].tolist()))
    assert times[1] == pd.Timestamp("2024-05-06 09:00:00") and times[2] == pd.Timestamp("2024-05-06 09:01:30")
    assert pd.isna(times[0]) and pd.isna(times[3])


def test_the_workbook_round_trips_and_the_spreadsheet_is_unchanged(source, tmp_path):
    path, frame = source
    before = sha256(path)
    events = []
    book = Codebook([CodebookCategory("econ", "Economy and taxes", ["Cut taxes", "Trade deals"])])
    out = write_codings(tmp_path / "codings.xlsx", frame, MAPPING, the_log(frame), codebook=book,
                        protected=[path], on_event=events.append)
    assert sha256(path) == before
    check_codings(pd.read_excel(out, sheet_name=SHEET, engine="calamine"), frame)
    sheet = pd.read_excel(out, sheet_name=CODEBOOK_SHEET, engine="calamine")
    assert sheet["Category"].tolist() == ["econ", "culture", "health"]  # the codebook's, then the coded ones
    assert sheet["Examples"][0] == "Cut taxes\nTrade deals" and sheet["Definition"][0] == "Economy and taxes"
    assert sheet["Coded texts"].tolist() == [3, 1, 1]
    assert any(isinstance(e, Progress) and e.fraction == 1.0 for e in events)
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_csv_round_trips_and_the_spreadsheet_is_unchanged(source, tmp_path):
    path, frame = source
    before = sha256(path)
    out = write_codings(tmp_path / "codings.csv", frame, MAPPING, the_log(frame), protected=[path])
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")  # Excel opens it with the right characters
    check_codings(pd.read_csv(out, encoding="utf-8-sig"), frame)
    assert sha256(path) == before


def test_the_spreadsheet_itself_is_never_a_target(source, tmp_path):
    path, frame = source
    before = sha256(path)
    for overwrite in (False, True):
        with pytest.raises(UserError, match="never changes it"):
            write_codings(path, frame, MAPPING, the_log(frame), protected=[path], overwrite=overwrite)
    assert sha256(path) == before


def test_an_existing_file_is_kept_unless_it_may_be_replaced(source, tmp_path):
    _, frame = source
    target = tmp_path / "codings.csv"
    target.write_text("mine", encoding="utf-8")
    with pytest.raises(UserError, match="already exists"):
        write_codings(target, frame, MAPPING, the_log(frame))
    assert target.read_text(encoding="utf-8") == "mine"
    write_codings(target, frame, MAPPING, the_log(frame), overwrite=True)
    assert pd.read_csv(target, encoding="utf-8-sig").shape == (8, 1 + 4 + 8)


def test_an_unknown_ending_is_explained(source, tmp_path):
    _, frame = source
    with pytest.raises(UserError, match="which kind of file") as caught:
        write_codings(tmp_path / "codings.txt", frame, MAPPING, the_log(frame))
    assert ".xlsx" in caught.value.hint and ".csv" in caught.value.hint


def test_only_the_texts_coded_or_flagged_in_textlab(source):
    _, frame = source
    table = codings_table(frame, MAPPING, the_log(frame), only_coded=True)
    assert table[ROW].tolist() == [3, 4, 5, 8]  # rows 1, 2, 3 (skipped but flagged) and 6
    assert table["speech"].tolist() == frame["speech"].iloc[[1, 2, 3, 6]].tolist()


def test_textlab_columns_never_replace_the_users(source):
    _, frame = source
    frame = frame.assign(Coding=["theirs"] * 8)
    table = codings_table(frame, MAPPING, the_log(frame))
    assert table["Coding"].tolist() == ["theirs"] * 8
    assert table["Coding (TextLab)"].tolist()[1] == "econ"
    assert frame.columns.tolist() == ["speaker", "speech", "topic", "year", "Coding"]


def test_texts_coded_from_a_second_file_follow_the_tables_rows(source, tmp_path):
    _, frame = source
    second = pd.DataFrame({"speech": ["new one", "new two", "new three"], "outlet": ["x", "y", "z"]})
    log = the_log(frame)
    log.record(1, "econ", coder="Ann", chosen_by="diversity", probability=0.25, source="second file",
               at="2024-05-06T09:05:00+00:00")
    table = codings_table(frame, MAPPING, log, coding_texts=second, only_coded=True)
    assert table.columns[:2].tolist() == ["Row in its file", "Text from"]
    assert table.columns[-len(TEXTLAB_COLUMNS):].tolist() == list(TEXTLAB_COLUMNS)
    assert table["Text from"].tolist() == ["your table"] * 4 + ["the second file of texts"]
    last = table.iloc[-1]
    assert (last["Row in its file"], last["speech"], last["outlet"], last["Coding"]) == (3, "new two", "y", "econ")
    out = write_codings(tmp_path / "both.xlsx", frame, MAPPING, log, coding_texts=second, only_coded=True)
    saved = pd.read_excel(out, sheet_name=SHEET, engine="calamine")
    assert saved["How chosen"].tolist()[-1] == "diversity" and len(saved) == 5


def test_the_frame_given_is_not_changed(source):
    _, frame = source
    before = frame.copy(deep=True)
    codings_table(frame, MAPPING, the_log(frame))
    pd.testing.assert_frame_equal(frame, before)


def test_a_second_coders_codings_are_exported_beside_the_coding_that_counts(source, tmp_path):
    _, frame = source
    log = the_log(frame)
    assert "Second coder" not in codings_table(frame, MAPPING, log).columns  # only once a second coder coded
    log.record(1, "health", coder="Cem", chosen_by="second coder", at="2024-05-06T10:00:00+00:00")
    log.record(5, "econ", coder="Cem", chosen_by="second coder", at="2024-05-06T10:01:00+00:00")  # the file's coding
    log.record(6, None, coder="Cem", chosen_by="second coder", at="2024-05-06T10:02:00+00:00", flag="unsure")
    out = write_codings(tmp_path / "two coders.xlsx", frame, MAPPING, log)
    saved = pd.read_excel(out, sheet_name=SHEET, engine="calamine")
    saved = saved.astype(object).where(saved.notna(), None)
    assert saved.columns.tolist() == [*expected_columns(frame), "Second coder", "Second coder's category"]
    assert saved["Second coder"].tolist() == [None, "Cem", None, None, None, "Cem", None, None]
    assert saved["Second coder's category"].tolist() == [None, "health", None, None, None, "econ", None, None]
    # the coding that counts, its coder and its flags stay the first coder's
    assert saved["Coding"].tolist() == ["econ", "econ", "culture", None, None, "econ", "health", None]
    assert saved["Coder"].tolist() == [None, "Ann", "Ann", None, None, None, "Bea", None]
    assert saved["Flag"].tolist() == [None, None, "unsure", "ask colleague", None, None, None, None]
    book = pd.read_excel(out, sheet_name=CODEBOOK_SHEET, engine="calamine")
    assert dict(zip(book["Category"], book["Coded texts"], strict=True)) == {"econ": 3, "culture": 1, "health": 1}
    only = codings_table(frame, MAPPING, log, only_coded=True)
    assert only[ROW].tolist() == [3, 4, 5, 7, 8]  # row 5 (index 5) is in it for the second coder's coding
