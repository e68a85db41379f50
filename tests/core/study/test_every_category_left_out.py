"""Leaving out every category: the study and the health report name that cause and the way back,
instead of saying there are no coded texts."""

from __future__ import annotations

import pytest

from guiapp.core.errors import DataError
from guiapp.core.health.report import compute_health
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.study_data import load_study_data
from tests.core.synthetic_texts import coded_texts

MAPPING = ColumnMapping(["text"], "label")


def _every_category_left_out():
    frame = coded_texts(60)
    return frame, CategoryFixes(False, {}, sorted(frame["label"].unique()))


def test_the_study_says_every_category_was_left_out_and_how_to_bring_one_back() -> None:
    frame, fixes = _every_category_left_out()
    spec = ExperimentSpec(data=DataSpec("texts.csv", None, "", MAPPING, category_fixes=fixes))
    with pytest.raises(DataError) as caught:
        load_study_data(spec, None, table=frame)
    assert "no coded texts" not in caught.value.message.lower()
    assert caught.value.message.startswith("Every coded text in the table (60) belongs to a category the study "
                                           "leaves out (“defence”, “energy”, “health”)")
    assert "press Undo next to “Applied fixes”" in caught.value.hint and "leave_out" in caught.value.hint


def test_the_health_report_gives_the_same_cause_not_an_empty_category_column() -> None:
    frame, fixes = _every_category_left_out()
    report = compute_health(frame, MAPPING, n_folds=5, fixes=fixes)
    assert report.verdict == "not_ready"
    first = report.issues[0]
    assert first.code == "every_category_left_out" and first.title == "Every category is left out"
    assert "has no category in any row" not in " ".join(issue.explanation for issue in report.issues)
    assert "press Undo next to “Applied fixes”" in first.fix
