"""The findings of a table's own texts: its coded and uncoded texts are the corpus, the file's and the
Coding step's codings correct the quick model's counts, weighted by how they were chosen."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.coding.codings import Coding, CodingLog
from guiapp.core.errors import DataError
from guiapp.core.findings import CodingStepDraws, RandomSample
from guiapp.core.findings.from_table import table_findings_inputs
from guiapp.core.study.mapping import ColumnMapping
from tests.core.synthetic_texts import coded_texts

AT = "2026-01-05T10:00:00.000+00:00"
MAPPING = ColumnMapping(text_columns=["text"], category_column="label")


def table(n: int = 400, coded: int = 120, seed: int = 3):
    frame = coded_texts(n, seed=seed)
    frame["party"] = np.where(np.arange(n) % 3 == 0, "red", "blue")
    truth = frame["label"].copy()
    frame.loc[frame.index[coded:], "label"] = None  # the rest is the corpus to measure
    return frame, truth


def test_the_file_codings_are_a_random_sample_and_the_intervals_hold_the_truth():
    frame, truth = table()
    inputs = table_findings_inputs(frame, MAPPING, categories=["energy", "health"])
    assert inputs.design == RandomSample() and not inputs.chosen_by_coding_step
    assert inputs.categories == ("energy", "health", "defence")  # the order asked for, then the rest
    assert inputs.probabilities.shape == (400, 3)
    assert np.allclose(inputs.probabilities.sum(axis=1), 1)
    assert sorted(inputs.coded.positions.tolist()) == list(range(120))
    assert inputs.columns() == ["party"]  # not the texts, not the codings
    findings = inputs.estimate()
    assert findings.n_texts == 400 and findings.n_coded == 120
    for share in findings.overall():
        assert share.low <= (truth == share.category).mean() <= share.high
    by_party = inputs.estimate("party", stratified=True)
    assert set(by_party.groups) == {"red", "blue"} and "each group" in by_party.assumption


def test_texts_the_coding_step_drew_are_weighted_by_their_chance():
    frame, truth = table()
    open_rows = list(frame.index[120:])
    entries = [Coding(row, truth[row], "ana", AT, "uncertainty", 1.5 / (len(open_rows) - i), source="table")
               for i, row in enumerate(open_rows[:30])]
    entries.append(Coding("elsewhere-1", "health", "ana", AT, "random", 0.5, source="second file"))
    inputs = table_findings_inputs(frame, MAPPING, CodingLog(entries))
    assert isinstance(inputs.design, CodingStepDraws) and inputs.chosen_by_coding_step
    assert len(inputs.coded.labels) == 150
    assert any("second file" in note for note in inputs.notes)
    findings = inputs.estimate()
    assert findings.method_key == "sequential" and "chance" in findings.assumption
    with pytest.raises(DataError, match="Coding step"):
        inputs.estimate("party", stratified=True)


def test_too_few_codings_or_one_category_say_what_to_do():
    frame, _truth = table(coded=5)
    with pytest.raises(DataError, match="Only 5 texts") as raised:
        table_findings_inputs(frame, MAPPING)
    assert "Code at least" in raised.value.hint
    frame, _truth = table()
    frame.loc[frame.index[:120], "label"] = "health"
    with pytest.raises(DataError, match="same category"):
        table_findings_inputs(frame, MAPPING)
    with pytest.raises(DataError, match="column"):
        table_findings_inputs(table()[0], MAPPING).estimate("nowhere")


def test_the_data_steps_fixes_merge_spellings_and_leave_out_categories():
    from guiapp.core.study.category_fixes import CategoryFixes

    frame, _truth = table()
    coded = frame.index[:120]
    frame.loc[coded[:10], "label"] = frame.loc[coded[:10], "label"].str.upper()  # "HEALTH": a spelling of health
    frame.loc[coded[10:14], "label"] = "unsure"
    fixes = CategoryFixes(False, {label.upper(): label for label in ("health", "defence", "energy")}, ["unsure"])
    inputs = table_findings_inputs(frame, MAPPING, fixes=fixes)
    assert set(inputs.categories) == {"health", "defence", "energy"}
    assert len(inputs.probabilities) == 396 and len(inputs.coded.labels) == 116
    assert any("4 texts of categories left out" in note for note in inputs.notes)


def test_every_category_left_out_is_named_as_the_cause():
    from guiapp.core.study.category_fixes import CategoryFixes

    frame, _truth = table()
    fixes = CategoryFixes(False, {}, sorted(frame["label"].dropna().unique()))
    with pytest.raises(DataError, match="belongs to a category the study leaves out") as raised:
        table_findings_inputs(frame, MAPPING, fixes=fixes)
    assert "Only 0" not in str(raised.value) and "Undo" in raised.value.hint
