"""With the same folds and seed, the engine's grid search chooses the same setting with the same
scores as scikit-learn's GridSearchCV + imbalanced-learn Pipeline, and tests the same model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.experiment.protocol.resampling import cv_folds
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.experiment.protocol.tuning import build_folds, grid_search
from guiapp.core.features import make_representation
from guiapp.core.models.conventional import expand_grid
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.experiment.reference_search import reference_params, reference_search
from tests.core.synthetic_texts import coded_texts

SEED = 11


def engine_search(kind, options, classifier, grid, texts, y, folds, ratio, n_jobs):
    representation = make_representation(kind, options)
    prepared = representation.prepare(list(texts))
    rows = np.arange(len(texts))
    fold_data = build_folds(representation, prepared, y, rows, cv_folds(y, folds, SEED), ratio, SEED)
    points = expand_grid(classifier, grid)
    return points, *grid_search(classifier, points, fold_data, SEED, n_jobs)


def assert_same_search(results, chosen, points, search) -> None:
    reference = search.cv_results_
    ours = np.array([point.mean for point in results])
    np.testing.assert_allclose(ours, reference["mean_test_score"], rtol=0, atol=1e-12)
    for fold in range(len(results[0].fold_scores)):
        np.testing.assert_allclose(
            [point.fold_scores[fold] for point in results], reference[f"split{fold}_test_score"], atol=1e-12
        )
    assert points[chosen] == reference_params(search)
    assert chosen == search.best_index_


CASES = [
    ("bow", {}, "svm", {}, 0.25),
    ("bow", {"weighting": "tfidf", "ngram_max": 2}, "logistic_regression", {"C": [0.1, 10.0]}, None),
    ("bow", {"stem_language": None, "min_df": 0.01}, "naive_bayes", {}, 0.5),
    ("bow", {}, "xgboost", {"n_estimators": [5, 20], "max_depth": [2, 4], "learning_rate": [0.3]}, 0.25),
    ("word_vectors", {"min_count": 2}, "svm", {"kernel": ["rbf"], "C": [1.0, 10.0], "gamma": [0.01, 0.1]}, None),
]


@pytest.mark.parametrize(("kind", "options", "classifier", "grid", "ratio"), CASES, ids=lambda v: str(v)[:20])
def test_engine_equals_gridsearchcv_on_synthetic_texts(kind, options, classifier, grid, ratio) -> None:
    frame = coded_texts(240, seed=3)
    y = pd.factorize(frame["label"], sort=True)[0]
    points, results, chosen = engine_search(kind, options, classifier, grid, frame["text"], y, 4, ratio, n_jobs=1)
    search = reference_search(make_representation(kind, options), classifier, points, frame["text"], y, 4, ratio, SEED)
    assert_same_search(results, chosen, points, search)


def test_parallel_workers_give_the_same_scores_as_one_process() -> None:
    frame = coded_texts(200, seed=4)
    y = pd.factorize(frame["label"], sort=True)[0]
    grid = {"n_estimators": [5, 15], "max_depth": [3], "learning_rate": [0.1, 0.5]}
    _, serial, chosen_serial = engine_search("bow", {}, "xgboost", grid, frame["text"], y, 3, 0.25, n_jobs=1)
    _, parallel, chosen_parallel = engine_search("bow", {}, "xgboost", grid, frame["text"], y, 3, 0.25, n_jobs=2)
    assert [p.fold_scores for p in serial] == [p.fold_scores for p in parallel]
    assert chosen_serial == chosen_parallel


def test_whole_study_tests_the_model_gridsearchcv_refits(tmp_path) -> None:
    """Split, tuning, refit on all training texts and the test score match the reference."""
    frame = coded_texts(300, seed=5)
    model = ModelSpec("bow", "svm", grid={"kernel": ["linear"], "C": [0.1, 1.0, 10.0]})
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=4, oversampling="random", oversampling_ratio=0.25),
        models=[model],
        seed=SEED,
    )
    result = run_experiment(spec, table=frame, n_jobs=1)
    outcome = result.models[0]
    assert outcome.ok, outcome.message

    categories = result.categories
    y = np.array([categories.index(label) for label in frame["label"]])
    test = np.array(result.test_rows) - 2
    train = np.setdiff1d(np.arange(len(frame)), test)
    points = expand_grid("svm", model.grid)
    search = reference_search(
        make_representation("bow", {}), "svm", points, frame["text"].iloc[train], y[train], 4, 0.25, SEED
    )
    assert outcome.chosen_params == reference_params(search)
    np.testing.assert_allclose([p.mean for p in outcome.grid], search.cv_results_["mean_test_score"], atol=1e-12)
    predicted = search.predict(np.asarray(frame["text"].iloc[test], dtype=object))
    assert outcome.predictions == predicted.tolist()
    from sklearn.metrics import f1_score

    assert outcome.test.macro_f1 == pytest.approx(f1_score(y[test], predicted, average="macro"))


@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "classifier", "grid"),
    [
        ("bow", "svm", {}),
        ("word_vectors", "xgboost", {"n_estimators": [20, 60], "max_depth": [3, 5], "learning_rate": [0.1]}),
    ],
)
def test_engine_equals_gridsearchcv_on_real_tweets(shared_data, kind, classifier, grid) -> None:
    table = pd.read_csv(shared_data / "davidson2017_hate_offensive" / "labeled_data.csv")
    from sklearn.model_selection import train_test_split

    _, sample = train_test_split(table, test_size=600, stratify=table["class"], random_state=0)
    y = sample["class"].to_numpy()
    texts = sample["tweet"].tolist()
    points, results, chosen = engine_search(kind, {}, classifier, grid, texts, y, 5, 0.25, n_jobs=2)
    search = reference_search(make_representation(kind, {}), classifier, points, texts, y, 5, 0.25, SEED)
    assert_same_search(results, chosen, points, search)
