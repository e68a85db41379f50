"""The tables' other columns for each test text, for filtering the Documents step."""

from __future__ import annotations

import pandas as pd

from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.experiment.results.tested_texts import metadata_of_test_texts, table_of_test_texts
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.rows import RowOrigin, set_row_origin

MAPPING = ColumnMapping(["Text"], "Topic", "ID")


def _table(parties: list[str]) -> pd.DataFrame:
    n = len(parties)
    return pd.DataFrame({"ID": range(n), "Text": [f"text {i}" for i in range(n)], "Topic": ["a", "b"] * (n // 2),
                         "Party": parties, "Year": [2000 + i for i in range(n)]})


def _result(rows: list[int], how: str = "random hold-out") -> ExperimentResult:
    return ExperimentResult(spec={}, categories=["a", "b"], split={"how": how}, test_rows=rows,
                            test_ids=list(range(len(rows))), test_texts=[], test_true=[0] * len(rows))


def test_one_row_per_test_text_in_the_results_order():
    table = _table(["SPD", "CDU", "FDP", "Greens"])
    found = metadata_of_test_texts(_result([5, 3]), table, MAPPING)  # spreadsheet rows: header in row 1
    assert list(found.columns) == ["Party", "Year"]
    assert found.to_dict("list") == {"Party": ["Greens", "CDU"], "Year": [2003, 2001]}


def test_rows_are_counted_where_the_table_starts_in_its_file():
    table = set_row_origin(_table(["SPD", "CDU", "FDP", "Greens"]), RowOrigin(first_row=4))
    assert metadata_of_test_texts(_result([4, 7]), table, MAPPING)["Party"].tolist() == ["SPD", "Greens"]


def test_a_separate_test_file_holds_the_test_texts():
    table, test = _table(["SPD", "CDU"]), _table(["Left", "AfD"])
    result = _result([3], how="test file")
    assert table_of_test_texts(result, table, test) is test
    assert metadata_of_test_texts(result, table, MAPPING, test)["Party"].tolist() == ["AfD"]
    assert table_of_test_texts(result, table, None) is table  # the test file is not open
    assert table_of_test_texts(_result([3]), table, test) is table


def test_nothing_when_the_table_does_not_match_or_has_no_other_column():
    table = _table(["SPD", "CDU"])
    assert metadata_of_test_texts(_result([9]), table, MAPPING) is None  # beyond the table: another table
    assert metadata_of_test_texts(_result([1]), table, MAPPING) is None  # the header row
    assert metadata_of_test_texts(_result([]), table, MAPPING) is None
    assert metadata_of_test_texts(_result([2]), None, MAPPING) is None
    assert metadata_of_test_texts(_result([2]), table, None) is None
    only_roles = table[["ID", "Text", "Topic"]]
    assert metadata_of_test_texts(_result([2]), only_roles, MAPPING) is None
