"""Several categories per text: reading indicator columns and a delimited column, the fixes per
category, bad values, the separator guess, the columns offered for ticking, and the mapping."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import DataError
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.label_sets import (
    LabelValueError,
    category_order,
    guess_label_separator,
    indicator_like_columns,
    label_matrix,
    read_label_sets,
)
from guiapp.core.study.mapping import ColumnMapping, apply_mapping, check_mapping

TEXTS = ["taxes and jobs", "nurses", "nothing here", "not coded yet", "clinics and wages", "forests"]


def indicators(**columns) -> pd.DataFrame:
    return pd.DataFrame({"text": TEXTS[: len(next(iter(columns.values())))], **columns}, dtype=object)


def indicator_mapping(*columns: str, **more) -> ColumnMapping:
    return ColumnMapping(text_columns=["text"], multi_label=True, category_columns=list(columns), **more)


def delimited_mapping(column: str = "topics", separator: str = ";", **more) -> ColumnMapping:
    return ColumnMapping(text_columns=["text"], multi_label=True, category_column=column, label_separator=separator,
                         **more)


# --------------------------------------------------------------------------- indicator columns


def test_indicator_columns_with_words_numbers_and_averaged_coders():
    frame = indicators(
        economy=["1", "no", "0", None, "yes", "0.17"],
        health=["0", "x", "false", "", "0.83", "0"],
        environment=[0.0, 0.0, 0.0, np.nan, 0.0, 1.0],
    )
    sets = read_label_sets(frame, indicator_mapping("economy", "health", "environment"))
    assert sets.categories == ["economy", "environment", "health"]
    assert sets.matrix.dtype == np.uint8 and sets.matrix.shape == (6, 3)
    assert sets.coded.tolist() == [True, True, True, False, True, True]  # row 4: every cell empty
    assert sets.tuples() == [("economy",), ("health",), (), None, ("economy", "health"), ("environment",)]
    assert sets.thresholded == 2  # 0.83 → has it, 0.17 → has not; both counted for the note
    assert sets.no_category.tolist() == [False, False, True, False, False, False]
    assert sets.counts.tolist() == [2, 1, 2]


def test_true_false_cells_and_booleans_and_an_exact_half():
    frame = indicators(a=[True, False, True], b=["TRUE", " False ", "0.5"])
    sets = read_label_sets(frame, indicator_mapping("a", "b"))
    assert sets.tuples() == [("a", "b"), (), ("a", "b")]
    assert sets.thresholded == 1


def test_a_partly_empty_row_is_coded_and_its_empty_cells_count_as_no():
    frame = indicators(a=["x", None, None], b=[None, None, "1"])
    sets = read_label_sets(frame, indicator_mapping("a", "b"))
    assert sets.tuples() == [("a",), None, ("b",)]


@pytest.mark.parametrize("bad", ["2", "maybe", "-1", "1.5", "2021-03-04"])
def test_a_value_that_is_not_one_or_zero_is_named_with_its_column(bad):
    frame = indicators(economy=["1", bad, "0"], health=["0", "1", "1"])
    with pytest.raises(LabelValueError) as caught:
        read_label_sets(frame, indicator_mapping("economy", "health"))
    assert "'economy'" in caught.value.message and f"“{bad}” (1 row)" in caught.value.message
    assert "between 0 and 1" in caught.value.hint and "untick" in caught.value.hint
    assert isinstance(caught.value, DataError)


def test_many_bad_values_are_shown_most_frequent_first_and_the_rest_counted():
    values = ["a"] * 3 + ["b", "c", "d", "e", "f", "g"]
    frame = pd.DataFrame({"text": [f"t{i}" for i in range(9)], "x": values, "y": ["1"] * 9})
    with pytest.raises(LabelValueError, match=r"“a” \(3 rows\).* and 2 other values"):
        read_label_sets(frame, indicator_mapping("x", "y"))


def test_fixes_merge_two_columns_into_one_category_and_leave_out_drops_only_the_category():
    frame = indicators(Economy=["1", "0", "0"], economy=["0", "0", "1"], health=["1", "1", "0"], other=["0", "1", "1"])
    fixes = CategoryFixes(merge={"Economy": "economy"}, leave_out=["other"])
    sets = read_label_sets(frame, indicator_mapping("Economy", "economy", "health", "other"), fixes)
    assert sets.categories == ["economy", "health"]
    assert sets.tuples() == [("economy", "health"), ("health",), ("economy",)]  # no text is left out
    assert sets.left_out_texts == 2
    assert sets.written == ("Economy", "economy", "health", "other")


def test_a_hundred_thousand_rows_are_read_at_once():
    rng = np.random.default_rng(3)
    n = 100_000
    frame = pd.DataFrame({"text": ["t"] * n, **{f"c{k}": rng.choice(["0", "1", ""], n) for k in range(6)}})
    sets = read_label_sets(frame, indicator_mapping(*[f"c{k}" for k in range(6)]))
    expected = frame[[f"c{k}" for k in range(6)]].eq("1").to_numpy()
    assert (sets.matrix == expected).all()
    assert sets.coded.sum() == (frame[[f"c{k}" for k in range(6)]] != "").any(axis=1).sum()


# --------------------------------------------------------------------------- a delimited column


def test_a_delimited_column_is_split_stripped_and_each_category_counted_once():
    frame = pd.DataFrame({"text": TEXTS, "topics": [
        "economy; health", " health ", ";", None, "economy ;; economy;health", "  "]})
    sets = read_label_sets(frame, delimited_mapping())
    assert sets.categories == ["economy", "health"]
    assert sets.tuples() == [("economy", "health"), ("health",), (), None, ("economy", "health"), None]
    assert sets.thresholded == 0


def test_delimited_categories_follow_the_natural_order_and_the_fixes_per_part():
    frame = pd.DataFrame({"text": TEXTS[:3], "codes": ["10|2", "2 | Other", "1.0"]})
    fixes = CategoryFixes(merge={"1": "2"}, leave_out=["Other"])
    sets = read_label_sets(frame, delimited_mapping("codes", "|"), fixes)
    assert sets.categories == ["2", "10"]
    assert sets.tuples() == [("2", "10"), ("2",), ("2",)]
    assert sets.left_out_texts == 1


def test_the_natural_order_and_the_matrix_of_names():
    assert category_order({"10", "2", "b", "A"}) == ["2", "10", "A", "b"]
    assert label_matrix([("b",), (), None, ("a", "b")], ["a", "b"]).tolist() == [[0, 1], [0, 0], [0, 0], [1, 1]]


# --------------------------------------------------------------------------- guesses


@pytest.mark.parametrize(("cells", "expected"), [
    (["economy; health", "health", "economy", "law/crime; health", "law/crime", "economy; law/crime"], ";"),
    (["a | b", "a", "b | c", "c"], "|"),
    (["economy, health", "health", "economy, trade", "trade"], ","),
    (["pro/contra", "pro", "contra/neutral", "neutral"], "/"),
    (["a + b", "a", "b + c"], " + "),
    (["a+b", "a", "b+c"], "+"),
    (["economy", "health", None, ""], ";"),
    ([], ";"),
])
def test_the_separator_guess_splits_cells_into_categories_that_recur(cells, expected):
    assert guess_label_separator(cells) == expected


def test_a_slash_inside_a_category_written_always_the_same_way_is_not_taken_for_a_separator():
    cells = ["Law/Crime"] * 5 + ["Health", "Law/Crime; Health", "Economy; Health", "Economy"]
    assert guess_label_separator(pd.Series(cells)) == ";"


def test_indicator_like_columns_are_offered_and_others_are_not():
    frame = pd.DataFrame({
        "text": ["a long text here", "another text", "third one", "fourth"],
        "economy": ["1", "0", "1", "0"],
        "health": ["x", None, None, "x"],
        "agreed": ["yes", "no", "YES", "no"],
        "averaged": [1.0, 0.67, 0.0, 0.0],
        "score": [0.12, 0.55, 0.83, 0.4],  # mostly between 0 and 1: a score, not a category
        "constant": ["1", "1", "1", "1"],
        "year": ["2019", "2020", "2021", "2022"],
        "empty": [None, None, None, None],
    })
    assert indicator_like_columns(frame) == ["economy", "health", "agreed", "averaged"]


# --------------------------------------------------------------------------- the mapping


def test_apply_mapping_gives_tuples_and_keeps_every_row():
    frame = indicators(economy=["1", "0", "0", None, "1", "0"], health=["1", "1", "0", None, "0", "0"])
    coded = apply_mapping(frame, indicator_mapping("economy", "health"), CategoryFixes(leave_out=["health"]))
    assert coded.frame["category"].tolist() == [("economy",), (), (), None, ("economy",), ()]
    assert not coded.left_out.any()
    assert coded.label_sets is not None and coded.label_sets.categories == ["economy"]
    assert coded.frame["text"].tolist() == TEXTS


def test_a_delimited_mapping_keeps_the_single_label_reading_out_of_it():
    frame = pd.DataFrame({"text": TEXTS[:2], "topics": ["a; b", "b"]})
    assert apply_mapping(frame, delimited_mapping()).frame["category"].tolist() == [("a", "b"), ("b",)]
    single = ColumnMapping(text_columns=["text"], category_column="topics")
    assert apply_mapping(frame, single).frame["category"].tolist() == ["a; b", "b"]


def test_category_columns_are_ignored_unless_several_categories_per_text_are_chosen():
    frame = indicators(label=["a", "b", "a"], economy=["1", "0", "1"])
    mapping = ColumnMapping(text_columns=["text"], category_column="label", category_columns=["economy", "label"])
    check_mapping(frame, mapping)
    assert apply_mapping(frame, mapping).frame["category"].tolist() == ["a", "b", "a"]


@pytest.mark.parametrize(("mapping", "message"), [
    (ColumnMapping(text_columns=["text"], multi_label=True), "No category columns are chosen"),
    (indicator_mapping("economy"), "Only one category column is ticked"),
    (indicator_mapping("economy", "missing"), "The column 'missing' is not in the table"),
    (indicator_mapping("economy", "text"), "chosen both as text and as category"),
    (indicator_mapping("economy", "economy"), "chosen twice as category"),
    (indicator_mapping("economy", "health", id_column="health"), "both as category and as ID"),
    (indicator_mapping("economy", "health", category_column="topics"), "Both one column per category"),
    (indicator_mapping("economy", "bad"), "values that are not 1 or 0"),
    (indicator_mapping("economy", "blank"), None),
    (delimited_mapping("nothing"), "no coded values"),
])
def test_check_mapping_of_several_categories_per_text(mapping, message):
    frame = pd.DataFrame({
        "text": TEXTS[:3], "economy": ["1", "0", "1"], "health": ["0", "1", "1"], "topics": ["a", "b", "a; b"],
        "bad": ["1", "7", "0"], "blank": [None, None, None], "nothing": [None, " ", ""],
    })
    if message is None:  # a ticked column that is empty everywhere is fine while others are coded
        check_mapping(frame, mapping)
        return
    with pytest.raises(DataError, match=message):
        check_mapping(frame, mapping)


def test_check_mapping_refuses_indicator_columns_without_any_value():
    frame = pd.DataFrame({"text": TEXTS[:2], "a": [None, None], "b": ["", " "]})
    with pytest.raises(DataError, match="every cell is empty"):
        check_mapping(frame, indicator_mapping("a", "b"))
