"""Groups whose test texts all carry one category in the coding (speaker → party): their macro-F1
says nothing, so the share coded right is the score shown, and the words say why."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from guiapp.cli.subgroups_command import format_scores
from guiapp.core.experiment.results import experiment_result as results_module
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.scores.subgroup_scores import subgroup_scores, subgroup_table

PARTY_OF = {"Clinton": "Democrat", "Sanders": "Democrat", "Trump": "Republican", "Cruz": "Republican",
            "Stein": "Green"}
CATEGORIES = ["Democrat", "Green", "Republican"]


def _study(n: int = 400, mixed: bool = False) -> tuple[pd.DataFrame, ExperimentResult]:
    """Each speaker's texts are coded with the speaker's party; the model is right on 6 of 7 texts and
    otherwise answers the next party. With ``mixed`` a "Moderator" speaks for every party."""
    speakers = list(PARTY_OF) + (["Moderator"] if mixed else [])
    table = pd.DataFrame({"text": [f"utterance {i}" for i in range(n)],
                          "speaker": [speakers[i % len(speakers)] for i in range(n)]})
    table["party"] = [PARTY_OF.get(s, CATEGORIES[(i // 7) % 3]) for i, s in enumerate(table["speaker"])]
    true = [CATEGORIES.index(p) for p in table["party"]]
    predicted = [t if i % 7 else (t + 1) % 3 for i, t in enumerate(true)]
    test = results_module.TestResult(0.8, None, 0.85, 0.8, [], [[0] * 3] * 3)
    model = ModelResult("SVM · Basic BOW", "bow", "svm", {}, test=test, predictions=predicted)
    spec = {"seed": 3, "evaluation": {"bootstrap_samples": 200},
            "data": {"mapping": {"text_columns": ["text"], "category_column": "party"}}}
    result = ExperimentResult(spec=spec, categories=CATEGORIES, split={"how": "random hold-out"},
                              test_rows=list(range(2, n + 2)), test_ids=[None] * n, test_texts=table["text"].tolist(),
                              test_true=true, models=[model])
    return table, result


def test_a_group_of_one_category_shows_the_share_right_not_a_meaningless_macro_f1():
    table, result = _study()
    scores = subgroup_scores(result, table, "speaker")
    groups = scores.model("SVM · Basic BOW").groups
    assert {g.label for g in groups} == set(PARTY_OF)
    for group in groups:
        assert group.coded_categories == 1 and not group.macro_f1_meaningful
        assert math.isnan(group.macro_f1)  # not the ≈ 0.3 that macro-F1 over one category gives
        assert group.share_right == pytest.approx(1 - group.error_rate) and 0.8 < group.share_right < 0.9
        low, high = group.share_right_interval
        assert low <= group.share_right <= high
    assert scores.score_name == "share right"
    note = scores.score_note()
    assert "single category in your coding" in note and "macro-F1 is not meaningful" in note
    assert "accuracy" in note and scores.headline[-1] == note
    assert "the share the model codes as you did" in scores.describe()
    sheet = subgroup_table(scores)
    assert sheet["macro-F1"].isna().all() and (sheet["categories in your coding"] == 1).all()
    assert np.allclose(sheet["share right"], 1 - sheet["share wrong"])
    printed = format_scores(scores)
    header = next(line for line in printed.splitlines() if "texts" in line and "verdict" in line)
    assert "right" in header and "macro-F1" not in header
    trump = next(line for line in printed.splitlines() if line.strip().startswith("Trump"))
    assert "%" in trump.split()[2] and "nan" not in trump


def test_only_the_groups_of_one_category_lose_their_macro_f1():
    table, result = _study(420, mixed=True)
    scores = subgroup_scores(result, table, "speaker")
    by_label = {g.label: g for g in scores.models[0].groups}
    assert by_label["Moderator"].macro_f1_meaningful and by_label["Moderator"].coded_categories == 3
    assert 0 < by_label["Moderator"].macro_f1 <= 1
    assert not by_label["Trump"].macro_f1_meaningful
    assert scores.score_name == "macro-F1 or share right"
    assert "“Clinton”" in scores.score_note() and "“Moderator”" not in scores.score_note()
    printed = format_scores(scores)
    assert "F1/right" in printed


def test_groups_with_several_categories_keep_macro_f1_and_no_note():
    table, result = _study()
    table["half"] = np.where(np.arange(len(table)) % 2 == 0, "first", "second")
    scores = subgroup_scores(result, table, "half")
    assert scores.score_name == "macro-F1" and scores.score_note() == ""
    assert all(g.macro_f1_meaningful and not math.isnan(g.macro_f1) for g in scores.models[0].groups)


def test_the_groups_sheet_leaves_macro_f1_empty_and_says_why(tmp_path):
    import openpyxl
    import xlsxwriter

    from guiapp.core.export.excel_style import Styles
    from guiapp.core.export.excel_subgroups import write_subgroups_sheet

    table, result = _study()
    scores = subgroup_scores(result, table, "speaker")
    path = tmp_path / "groups.xlsx"
    book = xlsxwriter.Workbook(str(path))
    write_subgroups_sheet(book, Styles(book), scores)
    book.close()
    rows = list(openpyxl.load_workbook(path, read_only=True).worksheets[0].iter_rows(values_only=True))
    assert any(row[0] == scores.score_note() for row in rows)
    header_at = next(i for i, row in enumerate(rows) if row and row[0] == "model")
    header = list(rows[header_at])
    body = rows[header_at + 1:]
    assert len(body) == len(PARTY_OF)
    assert all(row[header.index("macro-F1")] is None for row in body)
    assert all(0.8 < row[header.index("share right")] < 0.9 for row in body)
