"""Several categories per text: the study's data from a file through a study spec, the hold-out
and the folds by iterative stratification, and the checks a run makes before it starts."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import DataError
from guiapp.core.events import Log
from guiapp.core.experiment.protocol.resampling import cv_folds, oversample
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.split import random_holdout
from guiapp.core.study.study_data import check_fold_sizes, load_study_data
from guiapp.core.tables.reader import read_table

CATEGORIES = ["economy", "environment", "health", "migration"]


def indicator_spec(source, **evaluation) -> ExperimentSpec:
    mapping = ColumnMapping(text_columns=["text"], id_column="id", multi_label=True,
                            category_columns=["economy", "health", "environment", "migration"])
    return ExperimentSpec(data=DataSpec(source=str(source), mapping=mapping), evaluation=EvaluationSpec(**evaluation))


def delimited_spec(source, **evaluation) -> ExperimentSpec:
    mapping = ColumnMapping(text_columns=["text"], id_column="id", multi_label=True, category_column="topics")
    return ExperimentSpec(data=DataSpec(source=str(source), mapping=mapping), evaluation=EvaluationSpec(**evaluation))


def rare_matrix(n: int = 120, rare: int = 5, seed: int = 0) -> np.ndarray:
    """Three common categories and one of ``rare`` texts, some of them with other categories too."""
    rng = np.random.default_rng(seed)
    y = (rng.random((n, 4)) < [0.45, 0.3, 0.2, 0.0]).astype(np.uint8)
    y[rng.choice(n, rare, replace=False), 3] = 1
    return y


# --------------------------------------------------------------------------- from the file


def test_the_fixture_through_a_spec_gives_the_indicator_matrix_and_the_notes(fixtures_dir):
    logs = []
    data = load_study_data(indicator_spec(fixtures_dir / "multi_label_small.csv"), on_event=logs.append)
    assert data.multi_label
    assert data.categories == CATEGORIES
    assert data.y.shape == (90, 4) and data.y.dtype == np.uint8
    assert data.y.sum(axis=0).tolist() == [35, 21, 27, 18]
    table = read_table(fixtures_dir / "multi_label_small.csv").frame
    first = table.iloc[0]  # t001: economy, health, migration
    assert data.ids[0] == "t001" and data.texts[0] == first["text"] and data.rows[0] == 2
    assert data.y[0].tolist() == [1, 0, 1, 1]
    assert "t008" not in data.ids  # every category cell empty: uncoded
    assert "6 texts in the table have no category yet and are not used." in data.notes
    assert "24 coded texts have none of the categories." in data.notes
    assert "8 values between 0 and 1 (averaged coders) were counted as the category from 0.5." in data.notes
    assert [log.message for log in logs if isinstance(log, Log)] == data.notes
    # the random hold-out keeps every category among both the training and the test texts
    assert len(data.split.test) == 27 and len(data.split.train) == 63
    assert (data.y[data.split.train].sum(axis=0) >= 5).all()
    assert (data.y[data.split.test].sum(axis=0) >= 1).all()


def test_the_delimited_variant_gives_the_same_study(fixtures_dir):
    indicator = load_study_data(indicator_spec(fixtures_dir / "multi_label_small.csv"))
    delimited = load_study_data(delimited_spec(fixtures_dir / "multi_label_small_delimited.csv"))
    assert delimited.categories == indicator.categories
    assert (delimited.y == indicator.y).all()
    assert delimited.texts == indicator.texts
    assert (delimited.split.test == indicator.split.test).all()  # the same seed, the same hold-out
    assert not any("averaged coders" in note for note in delimited.notes)


def test_the_hold_out_is_the_same_each_time_and_follows_the_seed(fixtures_dir):
    spec = indicator_spec(fixtures_dir / "multi_label_small.csv")
    first, again = load_study_data(spec), load_study_data(spec)
    assert (first.split.test == again.split.test).all()
    spec.seed = spec.seed + 1
    assert not np.array_equal(load_study_data(spec).split.test, first.split.test)


def test_a_split_column_decides_the_test_texts(fixtures_dir):
    table = read_table(fixtures_dir / "multi_label_small.csv").frame
    table["split"] = ["test" if i % 4 == 0 else "train" for i in range(len(table))]
    spec = indicator_spec(fixtures_dir / "multi_label_small.csv")
    spec.data.mapping.split_column = "split"
    data = load_study_data(spec, table=table)
    assert data.split.how == "split column"
    marked = set(table.loc[table["split"].eq("test") & table["economy"].notna(), "id"])
    assert {data.ids[i] for i in data.split.test} == marked and len(marked) == 24
    assert list(data.split.train) == list(range(len(data.split.train)))  # training texts first


def test_a_test_file_brings_its_own_texts_and_its_categories_join_the_study(tmp_path, fixtures_dir):
    table = read_table(fixtures_dir / "multi_label_small.csv").frame
    train, test = table.iloc[:70], table.iloc[70:].copy()
    train.to_csv(tmp_path / "train.csv", index=False)
    test["economy"] = test["economy"].replace({"1": "yes", "0": "no"})
    test.to_csv(tmp_path / "test.csv", index=False)
    spec = indicator_spec(tmp_path / "train.csv")
    spec.data.test_source = "test.csv"
    data = load_study_data(spec, spec_file=tmp_path / "study.toml")
    assert data.split.how == "test file" and data.test_rows_in == "test.csv"
    n_test = int(test[["economy", "health", "environment", "migration"]].notna().any(axis=1).sum())
    assert len(data.split.test) == n_test
    assert data.y[data.split.test, 0].sum() == (test["economy"] == "yes").sum()


def test_categories_left_out_and_merged_per_category(tmp_path, fixtures_dir):
    shutil.copy(fixtures_dir / "multi_label_small_delimited.csv", tmp_path / "topics.csv")
    spec = delimited_spec(tmp_path / "topics.csv")
    spec.data.category_fixes = CategoryFixes(merge={"environment": "health"}, leave_out=["migration"])
    data = load_study_data(spec)
    assert data.categories == ["economy", "health"]
    assert len(data.texts) == 90  # no text is left out with its category
    assert any(note.startswith("18 coded texts in the table have a category the study leaves out (“migration”)")
               for note in data.notes)


def test_a_category_no_text_has_stops_the_run_with_its_name(fixtures_dir):
    table = read_table(fixtures_dir / "multi_label_small.csv").frame
    table["arts"] = "0"
    spec = indicator_spec(fixtures_dir / "multi_label_small.csv")
    spec.data.mapping.category_columns.append("arts")
    with pytest.raises(DataError, match="No coded text has the category “arts”") as caught:
        load_study_data(spec, table=table)
    assert "Untick its column" in caught.value.hint


def test_a_category_too_small_for_the_folds_uses_the_runs_words(fixtures_dir):
    table = read_table(fixtures_dir / "multi_label_small.csv").frame
    table["arts"] = ["1" if i in (1, 2, 4, 5) else "0" for i in range(len(table))]
    spec = indicator_spec(fixtures_dir / "multi_label_small.csv")
    spec.data.mapping.category_columns.append("arts")
    with pytest.raises(DataError, match=r"Only \d training texts? (has|have) the category “arts”, fewer than the 5 "
                                        "cross-validation folds") as caught:
        load_study_data(spec, table=table)
    assert "at most" in caught.value.hint or "No number of folds" in caught.value.hint


def test_a_category_of_one_text_cannot_be_held_out(fixtures_dir):
    table = read_table(fixtures_dir / "multi_label_small.csv").frame
    table["arts"] = ["1" if i == 1 else "0" for i in range(len(table))]
    spec = indicator_spec(fixtures_dir / "multi_label_small.csv")
    spec.data.mapping.category_columns.append("arts")
    with pytest.raises(DataError, match="has only 1 coded text, so it cannot be among both"):
        load_study_data(spec, table=table)


def test_a_category_every_training_text_has_stops_the_run(fixtures_dir):
    table = read_table(fixtures_dir / "multi_label_small.csv").frame
    table["politics"] = table["economy"].where(table["economy"].isna(), "1")
    spec = indicator_spec(fixtures_dir / "multi_label_small.csv")
    spec.data.mapping.category_columns.append("politics")
    with pytest.raises(DataError, match="Every training text has the category “politics”") as caught:
        load_study_data(spec, table=table)
    assert "Leave it out" in caught.value.hint


def test_one_category_is_not_a_study(fixtures_dir):
    spec = indicator_spec(fixtures_dir / "multi_label_small.csv")
    spec.data.category_fixes = CategoryFixes(leave_out=["health", "environment", "migration"])
    with pytest.raises(DataError, match="fewer than two categories \\(“economy”\\)"):
        load_study_data(spec)


def test_no_category_columns_chosen(fixtures_dir):
    spec = indicator_spec(fixtures_dir / "multi_label_small.csv")
    spec.data.mapping.category_columns = []
    with pytest.raises(DataError, match="The study has no category columns"):
        load_study_data(spec)


# --------------------------------------------------------------------------- hold-out and folds


@pytest.mark.parametrize("rare", [5, 6])
def test_iterative_folds_put_a_rare_category_in_every_validation_fold(rare):
    for seed in range(5):
        y = rare_matrix(rare=rare, seed=seed)
        folds = cv_folds(y, 5, seed=seed)
        assert len(folds) == 5
        validation = np.concatenate([part for _, part in folds])
        assert sorted(validation.tolist()) == list(range(len(y)))  # each text validated once
        for train, part in folds:
            assert set(train.tolist()).isdisjoint(part.tolist())
            assert (y[part].sum(axis=0) >= 1).all(), (seed, y[part].sum(axis=0))


def test_iterative_folds_are_deterministic_with_the_seed_and_repeats_draw_new_ones():
    y = rare_matrix(seed=4)
    once, again = cv_folds(y, 5, seed=11), cv_folds(y, 5, seed=11, repeats=2)
    assert len(again) == 10
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(once, again[:5], strict=True))
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(again[:5], again[5:], strict=True))
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(once, cv_folds(y, 5, seed=12), strict=True))


def test_the_texts_without_a_common_category_are_spread_over_the_folds_too():
    for seed in range(10):  # plain iterative stratification puts two of them in one fold for several seeds
        rng = np.random.default_rng(seed)
        y = (rng.random((100, 3)) < [0.3, 0.4, 0.0]).astype(np.uint8)
        y[:, 2] = 1
        y[rng.choice(100, 5, replace=False), 2] = 0  # five texts without the common category
        assert [int((y[part, 2] == 0).sum()) for _, part in cv_folds(y, 5, seed=seed)] == [1] * 5


def test_the_hold_out_keeps_each_category_in_both_parts():
    for seed in range(10):
        y = rare_matrix(n=80, rare=3, seed=seed)
        split = random_holdout(y, 0.2, seed)
        assert (y[split.train].sum(axis=0) >= 1).all() and (y[split.test].sum(axis=0) >= 1).all()
        assert abs(len(split.test) - 16) <= 2
        assert sorted(np.concatenate([split.train, split.test]).tolist()) == list(range(80))


def test_a_category_of_two_texts_ends_up_in_both_parts_of_a_small_test_share():
    y = np.zeros((40, 2), dtype=np.uint8)
    y[:20, 0] = 1
    y[[3, 30], 1] = 1
    split = random_holdout(y, 0.1, seed=2)
    assert y[split.train, 1].sum() == 1 and y[split.test, 1].sum() == 1


def test_the_fold_check_counts_texts_with_and_without_each_category():
    y = np.zeros((30, 3), dtype=np.uint8)
    y[:10, 0] = 1
    y[:3, 1] = 1
    y[:, 2] = 1
    with pytest.raises(DataError, match=r"Only 3 training texts have the category “b”"):
        check_fold_sizes(y, 5, ["a", "b", "c"])
    y[:8, 1] = 1
    with pytest.raises(DataError, match=r"Every training text has the category “c”"):
        check_fold_sizes(y, 5, ["a", "b", "c"])
    y[:2, 2] = 0
    with pytest.raises(DataError, match=r"Only 2 training texts do not have the category “c”"):
        check_fold_sizes(y, 5, ["a", "b", "c"])
    y[:6, 2] = 0
    check_fold_sizes(y, 5, ["a", "b", "c"])


def test_oversampling_says_it_needs_one_category_per_text():
    with pytest.raises(DataError, match="one category per text"):
        oversample(np.zeros((4, 1)), np.eye(4, 2, dtype=np.uint8), 0.5, seed=1)


def test_single_label_folds_and_hold_out_are_unchanged():
    y = np.array([0, 1, 2] * 10)
    folds = cv_folds(y, 5, seed=3)
    from sklearn.model_selection import StratifiedKFold
    expected = list(StratifiedKFold(5, shuffle=True, random_state=3).split(np.zeros(30), y))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, expected, strict=True))
    assert random_holdout(y, 0.3, 3).test.ndim == 1


def test_study_data_of_one_category_per_text_is_not_multi_label():
    frame = pd.DataFrame({"text": [f"text {i}" for i in range(30)], "label": ["a", "b"] * 15})
    spec = ExperimentSpec(data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")))
    data = load_study_data(spec, table=frame)
    assert not data.multi_label and data.y.ndim == 1
