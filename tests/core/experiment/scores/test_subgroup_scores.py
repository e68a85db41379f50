"""Scores per group of test texts (party, year …): the test texts' values are looked up in the
study's table by their spreadsheet row, and a group the model gets wrong more often is flagged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import DataError
from guiapp.core.experiment.results import experiment_result as results_module
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.scores.subgroup_scores import candidate_columns, subgroup_scores, subgroup_table
from guiapp.core.stats.subgroups import NO_VALUE, TOO_FEW

PARTIES = ["Labour", "Green", "Liberal"]


def _table(n: int = 600, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "text": [f"text number {i}" for i in range(n)],
        "label": rng.choice(["a", "b", "c"], size=n),
        "party": [PARTIES[i % 3] for i in range(n)],
        "year": 1950 + (np.arange(n) * 7) % 70,
        "id": np.arange(n) + 1000,
        "note": [f"free text {i}" for i in range(n)],
    })


def _result(table: pd.DataFrame, test_positions, wrong, *, how="random hold-out", models=("SVM", "NB"),
            text_column="text") -> ExperimentResult:
    """A study whose test texts are ``table``'s rows at ``test_positions``; each model is wrong
    exactly on the texts where ``wrong`` (a function of the table row) is true."""
    categories = ["a", "b", "c"]
    true = [categories.index(label) for label in table["label"].iloc[test_positions]]
    rows = [int(p) + 2 for p in test_positions]
    results = []
    for number, name in enumerate(models):
        predictions = [(t + 1) % 3 if (number == 0 and wrong(table.iloc[p])) else t
                       for t, p in zip(true, test_positions, strict=True)]
        test = results_module.TestResult(0.9 - number / 10, None, 0.95, 0.9, [], [[0] * 3] * 3)
        results.append(ModelResult(name, "bow", "svm", {}, test=test, predictions=predictions))
    spec = {"seed": 7, "evaluation": {"bootstrap_samples": 200},
            "data": {"mapping": {"text_columns": [text_column], "category_column": "label"}}}
    return ExperimentResult(spec=spec, categories=categories, split={"how": how}, test_rows=rows,
                            test_ids=[None] * len(rows), test_texts=table[text_column].iloc[test_positions].tolist(),
                            test_true=true, models=results)


def test_the_group_the_model_gets_wrong_is_flagged_and_the_others_are_not():
    table = _table()
    positions = np.arange(1, 600, 2)  # every other row; each party has 100 test texts
    result = _result(table, positions, lambda row: row["party"] == "Green" and row.name % 4 == 1)
    scores = subgroup_scores(result, table, "party")
    svm = scores.model("SVM")
    assert [g.label for g in svm.groups] == sorted(PARTIES)
    by_party = {g.label: g for g in svm.groups}
    assert [g.label for g in svm.flagged] == ["Green"]
    assert by_party["Green"].error_rate == pytest.approx(0.5) and by_party["Labour"].error_rate == 0
    assert by_party["Green"].rest_error_rate == 0 and by_party["Green"].n_texts == 100
    # the rows are the spreadsheet rows of the group's texts
    assert all(table["party"].iloc[row - 2] == "Green" for row in by_party["Green"].rows)
    assert by_party["Green"].value == "Green"
    assert scores.model("NB").flagged == []
    assert scores.headline[0].startswith("SVM makes more mistakes on texts whose “party” is “Green” (50% wrong vs 0%")
    assert scores.samples == 200 and scores.seed == 7
    assert len(subgroup_table(scores)) == 6
    assert scores.to_dict()["models"][0]["groups"][0]["label"] == "Green"


def test_only_the_named_model_and_a_sentence_when_nothing_stands_out():
    table = _table()
    result = _result(table, np.arange(0, 600, 2), lambda row: row.name % 5 == 0)
    scores = subgroup_scores(result, table, "party", "nb")
    assert [m.model for m in scores.models] == ["NB"]
    assert scores.headline[0].startswith("No group stands out for NB")
    with pytest.raises(DataError, match="no finished model called"):
        subgroup_scores(result, table, "party", "XGBoost")


def test_a_study_with_a_test_file_looks_the_values_up_in_the_test_file():
    train, test = _table(300, seed=2), _table(240, seed=3)
    test["party"] = ["Green"] * 120 + ["Labour"] * 120
    result = _result(test, np.arange(240), lambda row: row["party"] == "Labour", how="test file")
    scores = subgroup_scores(result, train, "party", "SVM", test_table=test)
    assert {g.label: g.n_texts for g in scores.models[0].groups} == {"Green": 120, "Labour": 120}
    assert [g.label for g in scores.models[0].flagged] == ["Labour"]
    with pytest.raises(DataError, match="separate test file"):
        subgroup_scores(result, train, "party")


def test_a_table_that_was_sorted_since_the_run_is_refused():
    table = _table()
    result = _result(table, np.arange(0, 600, 2), lambda row: False)
    with pytest.raises(DataError, match="sorted or changed"):
        subgroup_scores(result, table.iloc[::-1].reset_index(drop=True), "party")
    with pytest.raises(DataError, match="has no column"):
        subgroup_scores(result, table, "outlet")
    with pytest.raises(DataError, match="not the table the study was run on"):
        subgroup_scores(result, table.iloc[:100], "party")


def test_years_with_many_values_are_cut_into_ranges_with_readable_labels():
    table = _table(1000)
    table["year"] = 1900 + np.arange(1000) % 120  # 120 distinct years
    result = _result(table, np.arange(0, 1000, 2), lambda row: row["year"] >= 1996)
    scores = subgroup_scores(result, table, "year", "SVM")
    groups = scores.models[0].groups
    assert scores.ranges and len(groups) == 5
    assert sum(g.n_texts for g in groups) == 500 and all(90 <= g.n_texts <= 110 for g in groups)
    assert groups[0].label == "1900–1922" and groups[0].value == (1900, 1922)
    assert groups[-1].label.endswith("–2018")
    assert [g.label for g in scores.models[0].flagged] == [groups[-1].label]
    assert "cut into 5 ranges" in scores.describe()


def test_empty_cells_form_their_own_group_and_small_groups_are_not_judged():
    table = _table()
    table["party"] = table["party"].astype(object)
    table.loc[table.index % 10 == 0, "party"] = None
    table.loc[table.index % 10 == 4, "party"] = "  "  # only spaces: no value either
    table.loc[table.index == 6, "party"] = "Pirate"
    result = _result(table, np.arange(0, 600, 2), lambda row: False)
    groups = subgroup_scores(result, table, "party", "SVM").models[0].groups
    assert groups[-1].label == NO_VALUE and groups[-1].value is None and groups[-1].n_texts == 120
    pirate = next(g for g in groups if g.label == "Pirate")
    assert pirate.n_texts == 1 and pirate.verdict == TOO_FEW and not pirate.flagged
    scores = subgroup_scores(result, table, "party", min_texts=500)
    assert scores.headline[0] == ("Every group of “party” has fewer than 500 test texts: too few to judge whether a "
                                  "model does worse on any of them.")
    assert scores.headline[1:] == [scores.score_note()] and "“Pirate”" in scores.score_note()  # one text, one category


def test_whole_numbers_are_groups_by_value():
    table = _table()
    table["year"] = np.where(table.index % 2 == 0, 2004.0, 2008.0)
    table.loc[2, "year"] = np.nan
    result = _result(table, np.arange(0, 600, 2), lambda row: False)
    groups = subgroup_scores(result, table, "year", "SVM").models[0].groups
    assert [(g.label, g.value) for g in groups] == [("2004", 2004), (NO_VALUE, None)]


def test_candidate_columns_leave_out_text_category_ids_and_free_text():
    table = _table()
    table["one value"] = "same"
    table["length"] = np.arange(600) % 200 * 1.5  # numbers with many values: cut into ranges
    mapping = {"text_columns": ["text"], "category_column": "label", "id_column": None}
    assert candidate_columns(table, mapping) == ["party", "year", "length"]
    table["when"] = pd.to_datetime("2001-01-01") + pd.to_timedelta(np.arange(600), unit="D")
    assert "when" in candidate_columns(table, mapping)
