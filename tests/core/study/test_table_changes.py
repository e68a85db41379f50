"""What changed between two versions of a study's table, and what a study file records about it."""

from __future__ import annotations

import pandas as pd

from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.table_changes import (
    TableChanges,
    category_set,
    compare_tables,
    compare_with_record,
    keep_mapping,
)


def _frame(labels: list[object], **extra) -> pd.DataFrame:
    return pd.DataFrame({"text": [f"text {i}" for i in range(len(labels))], "label": labels, **extra})


def test_category_set_uses_labels_and_leaves_out_uncoded_cells() -> None:
    frame = _frame(["Red", "Blue", None, " ", 1.0, "1"])
    assert category_set(frame, "label") == ["1", "Blue", "Red"]
    assert category_set(frame, None) == [] and category_set(frame, "nope") == []


def test_rows_and_categories_added_and_gone() -> None:
    before = _frame(["Red", "Blue", "Red"], party=["a", "b", "c"])
    after = _frame(["Red", "Green", "Red", "Green"], year=[1, 2, 3, 4])
    changes = compare_tables(before, after, "label")
    assert (changes.rows_before, changes.rows_after) == (3, 4)
    assert changes.new_categories == ["Green"] and changes.gone_categories == ["Blue"]
    assert changes.gone_columns == ["party"] and changes.new_columns == ["year"]
    assert changes.any
    assert changes.summary() == (
        "3 → 4 rows (1 added); new category “Green”; category “Blue” no longer in the file; "
        "new column “year”; column “party” is gone."
    )


def test_an_unchanged_table_says_so() -> None:
    frame = _frame(["Red", "Blue"])
    changes = compare_tables(frame, frame.copy(), "label")
    assert not changes.any
    assert changes.summary() == "Same 2 rows, categories and columns as before."


def test_keep_mapping_drops_only_the_columns_that_are_gone() -> None:
    mapping = ColumnMapping(["title", "body"], "label", "id", "split", ["party", "year"], " | ")
    kept, lost = keep_mapping(mapping, ["title", "label", "id", "year"])
    assert kept == ColumnMapping(["title"], "label", "id", None, ["year"], " | ")
    assert lost == [("body", "text"), ("split", "split"), ("party", "metadata")]
    changes = TableChanges(rows_before=3, rows_after=3, gone_columns=["body", "party"], lost_roles=lost)
    assert changes.sentences() == [
        "column “body” is gone, so it is no longer the text column",
        "column “split” is gone, so it is no longer the train/test column",
        "column “party” is gone, so it is no longer kept for later",
    ]


def test_compare_with_what_a_study_recorded() -> None:
    after = _frame(["Red", "Green"] * 3)
    changes = compare_with_record(5, ["Blue", "Red"], after, "label")
    assert changes.sentences() == ["5 → 6 rows (1 added)", "new category “Green”", "category “Blue” no longer in the file"]
    unknown = compare_with_record(None, None, after, "label")
    assert not unknown.any and unknown.rows_after == 6


def test_a_study_records_rows_and_categories_and_reads_them_back(tmp_path) -> None:
    spec = ExperimentSpec(data=DataSpec("texts.csv", sha256="ab" * 32, mapping=ColumnMapping(["text"], "label"),
                                        rows=1122, categories=["Blue", "Red"]))
    for name in ("study.toml", "study.json"):
        spec.save(tmp_path / name)
        again = ExperimentSpec.load(tmp_path / name)
        assert again.data.rows == 1122 and again.data.categories == ["Blue", "Red"]
    older = ExperimentSpec.from_dict({"data": {"source": "texts.csv"}})
    assert older.data.rows is None and older.data.categories is None
