"""The data-health report of a study where a text can have several categories: per category
counts, combinations and co-occurrence, findings per category, and never a crash."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from guiapp.core.events import Progress
from guiapp.core.health.findings import HealthReport
from guiapp.core.health.label_sets import label_health, needed_texts
from guiapp.core.health.report import compute_health
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.label_sets import read_label_sets
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.study_data import load_study_data
from guiapp.core.tables.reader import read_table

COLUMNS = ["economy", "health", "environment", "migration"]


def fake_tokens(texts, on_event):
    on_event(Progress(1.0, "counted"))
    return [len(t.split()) + 2 for t in texts], "fake"


def indicator_mapping(columns=COLUMNS, **more) -> ColumnMapping:
    return ColumnMapping(text_columns=["text"], id_column="id", multi_label=True, category_columns=list(columns),
                         **more)


def check(frame, mapping, **kwargs) -> HealthReport:
    kwargs.setdefault("token_counter", fake_tokens)
    return compute_health(frame, mapping, **kwargs)


def issue(report: HealthReport, code: str):
    found = [i for i in report.issues if i.code == code]
    assert len(found) == 1, f"expected one {code!r} issue, got {[i.code for i in report.issues]}"
    return found[0]


def codes(report: HealthReport) -> set[str]:
    return {i.code for i in report.issues}


@pytest.fixture
def table(fixtures_dir) -> pd.DataFrame:
    return read_table(fixtures_dir / "multi_label_small.csv").frame


# --------------------------------------------------------------------------- the fixture


def test_the_fixture_is_ready_and_counted_per_category(table):
    report = check(table, indicator_mapping())
    assert report.verdict == "ready"
    assert (report.n_rows, report.n_coded, report.n_uncoded) == (96, 90, 6)
    assert [(c.label, c.count, c.too_small) for c in report.categories] == [
        ("economy", 35, False), ("health", 27, False), ("environment", 21, False), ("migration", 18, False)]
    assert report.categories[0].share == pytest.approx(35 / 90)
    assert issue(report, "uncoded_rows").count == 6
    assert issue(report, "no_category_texts").count == 24
    averaged = issue(report, "averaged_values")
    assert averaged.count == 8 and "counted as the category from 0.5" in averaged.explanation
    assert report.issues[0].severity == "info"


def test_label_health_on_the_report_holds_combinations_and_co_occurrence(table):
    health = check(table, indicator_mapping()).label_health
    assert health is not None
    assert health.labels == ["economy", "environment", "health", "migration"]
    assert (health.n_coded, health.n_no_category, health.n_thresholded) == (90, 24, 8)
    matrix = health.co_occurrence_matrix()
    sets = read_label_sets(table, indicator_mapping())
    y = sets.matrix[sets.coded].astype(int)
    assert (matrix == y.T @ y).all() and (np.diag(matrix) == [35, 21, 27, 18]).all()
    assert (matrix == matrix.T).all()
    counts = [c.count for c in health.combinations]
    assert counts == sorted(counts, reverse=True) and len(health.combinations) == 10
    assert health.combinations[0].labels == () and health.combinations[0].count == 24
    first_pair = next(c for c in health.combinations if len(c.labels) == 2)
    both = y[:, [health.labels.index(label) for label in first_pair.labels]].all(axis=1)
    exactly = both & (y.sum(axis=1) == 2)
    assert first_pair.count == int(exactly.sum())
    # the training texts per category are those of the run's own hold-out
    spec = ExperimentSpec(data=DataSpec(mapping=indicator_mapping()))
    data = load_study_data(spec, table=table)
    assert [c.train_count for c in health.categories] == data.y[data.split.train].sum(axis=0).tolist()


def test_the_report_is_json_ready(table):
    data = check(table, indicator_mapping()).to_dict()
    text = json.dumps(data)
    assert '"co_occurrence"' in text and data["label_health"]["n_coded"] == 90


def test_the_delimited_variant_gives_the_same_counts(fixtures_dir, table):
    frame = read_table(fixtures_dir / "multi_label_small_delimited.csv").frame
    mapping = ColumnMapping(text_columns=["text"], id_column="id", multi_label=True, category_column="topics")
    report = check(frame, mapping)
    indicator = check(table, indicator_mapping())
    assert report.categories == indicator.categories
    assert report.label_health.co_occurrence == indicator.label_health.co_occurrence
    assert "averaged_values" not in codes(report)


# --------------------------------------------------------------------------- findings per category


def test_a_category_too_small_for_the_folds_is_an_error_with_leave_out(table):
    table["arts"] = ["1" if i in (0, 1, 2, 4) else ("0" if pd.notna(table.loc[i, "economy"]) else None)
                     for i in range(len(table))]
    report = check(table, indicator_mapping([*COLUMNS, "arts"]))
    assert report.verdict == "not_ready"
    small = issue(report, "small_categories")
    assert small.title.startswith("“arts” is in fewer than 5 coded training texts")
    assert set(small.rows) == {0, 1, 2, 4}
    assert [action.label for action in small.actions] == ["Leave out “arts”"]
    assert small.actions[0].fixes.leave_out == ["arts"]
    assert next(c for c in report.categories if c.label == "arts").too_small
    assert "arts" in report.label_health.too_rare
    fixed = check(table, indicator_mapping([*COLUMNS, "arts"]), fixes=small.actions[0].fixes)
    assert fixed.verdict == "ready" and "left_out_categories" in codes(fixed)
    assert fixed.n_coded == 90  # the texts stay


def test_a_category_no_text_has_and_one_every_text_has(table):
    coded = table["economy"].notna()
    table["arts"] = np.where(coded, "0", None)
    table["politics"] = np.where(coded, "yes", None)
    report = check(table, indicator_mapping([*COLUMNS, "arts", "politics"]))
    empty, common = issue(report, "empty_categories"), issue(report, "common_categories")
    assert "“arts”" in empty.title and empty.actions[0].fixes.leave_out == ["arts"]
    assert "Every training text has the category “politics”" in common.explanation
    assert common.actions[0].fixes.leave_out == ["politics"]


def test_the_split_column_counts_training_texts_and_names_test_only_categories(table):
    table["split"] = ["test" if i < 12 else "train" for i in range(len(table))]
    table["arts"] = np.where(table["economy"].notna(), "0", None)
    table.loc[[0, 1], "arts"] = "1"
    report = check(table, indicator_mapping([*COLUMNS, "arts"], split_column="split"))
    only_test = issue(report, "test_only_categories")
    assert "“arts”" in only_test.explanation and set(only_test.rows) == {0, 1}
    health = report.label_health
    assert health.needed == 5  # a split column: the test texts are not taken from the coded texts
    trained = {c.label: c.train_count for c in health.categories}
    assert trained["arts"] == 0
    mask = (table["split"] == "train").to_numpy()
    assert trained["economy"] == int((table.loc[mask, "economy"] == "1").sum())


def test_rare_categories_are_named_without_oversampling_advice():
    n = 400
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({
        "id": [f"d{i}" for i in range(n)], "text": [f"text {i} about {rng.integers(1000)}" for i in range(n)],
        "a": rng.choice(["0", "1"], n), "b": rng.choice(["0", "1"], n), "c": ["1" if i < 7 else "0" for i in range(n)]})
    report = check(frame, indicator_mapping(["a", "b", "c"]))
    rare = issue(report, "rare_categories")
    assert "“c” (7)" in rare.explanation and "threshold" in rare.fix and "oversampling" not in rare.fix


def test_spelling_variants_of_delimited_categories_can_be_merged():
    frame = pd.DataFrame({"text": [f"text number {i}" for i in range(40)],
                          "topics": ["Economy; health", "economy", "health", "economy ; Health"] * 10})
    mapping = ColumnMapping(text_columns=["text"], multi_label=True, category_column="topics")
    report = check(frame, mapping)
    spelling = issue(report, "category_spelling")
    merged = check(frame, mapping, fixes=spelling.actions[-1].fixes)
    assert "category_spelling" not in codes(merged) and len(merged.categories) == 2


def test_a_delimited_column_of_free_text_is_pointed_out(table):
    mapping = ColumnMapping(text_columns=["id"], multi_label=True, category_column="text", label_separator="|")
    warning = issue(check(table, mapping), "too_many_categories")
    assert warning.title == "The column 'text' looks like free text, not categories"
    assert "Split at “|”" in warning.explanation


def test_unmatched_fixes_are_named(table):
    report = check(table, indicator_mapping(), fixes=CategoryFixes(leave_out=["Economy"]))
    assert "(there is “economy”)" in issue(report, "unmatched_fixes").explanation


def test_conflicting_duplicates_compare_sets_of_categories():
    frame = pd.DataFrame({"text": ["same words here", "same words here", "other"] * 4,
                          "a": ["1", "1", "0"] * 4, "b": ["0", "1", "1"] * 4})
    report = check(frame, ColumnMapping(text_columns=["text"], multi_label=True, category_columns=["a", "b"]))
    assert "conflicting_duplicates" in codes(report)
    assert {"a", "a + b"} <= set(report.duplicate_groups[0].categories)


# --------------------------------------------------------------------------- never a crash


def test_bad_indicator_values_become_a_finding_and_the_rest_is_still_checked(table):
    table.loc[3, "health"] = "maybe"
    table.loc[5, "text"] = ""
    report = check(table, indicator_mapping())
    bad = issue(report, "category_values")
    assert bad.severity == "error" and "'health'" in bad.explanation and "“maybe”" in bad.explanation
    assert "empty_texts" in codes(report)
    assert report.label_health is None and report.categories == ()


@pytest.mark.parametrize("mapping", [
    ColumnMapping(text_columns=["text"], multi_label=True),
    indicator_mapping(["economy"]),
    ColumnMapping(text_columns=["text"], multi_label=True, category_column="id"),
])
def test_odd_multi_label_mappings_give_a_report(table, mapping):
    report = check(table, mapping)
    assert report.verdict == "not_ready"
    assert codes(report) & {"no_category_column", "one_category", "too_many_categories", "small_categories"}


def test_empty_tables_and_tables_without_any_coded_text(table):
    assert issue(check(table.iloc[:0], indicator_mapping()), "no_rows").severity == "error"
    uncoded = table.assign(**{column: None for column in COLUMNS})
    assert issue(check(uncoded, indicator_mapping()), "no_coded_texts").severity == "error"


def test_leaving_out_all_but_one_category(table):
    report = check(table, indicator_mapping(), fixes=CategoryFixes(leave_out=COLUMNS[1:]))
    assert issue(report, "one_category").title == "There is only one category (“economy”)"


# --------------------------------------------------------------------------- label_health alone


def test_label_health_of_a_matrix_says_which_categories_are_too_rare():
    y = np.zeros((40, 3), dtype=np.uint8)
    y[:20, 0] = 1
    y[:7, 1] = 1
    y[30:38, 2] = 1
    health = label_health(y, ["a", "b", "c"], n_folds=5, test_share=0.3)
    assert health.needed == needed_texts(5, 0.3) == 8  # 5 folds after 30% of the texts go to the test
    assert health.too_rare == ["b"]
    assert [c.train_count for c in health.categories] == [14, 4, 5]
    assert health.n_no_category == 12  # rows 20–29 and 38–39
    assert health.combinations[0].labels == ("a",) and health.combinations[0].count == 13
    assert label_health(y, ["a", "b", "c"], n_folds=5, test_share=None).too_rare == []
    with pytest.raises(ValueError):
        label_health(y, ["a", "b"])
