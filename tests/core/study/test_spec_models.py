"""The evaluation and model parts of a study file: round trips and readable refusals."""

from __future__ import annotations

import pytest

from guiapp.core.models.conventional import expand_grid, normalise_grid
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import (
    DEFAULT_MODELS,
    EvaluationSpec,
    ModelSpec,
    available_models,
)
from guiapp.core.study.spec import DataSpec, ExperimentSpec, SpecError


def full_spec() -> ExperimentSpec:
    return ExperimentSpec(
        name="Stance",
        seed=7,
        data=DataSpec("train.csv", mapping=ColumnMapping(text_columns=["text"], category_column="label"), test_source="test.csv"),
        evaluation=EvaluationSpec(test_share=0.25, folds=4, oversampling="random", oversampling_ratio=0.5, bootstrap_samples=200),
        models=[
            ModelSpec("bow", "svm", {"stem_language": None, "weighting": "tfidf", "ngram_max": 2}, {"C": [1.0, 10.0]}),
            ModelSpec("word_vectors", "xgboost", {"min_count": 5}, {"n_estimators": [100], "max_depth": [3, 6]}, name="Trees"),
            ModelSpec("sentence_embeddings", "logistic_regression"),
        ],
    )


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_whole_study_round_trips(tmp_path, suffix) -> None:
    spec = full_spec()
    path = tmp_path / f"study{suffix}"
    spec.save(path)
    again = ExperimentSpec.load(path)
    assert again == spec
    assert again.models[0].representation_options["stem_language"] is None  # "no stemming" survives TOML
    assert again.test_source_path(path) == tmp_path / "test.csv"


def test_model_names_and_defaults() -> None:
    assert ModelSpec("bow", "svm").display_name == "SVM · Basic BOW"
    assert ModelSpec("bow", "svm", name="Mine").display_name == "Mine"
    assert len(expand_grid("svm", {})) == 12  # the paper's grid: 3 linear + 3 × 3 RBF
    assert all("gamma" not in point for point in expand_grid("svm", {}) if point["kernel"] == "linear")
    assert len(expand_grid("xgboost", {})) == 12
    assert set(DEFAULT_MODELS) <= set(available_models())
    assert ("word_vectors", "naive_bayes") not in available_models()


@pytest.mark.parametrize(
    ("models", "message"),
    [
        ([{"representation": "bag"}], "Unknown representation 'bag'"),
        ([{"classifier": "forest"}], "Unknown classifier 'forest'"),
        ([{"classifier": "svm", "grid": {"C": ["abc"]}}], "must be a number"),
        ([{"classifier": "svm", "grid": {"C": [-1]}}], "larger than 0"),
        ([{"classifier": "svm", "grid": {"kernel": ["poly"]}}], "cannot be 'poly'"),
        ([{"classifier": "xgboost", "grid": {"max_depth": [2.5]}}], "whole number"),
        ([{"classifier": "svm", "grid": {"degree": [3]}}], "unknown setting"),
        ([{"representation": "word_vectors", "classifier": "naive_bayes"}], "Naive Bayes only works"),
        ([{"representation": "bow", "representation_options": {"min_df": 0.5, "max_df": 0.1}}], "min"),
        ([{"representation": "bow", "representation_options": {"stemming": "english"}}], "stemming"),
        ([{"representation": "bow", "colour": "red"}], "Unknown setting(s) in model 1"),
    ],
)
def test_bad_models_are_refused_with_a_sentence(models, message) -> None:
    with pytest.raises(SpecError) as info:
        ExperimentSpec.from_dict({"models": models})
    assert message.lower() in (info.value.message + " " + info.value.hint).lower()


@pytest.mark.parametrize(
    ("evaluation", "message"),
    [
        ({"folds": 1}, "between 2 and 20"),
        ({"test_share": 0.95}, "between 0.05 and 0.9"),
        ({"oversampling": "smote"}, 'oversampling is "smote".*one of: "off", "random"'),
        ({"oversampling_ratio": 0}, "above 0"),
        ({"folds": "five"}, "whole number"),
    ],
)
def test_bad_evaluation_settings_are_refused(evaluation, message) -> None:
    with pytest.raises(SpecError, match=message):
        ExperimentSpec.from_dict({"evaluation": evaluation})


def test_test_file_and_split_column_exclude_each_other() -> None:
    with pytest.raises(SpecError, match="both a test file and a split column"):
        ExperimentSpec.from_dict({"data": {"test_source": "t.csv", "mapping": {"split_column": "part"}}})


def test_grid_values_are_converted_and_repeats_dropped() -> None:
    assert normalise_grid("svm", {"C": [1, "10", 1.0], "kernel": "RBF"})["C"] == [1.0, 10.0]
    assert normalise_grid("svm", {"kernel": "RBF"})["kernel"] == ["rbf"]
