"""Paired comparisons and agreement of a study's models, checked against the stats functions."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from guiapp.core.experiment.scores.comparisons import (
    agreement_with_coding,
    compare_models,
    fold_comparisons,
    headline,
    human_agreement,
)
from guiapp.core.experiment.scores.comparisons import (
    test_set_comparisons as on_test_set,
)
from guiapp.core.experiment.scores.metrics import accuracy, macro_f1
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.results.experiment_result import TestResult as HeldOutScores
from guiapp.core.stats.agreement import cohen_kappa, krippendorff_alpha
from guiapp.core.stats.agreement_intervals import bootstrap_alpha, bootstrap_kappa
from guiapp.core.stats.coder_counts import model_versus_coders
from guiapp.core.stats.holm import holm_adjust
from guiapp.core.stats.paired_tests import corrected_resampled_t_test, mcnemar

SEED = 1234
FOLDS = 5
N_TRAIN = 200


def _model(name, truth, predicted, cv_scores, representation="bow", status="done") -> ModelResult:
    truth, predicted = np.asarray(truth), np.asarray(predicted)
    model = ModelResult(name=name, representation=representation, classifier="svm", spec={}, status=status,
                        cv_scores=list(cv_scores), predictions=[int(v) for v in predicted])
    if status == "done":
        model.test = HeldOutScores(macro_f1(truth, predicted), None, 0.95, accuracy(truth, predicted), [], [])
    return model


def _result(truth, models, folds=FOLDS, samples=200) -> ExperimentResult:
    n = len(truth)
    return ExperimentResult(
        spec={"seed": SEED, "evaluation": {"folds": folds, "bootstrap_samples": samples}},
        categories=["a", "b", "c"],
        split={"how": "random", "n_train": N_TRAIN, "n_test": n},
        test_rows=list(range(n)), test_ids=list(range(n)), test_texts=[""] * n,
        test_true=[int(v) for v in truth], models=models,
    )


def _with_hits(rng, truth, hit_rate):
    right = rng.random(len(truth)) < hit_rate
    return np.where(right, truth, (truth + 1) % 3)


@pytest.fixture
def study() -> ExperimentResult:
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, size=120)
    models = [
        _model("Good", truth, _with_hits(rng, truth, 0.9), [0.80, 0.82, 0.79, 0.85, 0.81]),
        _model("Middle", truth, _with_hits(rng, truth, 0.75), [0.74, 0.70, 0.76, 0.72, 0.73]),
        _model("Weak", truth, _with_hits(rng, truth, 0.5), [0.50, 0.55, 0.52, 0.49, 0.51]),
        _model("Three folds", truth, _with_hits(rng, truth, 0.6), [0.6, 0.61, 0.58]),
        _model("Combined: stacking", truth, _with_hits(rng, truth, 0.88), [0.8, 0.8, 0.81, 0.79, 0.8],
               representation="combined"),
        _model("Broken", truth, truth, [], status="failed"),
    ]
    models[-1].test = None
    return _result(truth, models)


def test_mcnemar_for_every_pair_with_holm_over_all_pairs(study) -> None:
    pairs = on_test_set(study)
    finished = [m for m in study.ranked()]  # the failed model is left out
    assert len(finished) == 5 and len(pairs) == 10
    truth = np.asarray(study.test_true)
    by_name = {m.name: np.asarray(m.predictions) == truth for m in finished}
    raw = [mcnemar(by_name[c.model_a], by_name[c.model_b]) for c in pairs]
    assert [c.p_value for c in pairs] == pytest.approx([r.p_value for r in raw])
    assert [c.n_only_a_right for c in pairs] == [r.n_only_a_right for r in raw]
    assert [c.p_holm for c in pairs] == pytest.approx(holm_adjust([r.p_value for r in raw]))
    assert {c.n_comparisons for c in pairs} == {10}
    # A is the model ranked higher by test macro-F1
    order = [m.name for m in finished]
    assert all(order.index(c.model_a) < order.index(c.model_b) for c in pairs)


def test_fold_test_only_for_models_on_the_same_folds(study) -> None:
    compared, skipped = fold_comparisons(study)
    assert {frozenset((c.model_a, c.model_b)) for c in compared} == {
        frozenset(p) for p in [("Good", "Middle"), ("Good", "Weak"), ("Middle", "Weak")]}
    assert {c.n_comparisons for c in compared} == {3}  # Holm over the three pairs tested, not all ten
    scores = {m.name: m.cv_scores for m in study.models}
    fold_test = N_TRAIN // FOLDS
    raw = [corrected_resampled_t_test(scores[c.model_a], scores[c.model_b], N_TRAIN - fold_test, fold_test)
           for c in compared]
    assert [c.p_value for c in compared] == pytest.approx([r.p_value for r in raw])
    assert [c.statistic for c in compared] == pytest.approx([r.t for r in raw])
    assert [c.p_holm for c in compared] == pytest.approx(holm_adjust([r.p_value for r in raw]))
    assert len(skipped) == 10 - 3
    reasons = {frozenset((s.model_a, s.model_b)): s.reason for s in skipped}
    assert "3 folds, not on the study's 5" in reasons[frozenset(("Good", "Three folds"))]
    assert "combined model" in reasons[frozenset(("Good", "Combined: stacking"))]


def test_one_validation_split_is_skipped() -> None:
    truth = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    result = _result(truth, [_model("A", truth, truth, [0.7, 0.8, 0.75, 0.7, 0.72]),
                             _model("Fine-tuned", truth, truth, [0.8], representation="transformer")])
    compared, skipped = fold_comparisons(result)
    assert compared == []
    assert "one validation split" in skipped[0].reason


def test_agreement_matches_the_stats_functions_and_the_study_seed(study) -> None:
    rows = agreement_with_coding(study)
    assert [r.model for r in rows] == [m.name for m in study.ranked()]
    truth = study.test_true
    for row in rows:
        predicted = next(m.predictions for m in study.models if m.name == row.model)
        assert row.kappa == pytest.approx(cohen_kappa(truth, predicted))
        assert row.alpha == pytest.approx(krippendorff_alpha([truth, predicted]))
        assert row.kappa_interval == pytest.approx(bootstrap_kappa(truth, predicted, 200, SEED, 0.95))
        assert row.alpha_interval == pytest.approx(bootstrap_alpha([truth, predicted], 200, SEED, 0.95))
        assert row.kappa_interval[0] <= row.kappa <= row.kappa_interval[1]
        assert (row.samples, row.seed) == (200, SEED)


def test_headline_for_a_clear_difference() -> None:
    truth = np.tile([0, 1, 2], 40)
    second = truth.copy()
    second[:40] = (truth[:40] + 1) % 3  # wrong on 40 texts the best model gets right
    result = _result(truth, [_model("Runner-up", truth, second, [0.6] * 5), _model("Best", truth, truth, [0.9] * 5)])
    lines = headline(result)
    assert lines[0].startswith("Best has the highest macro-F1 on the test texts (1.00); the runner-up is Runner-up")
    assert lines[1].startswith("Best agrees with your coding more often than Runner-up (on 40 vs 0 of 120 test texts")
    assert "p < 0.001" in lines[1]
    assert len(lines) == 2  # only two models: nothing more to say


def test_headline_when_the_test_texts_cannot_separate_the_models() -> None:
    truth = np.tile([0, 1, 2], 20)
    a, b, c = truth.copy(), truth.copy(), (truth + 1) % 3
    a[:3] = (truth[:3] + 1) % 3  # A wrong on texts 0-2, B wrong on texts 3-4: 2 vs 3
    b[3:5] = (truth[3:5] + 1) % 3
    c[:30] = truth[:30]
    result = _result(truth, [_model("A", truth, a, [0.8] * 5), _model("B", truth, b, [0.81] * 5),
                             _model("C", truth, c, [0.7] * 5)])
    lines = headline(result)
    assert lines[0].startswith("B has the highest macro-F1")
    assert lines[1].startswith("The test texts cannot separate the two: 3 of them were right only with B and 2 only "
                               "with A")
    assert "Holm-corrected for 3 comparisons" in lines[1]
    assert "does not show that they are equally good" in lines[1]
    assert lines[2] == "B agrees with your coding clearly more often than the one other model."


def test_headline_with_one_or_no_finished_model() -> None:
    truth = np.array([0, 1, 2, 0])
    assert "Only one model finished" in headline(_result(truth, [_model("A", truth, truth, [])]))[0]
    assert "No model finished" in headline(_result(truth, []))[0]


def test_compare_models_collects_everything_and_serialises(study) -> None:
    found = compare_models(study)
    assert len(found.test_set) == len(found.test_set_sentences) == 10
    assert len(found.folds) == len(found.fold_sentences) == 3
    assert set(found.fold_excluded) == {"Three folds", "Combined: stacking"}
    data = json.loads(json.dumps(found.to_dict()))
    assert data["headline"] == found.headline
    assert data["test_set"][0]["sentence"] == found.test_set_sentences[0]
    assert len(data["agreement"]) == 5


def test_human_agreement_on_a_small_counts_table() -> None:
    table = pd.DataFrame({
        "hate_speech": [3, 0, 0, 1, 0, 2],
        "offensive_language": [0, 3, 1, 2, 0, 1],
        "neither": [0, 0, 2, 0, 3, 0],
    })
    columns = ["hate_speech", "offensive_language", "neither"]
    predictions = [0, 1, 2, 1, 2, 1]
    found = human_agreement(table, columns, predictions, samples=200, seed=3)
    expected = model_versus_coders(table[columns].to_numpy(), predictions)
    assert found.model_agrees_with_majority == pytest.approx(expected.model_agrees_with_majority)
    assert found.coder_agrees_with_other_coders == pytest.approx(expected.coder_agrees_with_other_coders)
    assert found.alpha_between_coders == pytest.approx(expected.alpha_between_coders)
    assert found.model_agrees_with_majority == pytest.approx(5 / 6)
    assert found.sentence.startswith(
        f"The model agrees with the majority of your coders more often than one coder agrees with the others "
        f"({5 / 6:.2f} vs {expected.coder_agrees_with_other_coders:.2f}).")
    assert "Krippendorff's alpha" in found.sentence
    by_name = human_agreement(table, columns, [columns[p] for p in predictions], samples=200, seed=3)
    assert by_name == found
    with pytest.raises(ValueError, match="not among the coder-count columns"):
        human_agreement(table, columns, ["hate"] * 6)


def test_human_agreement_about_as_often() -> None:
    table = {"x": [3, 3, 0, 0], "y": [0, 0, 3, 3]}
    found = human_agreement(table, ["x", "y"], [0, 0, 1, 1], samples=50)
    assert "about as often as" in found.sentence and "(1.00 vs 1.00)" in found.sentence
    assert found.alpha_with_model_as_coder == pytest.approx(1.0)


def test_headline_when_the_recommended_model_scored_lower_on_the_test_texts() -> None:
    truth = np.tile([0, 1, 2], 20)
    a, b = truth.copy(), truth.copy()
    a[:3] = (truth[:3] + 1) % 3  # A, better in cross-validation, is wrong on 3 test texts; B on 2
    b[3:5] = (truth[3:5] + 1) % 3
    result = _result(truth, [_model("B", truth, b, [0.7] * 5), _model("A", truth, a, [0.8] * 5)])
    assert [model.name for model in result.ranked()] == ["A", "B"]
    lines = headline(result)
    assert lines[0].startswith("A is the recommended model (0.95 on the test texts); B scored 0.97 there.")
