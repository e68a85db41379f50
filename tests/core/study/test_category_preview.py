"""The category column's hint counts the categories as the data check does: spaces kept, whole
numbers as the check writes them, and after the study's fixes (merge, trim, leave out)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from guiapp.core.health.report import compute_health
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.category_preview import category_preview
from guiapp.core.study.mapping import ColumnMapping

PARTIES = ["Democrat", "Democrat ", "Republican", "Repulican", "Libertarian"]


def _table() -> pd.DataFrame:
    labels = [PARTIES[i % 5] for i in range(100)]
    return pd.DataFrame({"text": [f"utterance number {i} about taxes" for i in range(100)], "party": labels})


def _report_count(table: pd.DataFrame, fixes: CategoryFixes | None = None) -> int:
    mapping = ColumnMapping(text_columns=["text"], category_column="party")
    return len(compute_health(table, mapping, fixes=fixes).categories)


def test_the_hint_counts_what_the_data_check_counts():
    table = _table()
    preview = category_preview(table["party"])
    assert preview.written == preview.fixed == _report_count(table) == 5  # "Democrat " is a category of its own
    assert "(5 different categories)" in preview.sentence()


def test_after_a_merge_the_hint_follows_the_fixes():
    table = _table()
    fixes = CategoryFixes(trim_spaces=True, merge={"Repulican": "Republican"})
    preview = category_preview(table["party"], fixes)
    assert preview.fixed == _report_count(table, fixes) == 3
    assert "3 different categories after your fixes; 5 as written" in preview.sentence()
    left_out = CategoryFixes(trim_spaces=True, merge={"Repulican": "Republican"}, leave_out=["Libertarian"])
    assert category_preview(table["party"], left_out).fixed == 2


def test_numbers_and_hidden_spaces_are_shown_as_the_check_shows_them():
    preview = category_preview(pd.Series([1.0, 2.0, np.nan, 1.0]))
    assert preview.examples == ("1", "2") and preview.written == 2
    assert "“Democrat␣”" in category_preview(pd.Series(["Democrat ", "Democrat ", "Republican"])).sentence()
    assert "every row of this column is empty" in category_preview(pd.Series([None, None])).sentence()
