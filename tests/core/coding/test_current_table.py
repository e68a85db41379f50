"""The table as it is now — file codings + TextLab's codings − fixes − categories left out — is one
rule: the study's data (what Results counts), the Findings of the table, Predict's uncoded rows and
the Coding step's quick model all read it the same way."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.coding.coding_loop import CodingLoop
from guiapp.core.coding.codings import CodingLog, file_categories, with_codings
from guiapp.core.coding.current_table import current_categories, current_table
from guiapp.core.findings.from_table import table_findings_inputs
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.study_data import load_study_data
from tests.core.synthetic_texts import coded_texts

MAPPING = ColumnMapping(text_columns=["text"], category_column="label")
AT = "2026-01-05T10:00:00.000+00:00"


def walked_table():
    """300 texts: 120 coded in the file, 12 of them “odd” (left out); 40 coded in TextLab, one of
    them “odd” too, one a file coding of “odd” changed into “health”, and one spelled “health ”."""
    frame = coded_texts(300, seed=4)
    truth = frame["label"].copy()
    frame.loc[120:, "label"] = None
    frame.loc[list(range(0, 120, 10)), "label"] = "odd"
    log = CodingLog()
    for i, row in enumerate(range(120, 160)):
        category = "odd" if i == 0 else "health " if i == 1 else str(truth[row])
        log.record(row, category, coder="Ana", chosen_by="random", probability=1 / (180 - i), at=AT)
    log.record(10, "health", coder="Ana", chosen_by="review", file_category="odd", at=AT)
    fixes = CategoryFixes(trim_spaces=True, leave_out=["odd"])
    return frame, log, fixes


def test_the_study_the_findings_and_predict_count_the_same_texts():
    frame, log, fixes = walked_table()
    now = current_table(frame, MAPPING, log, fixes)
    assert now.n_left_out == 11 + 1  # 12 of the file less the one changed, plus the one coded “odd” here
    assert not now.left_out[10] and now.categories[10] == "health"
    assert now.categories[121] == "health"  # the spelling the study merges
    assert int(now.coded.sum()) == 120 - 11 + 40 - 1
    assert len(now.uncoded_rows()) == 300 - 160  # neither the file's nor TextLab's codings
    spec = ExperimentSpec(data=DataSpec(mapping=MAPPING, category_fixes=fixes), name="walk")
    data = load_study_data(spec, table=with_codings(frame, MAPPING, log))  # what Results counts
    assert len(data.texts) == int(now.coded.sum())
    assert any(f"{now.n_left_out:,} texts" in note for note in data.notes)

    inputs = table_findings_inputs(frame, MAPPING, log, fixes=fixes)
    assert "odd" not in inputs.categories and "health " not in inputs.categories
    assert any(note.startswith(f"{now.n_left_out:,} texts of categories left out") for note in inputs.notes)
    assert len(inputs.coded.labels) == int(now.coded.sum())
    assert inputs.probabilities.shape[0] == 300 - now.n_left_out
    findings = inputs.estimate()
    assert {share.category for share in findings.overall()} == set(inputs.categories)


def test_the_coding_step_learns_and_offers_the_table_as_it_is_now():
    frame, log, fixes = walked_table()
    in_file = file_categories(frame, MAPPING)
    now = current_categories(in_file, log, fixes)
    assert "odd" not in set(now.categories.values()) and set(now.left_out.values()) == {"odd"}
    uncoded = [row for row in frame.index if row not in in_file]
    texts = dict(zip(frame.index, frame["text"], strict=True))
    loop = CodingLoop(uncoded, [texts[row] for row in uncoded], table_texts=texts, fixes=fixes)
    counts = loop.pool.coded_counts(log, in_file)
    assert "odd" not in counts and "health " not in counts
    assert sum(counts.values()) == len(now.categories)
    result = loop.retrain(log, in_file)
    assert "odd" not in result.categories
    assert all(loop.is_open(row, log, in_file) == (row >= 160) for row in uncoded)


@pytest.mark.parametrize("fixes", [None, CategoryFixes()])
def test_without_fixes_the_table_as_it_is_now_is_the_file_with_the_codings(fixes):
    frame, log, _fixes = walked_table()
    now = current_table(frame, MAPPING, log, fixes)
    assert now.n_left_out == 0
    expected = with_codings(frame, MAPPING, log)["label"]
    assert now.categories.tolist() == [None if pd.isna(v) else str(v) for v in expected.tolist()]
    assert np.array_equal(now.coded_here.to_numpy(), np.isin(frame.index, list(log.latest())))


def test_a_table_without_a_category_column_gets_the_codings_made_here():
    frame, log, fixes = walked_table()
    bare = frame.drop(columns="label")
    now = current_table(bare, ColumnMapping(text_columns=["text"]), log, fixes)
    assert now.mapping.category_column == "category" and int(now.coded.sum()) == 41 - 1  # the review of row 10 too
    assert len(now.uncoded_rows()) == 300 - 41
