"""The record of codings made in TextLab, the codebook, and the table a study runs on with them."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codings import (
    Coding,
    CodingLog,
    UnreadableCodings,
    coded_counts,
    file_categories,
    with_codings,
)
from guiapp.core.errors import DataError, UserError
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.rows import (
    RowOrigin,
    row_origin,
    set_row_origin,
    spreadsheet_rows,
)

MAPPING = ColumnMapping(text_columns=["text"], category_column="label")


def at(minute: float) -> str:
    """A time on one morning, ``minute`` minutes after nine (UTC)."""
    seconds = round(minute * 60)
    return f"2024-05-06T09:{seconds // 60:02d}:{seconds % 60:02d}.000+00:00"


def table() -> pd.DataFrame:
    frame = pd.DataFrame({"text": [f"text {i}" for i in range(6)],
                          "label": ["econ", None, "health", None, None, "econ"],
                          "year": [2001, 2002, 2003, 2004, 2005, 2006]})
    return set_row_origin(frame, RowOrigin(first_row=3, sheet="Bills"))


def cells(series: pd.Series) -> list:
    """The column's values, None where empty."""
    return series.astype(object).where(series.notna(), None).tolist()


def code(log: CodingLog, row, category, minute: float, **more) -> Coding:
    more.setdefault("chosen_by", "random")
    more.setdefault("probability", 0.1)
    return log.record(row, category, coder=more.pop("coder", "Ann"), at=at(minute), **more)


# ---------------------------------------------------------------------- the log


def test_the_latest_coding_of_a_row_wins_and_undo_removes_the_last_entry():
    log = CodingLog()
    code(log, 1, "econ", 0)
    code(log, 3, "health", 1)
    code(log, 1, "health", 2)
    assert log.categories_by_row() == {1: "health", 3: "health"}
    assert len(log) == 3
    undone = log.undo()
    assert undone.row == 1 and undone.category == "health"
    assert log.categories_by_row() == {1: "econ", 3: "health"}
    assert log.undo().row == 3 and log.undo().row == 1
    assert log.undo() is None and len(log) == 0 and log.categories_by_row() == {}


def test_a_skip_codes_nothing_and_is_listed_until_the_text_is_coded():
    log = CodingLog()
    code(log, 4, None, 0, chosen_by="uncertainty", probability=0.3)
    code(log, 2, "econ", 1)
    assert log.skipped() == [4] and 4 not in log.latest()
    code(log, 4, "health", 2)
    assert log.skipped() == [] and log.categories_by_row()[4] == "health"
    code(log, 2, None, 3)  # skipping a coded text later keeps its coding
    assert log.categories_by_row()[2] == "econ" and log.skipped() == []


def test_a_changed_coding_records_the_category_it_replaced():
    frame = table()
    in_file = file_categories(frame, MAPPING)
    assert in_file == {0: "econ", 2: "health", 5: "econ"}
    log = CodingLog()
    kept = code(log, 0, "econ", 0, file_category=in_file.get(0))  # the same category: no change
    first = code(log, 2, "econ", 1, file_category=in_file.get(2), chosen_by="review", probability=None)
    again = code(log, 2, "other", 2, file_category=in_file.get(2))
    new = code(log, 1, "health", 3, file_category=in_file.get(1))
    assert (kept.previous, kept.changed) == (None, False)
    assert (first.previous, first.changed) == ("health", True)  # the file's category
    assert again.previous == "econ"  # the earlier coding's, not the file's
    assert (new.previous, new.changed) == (None, False)
    assert set(log.changed()) == {2}


def test_flags_and_comments_go_with_the_latest_entry_of_a_text():
    log = CodingLog()
    code(log, 1, "econ", 0)
    flagged = log.flag(1, "unsure", "irony?", coder="Ann", at=at(1))
    assert (flagged.category, flagged.flag, flagged.comment) == ("econ", "unsure", "irony?")
    assert flagged.chosen_by == "random" and flagged.coder == "Ann"
    code(log, 3, None, 2, flag="ask colleague", comment="which topic")  # a skipped text can carry a flag too
    assert set(log.flagged()) == {1, 3}
    assert log.flagged()[3].skipped
    code(log, 1, "health", 3)  # coding it again without a flag clears it
    assert set(log.flagged()) == {3}
    with pytest.raises(ValueError, match="cannot be flagged"):
        log.flag(5, "unsure", coder="Ann")


def test_counts_per_category_follow_the_latest_codings():
    log = CodingLog()
    for minute, (row, category) in enumerate([(1, "econ"), (3, "econ"), (4, "health"), (1, "health"), (2, None)]):
        code(log, row, category, minute)
    assert log.counts() == {"health": 2, "econ": 1}
    frame = table()  # the file codes 0 and 5 econ, 2 health; the log adds 1, 3 and 4
    assert coded_counts(frame, MAPPING, log) == {"econ": 3, "health": 3}


def test_rows_of_a_second_file_are_kept_apart_from_the_tables():
    log = CodingLog()
    code(log, 1, "econ", 0)
    code(log, 1, "health", 1, source="second file")
    assert log.categories_by_row() == {1: "econ"}
    assert log.categories_by_row("second file") == {1: "health"}
    assert log.counts() == {"econ": 1, "health": 1} and log.counts("table") == {"econ": 1}


def test_codings_per_hour_count_the_time_spent_coding_and_leave_out_breaks():
    log = CodingLog()
    assert log.per_hour() is None
    code(log, 0, "econ", 0)
    assert log.per_hour() is None  # one coding: no time measured yet
    for i, minute in enumerate([0.5, 1.0, 1.5, 2.0], start=1):  # one coding every 30 s
        code(log, i, "econ", minute)
    assert log.per_hour() == pytest.approx(120.0)
    log.flag(4, "unsure", coder="Ann", at=at(2.5))  # a flag is no new coding, but its time counts
    assert log.per_hour() == pytest.approx(4 * 3600 / 150)
    code(log, 10, "econ", 50)  # back after a break of 47 minutes: the break counts neither
    code(log, 11, "econ", 51)
    assert log.per_hour() == pytest.approx(5 * 3600 / 210)
    code(log, 12, "econ", 51.5, coder="Bea")
    assert log.per_hour(coder="Bea") is None
    assert log.coders() == ["Ann", "Bea"]


def test_the_log_round_trips_through_json():
    log = CodingLog()
    code(log, 1, "econ", 0, flag="unsure", comment="„quotes“ and émojis 🙂")
    code(log, "r-7", "health", 1, chosen_by="diversity", probability=1e-7, source="second file")
    code(log, 2, None, 2, probability=None, chosen_by="in order")
    code(log, np.int64(3), "econ", 3, file_category="health")
    data = json.loads(json.dumps(log.to_dict(), allow_nan=False))
    assert data["version"] == 1 and data["format"] == "textlab-codings"
    again = CodingLog.from_dict(data)
    assert again == log and again.entries[3].row == 3 and type(again.entries[3].row) is int
    assert again.entries[1].row == "r-7" and again.entries[3].previous == "health"


def test_missing_optional_fields_take_their_defaults_and_unknown_ones_are_ignored():
    data = {"version": 1, "codings": [{"row": 4, "category": 2, "coder": "Ann", "at": "2024-05-06 09:00:00",
                                       "chosen_by": "random", "probability": 1, "later": "ignored"}]}
    (coding,) = CodingLog.from_dict(data).entries
    assert coding.category == "2" and coding.probability == 1.0 and coding.flag == "" and coding.source == "table"
    assert coding.time.utcoffset().total_seconds() == 0  # a time without a zone counts as UTC


@pytest.mark.parametrize(("entry", "words"), [
    ({"category": "a"}, "entry 1 names no row"),
    ({"row": True}, "entry 1 names no row"),
    ({"row": [1]}, "entry 1 names no row"),
    ({"row": 1, "category": {"a": 1}}, "category that is not a text"),
    ({"row": 1, "at": "yesterday"}, "no time it was made"),
    ({"row": 1, "at": None}, "no time it was made"),
    ({"row": 1, "probability": 1.5}, "not between 0 and 1"),
    ({"row": 1, "probability": "0.2"}, "not between 0 and 1"),
    ({"row": 1, "coder": 7}, "coder that is not a text"),
    ({"row": 1, "source": "elsewhere"}, "comes from 'elsewhere'"),
])
def test_a_bad_entry_is_refused_with_a_message_that_names_it(entry, words):
    good = {"row": 0, "category": "a", "coder": "Ann", "at": at(0), "chosen_by": "random", "probability": 0.5}
    bad = {"category": "a", "coder": "Ann", "at": at(1), "chosen_by": "random", "probability": 0.5, **entry}
    with pytest.raises(UnreadableCodings) as caught:
        CodingLog.from_dict({"version": 1, "codings": [bad, good]})
    assert words in caught.value.message and caught.value.hint
    with pytest.raises(UnreadableCodings, match="entry 2"):
        CodingLog.from_dict({"version": 1, "codings": [good, bad]})


@pytest.mark.parametrize("data", [None, [], "codings", {"codings": {"0": {}}}, {"codings": [1]},
                                  {"version": "one", "codings": []}, {"format": "something else", "codings": []}])
def test_data_that_is_no_log_is_refused_in_words(data):
    with pytest.raises(UnreadableCodings):
        CodingLog.from_dict(data)


def test_a_log_from_a_newer_textlab_asks_for_an_update():
    with pytest.raises(UserError, match="newer TextLab") as caught:
        CodingLog.from_dict({"version": 99, "codings": []})
    assert "Update TextLab" in caught.value.hint


def test_a_coding_refuses_what_it_cannot_keep():
    with pytest.raises(ValueError, match="between 0 and 1"):
        Coding(1, "a", "Ann", at(0), "random", float("nan"))
    with pytest.raises(TypeError, match="whole number or a text"):
        Coding(1.5, "a", "Ann", at(0), "random", None)
    with pytest.raises(ValueError):
        Coding(1, "a", "Ann", "not a time", "random", None)
    with pytest.raises(ValueError, match="comes from"):
        Coding(1, "a", "Ann", at(0), "random", None, source="somewhere")


# ---------------------------------------------------------------------- the table with the codings


def test_with_codings_applies_the_log_to_a_copy_and_keeps_the_rows_excel_shows():
    frame = table()
    before = frame.copy(deep=True)
    log = CodingLog()
    code(log, 1, "econ", 0)
    code(log, 2, "culture", 1, file_category="health")  # a new category, changing the file's
    code(log, 3, None, 2)  # skipped: stays uncoded
    code(log, 7, "econ", 3, source="second file")  # not a row of this table
    coded = with_codings(frame, MAPPING, log)
    assert cells(coded["label"]) == ["econ", "econ", "culture", None, None, "econ"]
    assert coded["year"].tolist() == frame["year"].tolist()
    pd.testing.assert_frame_equal(frame, before)  # the file's table is not changed
    assert row_origin(coded) == RowOrigin(3, "Bills")
    assert spreadsheet_rows(coded).tolist() == [3, 4, 5, 6, 7, 8]


def test_with_codings_keeps_a_column_of_numbers_numbers():
    frame = pd.DataFrame({"text": ["a", "b", "c"], "label": [1, 0, 1]})
    log = CodingLog()
    code(log, 1, "1", 0)
    coded = with_codings(frame, MAPPING, log)
    assert coded["label"].tolist() == [1, 1, 1] and coded["label"].dtype == np.int64
    code(log, 2, "maybe", 1)
    assert with_codings(frame, MAPPING, log)["label"].tolist() == [1, 1, "maybe"]
    assert frame["label"].tolist() == [1, 0, 1]


def test_a_table_without_a_category_column_gets_one():
    frame = pd.DataFrame({"text": ["a", "b"], "category": ["x", "y"]})
    log = CodingLog()
    code(log, 0, "econ", 0)
    coded = with_codings(frame, ColumnMapping(text_columns=["text"]), log)
    assert coded.columns.tolist() == ["text", "category", "category 2"]
    assert cells(coded["category 2"]) == ["econ", None]


def test_codings_of_rows_the_table_lacks_are_refused_in_words():
    log = CodingLog()
    code(log, 40, "econ", 0)
    with pytest.raises(DataError, match="not in the table") as caught:
        with_codings(table(), MAPPING, log)
    assert "40" in caught.value.message and caught.value.hint


# ---------------------------------------------------------------------- the codebook


def test_the_codebook_round_trips_and_takes_the_columns_categories():
    book = Codebook([CodebookCategory("econ", "Economy, taxes, trade", ["Cut the sales tax"]),
                     CodebookCategory("health", "", [])])
    again = Codebook.from_dict(json.loads(json.dumps(book.to_dict())))
    assert again == book and again.names() == ["econ", "health"]
    wider = again.with_categories(["health", "culture", "culture"])
    assert wider.names() == ["econ", "health", "culture"] and again.names() == ["econ", "health"]
    assert wider.category("econ").examples == ["Cut the sales tax"] and wider.category("none") is None


def test_the_codebook_is_read_leniently_but_refuses_what_cannot_be_one():
    lenient = Codebook.from_dict({"categories": [{"name": "econ", "examples": "one example", "definition": None},
                                                 {"name": 2}]})
    assert lenient.categories == [CodebookCategory("econ", "", ["one example"]), CodebookCategory("2")]
    for bad, words in [({"categories": [{"name": "a"}, {"name": "a"}]}, "twice"),
                       ({"categories": [{"definition": "x"}]}, "no name"),
                       ({"categories": [{"name": "a", "examples": [1]}]}, "not texts"),
                       ({"categories": "a, b"}, "not a list"),
                       ([], "not a list")]:
        with pytest.raises(UnreadableCodings, match=words) as caught:
            Codebook.from_dict(bad)
        assert caught.value.message.startswith("The codebook cannot be read")


def test_a_codebook_with_an_empty_or_repeated_name_is_explained():
    with pytest.raises(UserError, match="no name"):
        Codebook([CodebookCategory(" ")]).check()
    with pytest.raises(UserError, match="twice"):
        Codebook([CodebookCategory("a"), CodebookCategory("a")]).check()


# ---------------------------------------------------------------------- a second coder's record


def second(log: CodingLog, row, category, minute: float, coder: str = "Ben", **more) -> Coding:
    return log.record(row, category, coder=coder, chosen_by="second coder", probability=None, at=at(minute), **more)


def test_a_second_coders_codings_never_count_as_the_studys_coding():
    frame = table()
    log = CodingLog()
    code(log, 1, "econ", 0)
    code(log, 3, None, 1, flag="unsure")
    second(log, 1, "health", 2)
    second(log, 0, "health", 3, file_category="econ")  # a text the file codes
    second(log, 3, None, 4, flag="ask colleague", comment="which one?")
    second(log, 4, "econ", 5)
    assert log.categories_by_row() == {1: "econ"} and set(log.latest()) == {1}
    assert log.entry_of(1).category == "econ" and log.entry_of(4) is None
    assert log.skipped() == [3] and log.flagged()[3].flag == "unsure"
    assert log.changed() == {} and log.counts() == {"econ": 1}
    assert cells(with_codings(frame, MAPPING, log)["label"]) == ["econ", "econ", "health", None, None, "econ"]
    assert coded_counts(frame, MAPPING, log) == {"econ": 3, "health": 1}
    # the second coder's record, asked for by name
    assert {row: c.category for row, c in log.second_coder().items()} == {1: "health", 0: "health", 4: "econ"}
    assert log.categories_by_row(second_coder=True) == {1: "health", 0: "health", 4: "econ"}
    assert log.skipped(second_coder=True) == [3] and log.flagged(second_coder=True)[3].comment == "which one?"
    assert log.counts(second_coder=True) == {"health": 2, "econ": 1}
    assert len(log) == 6 and len(log.entries_of()) == 2 and len(log.entries_of(second_coder=True)) == 4


def test_a_second_coders_change_is_measured_against_the_second_coders_own_coding():
    log = CodingLog()
    code(log, 2, "econ", 0, file_category="health")
    checked = second(log, 2, "culture", 1, file_category="health")
    assert (checked.previous, checked.changed) == (None, False)  # neither the first coding's nor the file's
    again = second(log, 2, "health", 2)
    assert again.previous == "culture" and set(log.changed(second_coder=True)) == {2}
    assert log.changed() == {2: log.entry_of(2)}  # the first coding's change, from the file's health
    later = code(log, 2, "other", 3)
    assert later.previous == "econ"  # the first coding's own, not the second coder's
    flagged = log.flag(2, "unsure", coder="Ben", at=at(4), second_coder=True)
    assert (flagged.chosen_by, flagged.category) == ("second coder", "health")
    assert log.flagged() == {} and set(log.flagged(second_coder=True)) == {2}


def test_undo_takes_back_the_last_entry_of_one_record_only():
    log = CodingLog()
    code(log, 1, "econ", 0)
    second(log, 1, "health", 1)
    code(log, 2, "health", 2)
    second(log, 2, "econ", 3)
    undone = log.undo()  # the first coder's last, though the second coder's came later
    assert (undone.row, undone.chosen_by) == (2, "random")
    assert log.categories_by_row() == {1: "econ"}
    assert log.categories_by_row(second_coder=True) == {1: "health", 2: "econ"}
    assert log.undo(second_coder=True).row == 2 and log.undo(second_coder=True).row == 1
    assert log.undo(second_coder=True) is None  # the second coder's record is empty now
    assert [e.row for e in log.entries] == [1] and log.undo().row == 1 and log.undo() is None


def test_codings_per_hour_are_the_first_coders_unless_asked():
    log = CodingLog()
    for i in range(3):
        code(log, i, "econ", i)  # one a minute
    for i in range(5):
        second(log, i, "econ", 10 + i / 2)  # one every 30 s
    assert log.per_hour() == pytest.approx(60.0)
    assert log.per_hour(second_coder=True) == pytest.approx(120.0)
    data = json.loads(json.dumps(log.to_dict()))
    assert CodingLog.from_dict(data) == log  # both records are kept in the project
