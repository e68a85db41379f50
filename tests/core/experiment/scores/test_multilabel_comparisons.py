"""Comparisons, agreement and subgroups of a study where a text can have several categories: the
paired bootstrap replaces McNemar's test, agreement is per category, and the words say so."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import DataError
from guiapp.core.experiment.scores.coder_agreement import models_versus_coders, why_not_against_coders
from guiapp.core.experiment.scores.comparisons import (
    MULTI_LABEL_TEST_NOTE,
    agreement_with_coding,
    compare_models,
    headline,
    verdict,
)
from guiapp.core.experiment.scores.comparisons import test_set_comparisons as on_test_set
from guiapp.core.experiment.scores.multilabel_metrics import macro_f1, multilabel_test_result
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.scores.subgroup_scores import subgroup_scores
from guiapp.core.experiment.scores.thresholds import indicator, predicted_sets
from guiapp.core.stats.pairwise import compare_on_test_set_by_bootstrap

SEED = 21
SAMPLES = 300
CATEGORIES = ["economy", "health", "crime"]


def _coding(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((n, 3)) < [0.45, 0.3, 0.2]).astype(np.uint8)


def _noisy(truth: np.ndarray, share: float, seed: int, rows=None) -> np.ndarray:  # noqa: ANN001
    rng = np.random.default_rng(seed)
    flips = rng.random(truth.shape) < share
    if rows is not None:
        flips &= rows[:, None]
    return np.where(flips, 1 - truth, truth).astype(np.uint8)


def _model(name: str, truth: np.ndarray, predicted: np.ndarray, cv: float) -> ModelResult:
    test = multilabel_test_result(truth, predicted, CATEGORIES, 0, SEED)
    return ModelResult(name, "bow", "svm", {}, cv_scores=[cv + 0.001 * i for i in range(5)], test=test,
                       predictions=predicted_sets(predicted), thresholds=[0.5] * 3)


def _study(truth: np.ndarray, models: list[ModelResult], **extra) -> ExperimentResult:  # noqa: ANN003
    n = len(truth)
    spec = {"seed": SEED, "evaluation": {"folds": 5, "bootstrap_samples": SAMPLES}} | extra.pop("spec", {})
    return ExperimentResult(spec=spec, categories=CATEGORIES, split={"how": "random", "n_train": 400, "n_test": n},
                            test_rows=extra.pop("rows", list(range(2, n + 2))), test_ids=[None] * n,
                            test_texts=extra.pop("texts", [""] * n), test_true=predicted_sets(truth),
                            models=models, multi_label=True)


@pytest.fixture
def study() -> ExperimentResult:
    truth = _coding(300)
    good = _noisy(truth, 0.05, 1)
    return _study(truth, [_model("Good", truth, good, 0.8), _model("Weak", truth, _noisy(truth, 0.3, 2), 0.6),
                          _model("Twin", truth, good.copy(), 0.79)])


def test_pairs_are_compared_by_the_paired_bootstrap_with_the_study_seed(study) -> None:
    pairs = on_test_set(study)
    truth = indicator(study.test_true, 3)
    by_name = {m.name: indicator(m.predictions, 3) for m in study.models}
    expected = compare_on_test_set_by_bootstrap(truth, {m.name: by_name[m.name] for m in study.ranked()},
                                                SAMPLES, SEED)
    assert pairs == expected and len(pairs) == 3
    good_weak = next(c for c in pairs if {c.model_a, c.model_b} == {"Good", "Weak"})
    assert good_weak.p_holm < 0.05 and verdict(good_weak) == "Good scores higher"
    twins = next(c for c in pairs if {c.model_a, c.model_b} == {"Good", "Twin"})
    assert twins.mean_difference == 0 and twins.p_value == 1 and verdict(twins) == "No clear difference"


def test_compare_models_says_which_test_it_used_and_serialises(study) -> None:
    found = compare_models(study)
    assert found.notes[0] == MULTI_LABEL_TEST_NOTE.format(samples=SAMPLES)
    assert "paired bootstrap" in found.notes[0] and "not by McNemar's test" in found.notes[0]
    assert all("paired bootstrap over the test texts" in s for s in found.test_set_sentences)
    assert len(found.folds) == 3  # the fold scores are compared as before
    data = json.loads(json.dumps(found.to_dict()))
    assert data["agreement"][0]["per_category"][0]["category"] == "economy"
    assert data["test_set"][0]["method"].startswith("paired bootstrap")


def test_the_headline_when_the_two_best_cannot_be_separated(study) -> None:
    lines = headline(study)
    assert lines[0].startswith("Good has the highest macro-F1 on the test texts")
    assert lines[1].startswith("The test texts cannot separate the two: the macro-F1 of Good minus that of Twin is "
                               "+0.000")
    assert "paired bootstrap over the test texts, Holm-corrected for 3 comparisons" in lines[1]
    assert "McNemar" not in " ".join(lines)
    assert lines[-1] == "Good scores clearly higher than the one other model."


def test_the_headline_for_a_clear_difference() -> None:
    truth = _coding(300, seed=5)
    result = _study(truth, [_model("Best", truth, truth.copy(), 0.9),
                            _model("Runner-up", truth, _noisy(truth, 0.25, 3), 0.7)])
    lines = headline(result)
    assert lines[1].startswith("Best scores higher than Runner-up on the 300 test texts (macro-F1 ")
    assert "paired bootstrap over the test texts)" in lines[1] and len(lines) == 2


def test_agreement_is_per_category_with_its_mean(study) -> None:
    rows = agreement_with_coding(study)
    truth = indicator(study.test_true, 3)
    assert [r.model for r in rows] == [m.name for m in study.ranked()]
    for row in rows:
        predicted = indicator(next(m.predictions for m in study.models if m.name == row.model), 3)
        assert [c.category for c in row.per_category] == CATEGORIES and row.multi_label
        for k, category in enumerate(row.per_category):
            reference = krippendorff.alpha(reliability_data=np.vstack([truth[:, k], predicted[:, k]]),
                                           level_of_measurement="nominal")
            assert category.alpha == pytest.approx(reference)
            assert category.alpha_interval[0] <= category.alpha <= category.alpha_interval[1]
            assert (category.n_coded, category.n_predicted) == (truth[:, k].sum(), predicted[:, k].sum())
        assert row.alpha == pytest.approx(np.mean([c.alpha for c in row.per_category]))
        assert row.kappa == pytest.approx(np.mean([c.kappa for c in row.per_category]))
        assert row.share_agreeing == pytest.approx(np.all(truth == predicted, axis=1).mean())
        assert (row.samples, row.seed) == (SAMPLES, SEED)
    assert rows[0].alpha > rows[-1].alpha  # Good (or its twin) agrees better than Weak


def test_counts_of_coders_are_refused_in_words(study) -> None:
    assert "several categories" in why_not_against_coders(study)
    with pytest.raises(DataError, match="several categories"):
        models_versus_coders(study, pd.DataFrame({"a": [1] * 300}), ["a", "a", "a"])


def test_subgroups_use_the_multi_label_scores() -> None:
    n = 360
    party = np.array(["Labour", "Green", "Liberal"] * (n // 3))
    truth = _coding(n, seed=7)
    weak_on_green = _noisy(truth, 0.6, 4, rows=party == "Green")
    table = pd.DataFrame({"text": [f"text {i}" for i in range(n)], "party": party,
                          **{c: truth[:, k] for k, c in enumerate(CATEGORIES)}})
    mapping = {"text_columns": ["text"], "multi_label": True, "category_columns": CATEGORIES}
    result = _study(truth, [_model("SVM", truth, weak_on_green, 0.7), _model("Exact", truth, truth.copy(), 0.6)],
                    spec={"data": {"mapping": mapping}}, texts=table["text"].tolist())
    scores = subgroup_scores(result, table, "party")
    assert scores.multi_label and "exactly the categories you coded" in scores.describe()
    svm = {g.label: g for g in scores.model("SVM").groups}
    green = party == "Green"
    assert [g.label for g in scores.model("SVM").flagged] == ["Green"]
    assert svm["Green"].macro_f1 == pytest.approx(macro_f1(truth[green], weak_on_green[green]))
    exact_wrong = 1 - np.all(truth[green] == weak_on_green[green], axis=1).mean()
    assert svm["Green"].error_rate == pytest.approx(exact_wrong)
    assert svm["Labour"].error_rate == 0 and svm["Labour"].coded_categories == 3
    assert svm["Green"].macro_f1_interval[0] <= svm["Green"].macro_f1 <= svm["Green"].macro_f1_interval[1]
    assert scores.model("Exact").flagged == [] and "party" in scores.to_dict()["column"]
