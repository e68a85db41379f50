"""Scores of a study where a text can have several categories, checked against scikit-learn, and
their bootstrap intervals."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    hamming_loss,
    multilabel_confusion_matrix,
    precision_recall_fscore_support,
)

from guiapp.core.experiment.scores import metrics
from guiapp.core.experiment.scores import multilabel_metrics as ml
from guiapp.core.experiment.protocol.held_out import evaluate_on_test
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.results.experiment_result import TestResult as HeldOutScores

CATEGORIES = ["economy", "health", "crime", "culture", "sport", "never"]


def _coding(n: int, seed: int = 0, flip: float = 0.15) -> tuple[np.ndarray, np.ndarray]:
    """A coding with categories of different frequency (the last neither coded nor predicted) and
    predictions that differ from it in ``flip`` of the decisions."""
    rng = np.random.default_rng(seed)
    truth = (rng.random((n, len(CATEGORIES))) < [0.4, 0.2, 0.1, 0.05, 0.3, 0.0]).astype(np.uint8)
    predicted = truth.copy()
    flips = rng.random(truth.shape) < flip
    predicted[flips] = 1 - predicted[flips]
    predicted[:, -1] = 0
    return truth, predicted


def _present(truth: np.ndarray, predicted: np.ndarray) -> list[int]:
    return [k for k in range(truth.shape[1]) if truth[:, k].any() or predicted[:, k].any()]


def test_every_measure_matches_scikit_learn() -> None:
    truth, predicted = _coding(400)
    present = _present(truth, predicted)
    assert present == [0, 1, 2, 3, 4]  # the last category is left out of macro-F1
    expected_macro = f1_score(truth, predicted, average="macro", labels=present, zero_division=0)
    assert ml.macro_f1(truth, predicted) == pytest.approx(expected_macro)
    # scikit-learn without the label rule counts the unused category as 0: ours does not
    assert ml.macro_f1(truth, predicted) > f1_score(truth, predicted, average="macro", zero_division=0)
    assert ml.micro_f1(truth, predicted) == pytest.approx(f1_score(truth, predicted, average="micro"))
    assert ml.hamming_loss(truth, predicted) == pytest.approx(hamming_loss(truth, predicted))
    assert ml.subset_accuracy(truth, predicted) == pytest.approx(accuracy_score(truth, predicted))
    assert ml.category_confusions(truth, predicted) == multilabel_confusion_matrix(truth, predicted).tolist()
    precision, recall, f1, support = precision_recall_fscore_support(truth, predicted, zero_division=0)
    scores = ml.category_scores(truth, predicted, CATEGORIES)
    assert [s.category for s in scores] == CATEGORIES
    assert [s.precision for s in scores] == pytest.approx(precision)
    assert [s.recall for s in scores] == pytest.approx(recall)
    assert [s.f1 for s in scores] == pytest.approx(f1)
    assert [s.support for s in scores] == support.tolist()
    assert [s.predicted for s in scores] == predicted.sum(axis=0).tolist()
    assert [s.counted for s in scores] == [True] * 5 + [False]


def test_metrics_dispatch_on_indicator_matrices_and_keep_single_label() -> None:
    truth, predicted = _coding(300, seed=3)
    assert metrics.macro_f1(truth, predicted) == pytest.approx(ml.macro_f1(truth, predicted))
    assert metrics.accuracy(truth, predicted) == pytest.approx(accuracy_score(truth, predicted))
    assert metrics.confusion(truth, predicted, len(CATEGORIES)) == []
    assert [s.f1 for s in metrics.category_scores(truth, predicted, CATEGORIES)] == pytest.approx(
        [s.f1 for s in ml.category_scores(truth, predicted, CATEGORIES)])
    low, high = metrics.bootstrap_macro_f1(truth, predicted, len(CATEGORIES), 300, 1)
    assert low <= ml.macro_f1(truth, predicted) <= high
    single_true, single_pred = np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 2, 1])
    assert metrics.macro_f1(single_true, single_pred) == pytest.approx(
        f1_score(single_true, single_pred, average="macro"))


def test_the_bootstrap_intervals_hold_the_estimates_and_narrow_with_more_texts() -> None:
    small_true, small_pred = _coding(200, seed=1)
    large_true, large_pred = _coding(5000, seed=1)
    small_macro, small_cis = ml.bootstrap_intervals(small_true, small_pred, 500, 7)
    large_macro, large_cis = ml.bootstrap_intervals(large_true, large_pred, 500, 7)
    assert small_macro[0] <= ml.macro_f1(small_true, small_pred) <= small_macro[1]
    assert large_macro[0] <= ml.macro_f1(large_true, large_pred) <= large_macro[1]
    assert large_macro[1] - large_macro[0] < (small_macro[1] - small_macro[0]) / 2
    for scores, cis in ((ml.category_scores(large_true, large_pred, CATEGORIES), large_cis),):
        for score, ci in zip(scores[:-1], cis[:-1], strict=True):
            assert ci[0] <= score.f1 <= ci[1]
    assert small_cis[-1] is None and large_cis[-1] is None  # neither coded nor predicted: no interval
    # seeded: the same call gives the same interval
    assert ml.bootstrap_intervals(small_true, small_pred, 500, 7) == (small_macro, small_cis)
    assert ml.bootstrap_intervals(small_true, small_pred, 0, 7) == (None, [None] * len(CATEGORIES))


def test_the_bootstrap_resamples_whole_texts_as_a_loop_would() -> None:
    truth, predicted = _coding(60, seed=5)
    samples, seed = 40, 11
    draws = np.random.default_rng(seed).integers(0, len(truth), size=(samples, len(truth)))
    loop = [ml.macro_f1(truth[d], predicted[d]) for d in draws]
    expected = tuple(np.quantile(loop, [0.025, 0.975]))
    assert ml.bootstrap_intervals(truth, predicted, samples, seed)[0] == pytest.approx(expected)


def test_the_test_result_fills_the_multi_label_fields_and_round_trips() -> None:
    truth, predicted = _coding(250, seed=2)
    result = ml.multilabel_test_result(truth, predicted, CATEGORIES, 200, 3, 0.9)
    assert result.multi_label and result.confusion == [] and result.ci_level == 0.9
    assert result.accuracy == pytest.approx(accuracy_score(truth, predicted))
    assert result.micro_f1 == pytest.approx(f1_score(truth, predicted, average="micro"))
    assert result.hamming_loss == pytest.approx(hamming_loss(truth, predicted))
    assert result.category_confusions == multilabel_confusion_matrix(truth, predicted).tolist()
    assert result.per_category[0].f1_ci is not None and result.per_category[-1].f1_ci is None
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert HeldOutScores.from_dict(data) == result
    model = ModelResult("SVM", "bow", "svm", {}, test=result, predictions=[[0, 2], [], [1]], thresholds=[0.5] * 6)
    study = ExperimentResult({}, CATEGORIES, {}, [2, 3, 4], [None] * 3, ["a", "b", "c"], [[0], [], [1, 2]],
                             models=[model], multi_label=True)
    again = ExperimentResult.from_json(study.to_json())
    assert again.multi_label and again.test_true == [[0], [], [1, 2]]
    assert again.models[0].test == result and again.models[0].predictions == [[0, 2], [], [1]]


def test_held_out_evaluation_dispatches_on_the_shape_of_the_coding() -> None:
    truth, predicted = _coding(120, seed=4)
    data = SimpleNamespace(categories=CATEGORIES)
    spec = SimpleNamespace(evaluation=SimpleNamespace(bootstrap_samples=100), seed=5)
    found = evaluate_on_test(truth, predicted, data, spec, 0.95)
    assert found == ml.multilabel_test_result(truth, predicted, CATEGORIES, 100, 5, 0.95)
    single = evaluate_on_test(np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]),
                              SimpleNamespace(categories=["a", "b"]), spec, 0.95)
    assert not single.multi_label and single.confusion == [[2, 0], [1, 1]]


def test_every_new_measure_is_explained_in_one_line() -> None:
    for name in ("macro_f1", "micro_f1", "accuracy", "hamming_loss", "category_confusions", "f1_ci"):
        label, means = ml.MULTI_LABEL_MEASURES[name]
        assert label and means and "\n" not in means
    assert ml.MULTI_LABEL_MEASURES["hamming_loss"][1] == ml.HAMMING_LOSS_MEANS


def test_bad_shapes_are_refused_in_words() -> None:
    truth, predicted = _coding(10)
    with pytest.raises(ValueError, match="covers 10 texts"):
        ml.macro_f1(truth, predicted[:5])
    with pytest.raises(ValueError, match="only 0"):
        ml.hamming_loss(truth, predicted * 2)
    with pytest.raises(ValueError, match="categories are named"):
        ml.multilabel_test_result(truth, predicted, CATEGORIES[:3], 0, 0)
