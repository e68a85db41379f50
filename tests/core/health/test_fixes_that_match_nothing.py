"""Category fixes that name no category of the table are a finding of the health report (shown by the
app's report like any other) and a note of the run, never silently ignored."""

from __future__ import annotations

import pandas as pd

from guiapp.core.health.report import compute_health
from guiapp.core.study.category_fixes import CategoryFixes, unmatched_fixes, unmatched_fixes_note
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.study_data import load_study_data

MAPPING = ColumnMapping(["text"], "label")


def words(texts, _on_event):
    return [len(text.split()) for text in texts], "words"


def table() -> pd.DataFrame:
    labels = ["Health"] * 20 + ["Defence"] * 20 + ["Energy "] * 20
    return pd.DataFrame({"text": [f"statement {i} on {label}" for i, label in enumerate(labels)], "label": labels})


def test_names_are_matched_as_the_fixes_apply_them() -> None:
    labels = ["Health", "Defence", "Energy "]
    assert unmatched_fixes(CategoryFixes(merge={"Energy ": "Power"}, leave_out=["Power"]), labels) == ([], [])
    assert unmatched_fixes(CategoryFixes(trim_spaces=True, merge={"Energy": "Power"}), labels) == ([], [])
    assert unmatched_fixes(CategoryFixes(merge={"Energy": "Power"}), labels) == (["Energy"], [])
    assert unmatched_fixes(CategoryFixes(leave_out=["Energy"]), labels) == ([], ["Energy"])
    assert unmatched_fixes(CategoryFixes(trim_spaces=True, leave_out=["Energy"]), labels) == ([], [])
    assert unmatched_fixes_note(CategoryFixes(trim_spaces=True), labels) is None
    note = unmatched_fixes_note(CategoryFixes(merge={"Helth": "Health"}, leave_out=["health"]), labels)
    assert note == ("2 category fixes name categories not found in the table, so they change nothing: merge “Helth” "
                    "into “Health”; leave out “health” (there is “Health”).")


def test_the_health_report_warns_about_fixes_that_match_nothing() -> None:
    fixes = CategoryFixes(merge={"Helth": "Health"}, leave_out=["Nope"])
    report = compute_health(table(), MAPPING, fixes=fixes, token_counter=words)
    found = [issue for issue in report.issues if issue.code == "unmatched_fixes"]
    assert len(found) == 1 and found[0].severity == "warning" and found[0].count == 2
    assert found[0].title == "2 category fixes match no category"
    assert "merge “Helth” into “Health”; leave out “Nope”" in found[0].explanation
    assert "[data] category_fixes" in found[0].fix
    fine = compute_health(table(), MAPPING, fixes=CategoryFixes(leave_out=["Defence"]), token_counter=words)
    assert "unmatched_fixes" not in {issue.code for issue in fine.issues}


def test_the_run_notes_fixes_that_match_nothing_and_goes_on() -> None:
    fixes = CategoryFixes(leave_out=["Nope"])
    spec = ExperimentSpec(DataSpec("texts.csv", mapping=MAPPING, category_fixes=fixes))
    data = load_study_data(spec, table=table())
    assert len(data.categories) == 3
    assert any("leave out “Nope”" in note and "category_fixes" in note for note in data.notes)
