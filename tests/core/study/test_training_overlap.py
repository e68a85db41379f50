"""Test texts that are also training texts: counted after normalising capitals and spaces; refused
when most are (the training table as its own test file, or a copy), a note when some are."""

from __future__ import annotations

import pandas as pd
import pytest

from guiapp.core.errors import DataError
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, EvaluationSpec, ExperimentSpec
from guiapp.core.study.study_data import load_study_data
from guiapp.core.study.training_overlap import check_test_overlap, normalised, shared_count


def test_texts_are_compared_without_capitals_and_extra_spaces() -> None:
    assert normalised("  The  Bill\tpassed\n") == normalised("the bill passed") == "the bill passed"
    assert shared_count(["The bill passed.", "Other"], ["THE BILL  PASSED.", "new", "other "]) == (2, 3)


def test_most_test_texts_in_training_is_refused_some_is_counted() -> None:
    train = [f"text {i}" for i in range(10)]
    with pytest.raises(DataError, match="all of the 10 test texts are also training texts"):
        check_test_overlap(train, [t.upper() for t in train], "test file")
    with pytest.raises(DataError, match="The test file is the training table itself"):
        check_test_overlap(train, train[:2] + ["new"] * 8, "test file", same_table=True)
    with pytest.raises(DataError, match="6 of the 10 test texts") as refused:
        check_test_overlap(train, train[:6] + [f"new {i}" for i in range(4)], "split column")
    assert "split column" in refused.value.message and "at random" in refused.value.hint
    assert check_test_overlap(train, train[:2] + [f"new {i}" for i in range(8)], "test file") == [
        "2 of the 10 test texts in the test file are also training texts (the same words, apart from capitals and "
        "spaces); the test scores are somewhat too high for them."]
    assert check_test_overlap(train, ["new"], "test file") == []


def test_a_split_column_that_repeats_training_texts_as_test_is_refused() -> None:
    texts = [f"statement number {i}" for i in range(30)]
    frame = pd.DataFrame({"text": texts + texts[:10], "label": (["a", "b"] * 15) + (["a", "b"] * 5),
                          "split": ["train"] * 30 + ["test"] * 10})
    spec = ExperimentSpec(DataSpec(mapping=ColumnMapping(["text"], "label", split_column="split")),
                          evaluation=EvaluationSpec(folds=3))
    with pytest.raises(DataError, match="all of the 10 test texts are also training texts"):
        load_study_data(spec, table=frame)
