"""Every pair of models compared, with Holm's correction over all the pairs.

Three ways, matching the paired tests of :mod:`paired_tests`: on the shared test set (McNemar's
test on each text's right/wrong; in a study where a text can have several categories, the paired
bootstrap of the difference in macro-F1) or across the cross-validation folds (Nadeau & Bengio's
corrected t-test on per-fold scores). The Holm correction (:mod:`holm`) is over the m·(m-1)/2 pairs, so a
reviewer's "you compared many models" is answered. Pairs are formed in the order the models are
given (A before B). Assumptions are those of the tests used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from guiapp.core.stats.holm import holm_adjust
from guiapp.core.stats.multilabel_scores import as_indicators, bootstrap_f1, macro_f1
from guiapp.core.stats.paired_tests import (
    PAIRED_BOOTSTRAP_METHOD,
    corrected_resampled_t_test,
    mcnemar,
    paired_bootstrap,
)
from guiapp.core.stats.plain_record import PlainRecord


@dataclass(frozen=True)
class PairComparison(PlainRecord):
    """One pair's test. Test-set comparisons fill ``n_only_a_right``/``n_only_b_right`` and
    ``n_texts``; fold comparisons fill ``mean_difference`` (A - B) and its interval; the paired
    bootstrap (several categories per text) fills ``n_texts`` and ``mean_difference``, the observed
    difference in test macro-F1 (A - B), with its interval (``method`` tells them apart)."""

    model_a: str
    model_b: str
    method: str
    statistic: float
    p_value: float
    p_holm: float
    n_comparisons: int
    n_texts: int | None = None
    n_only_a_right: int | None = None
    n_only_b_right: int | None = None
    mean_difference: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    level: float | None = None


def compare_on_test_set(right_by_model: Mapping[str, object]) -> list[PairComparison]:
    """McNemar's test for every pair; ``right_by_model[name]`` is that model's right/wrong per
    test text (the same texts, in the same order, for every model)."""
    return _every_pair(right_by_model, mcnemar, lambda a, r: {
        "statistic": r.statistic, "n_texts": len(right_by_model[a]),
        "n_only_a_right": r.n_only_a_right, "n_only_b_right": r.n_only_b_right,
    })  # fmt: skip


def compare_on_test_set_by_bootstrap(
    y_true, predictions_by_model: Mapping[str, object], samples: int = 1000, seed: int = 0, level: float = 0.95
) -> list[PairComparison]:
    """The paired bootstrap of the difference in macro-F1 for every pair, in a study where a text can
    have several categories: ``y_true`` and ``predictions_by_model[name]`` are texts × categories
    0/1 tables for the same test texts. All models are scored on the same resamples (seeded by
    ``seed``), once, so many pairs cost little more than one."""
    truth = as_indicators(y_true, "The coding")
    names = list(predictions_by_model)
    matrices = [as_indicators(predictions_by_model[name], f"{name}'s predictions") for name in names]
    observed = {name: macro_f1(truth, matrix) for name, matrix in zip(names, matrices, strict=True)}
    resampled = bootstrap_f1(truth, matrices, samples, seed)[0] if len(names) >= 2 else None
    column = {name: i for i, name in enumerate(names)}

    def test(a: str, b: str) -> Any:
        differences = resampled[:, column[a]] - resampled[:, column[b]]  # type: ignore[index]
        return paired_bootstrap(observed[a] - observed[b], differences, level, len(truth))

    return _every_pair({name: name for name in names}, test, lambda a, r: {
        "statistic": r.difference, "n_texts": r.n_texts, "mean_difference": r.difference,
        "ci_low": r.ci_low, "ci_high": r.ci_high, "level": r.level,
    })  # fmt: skip


def is_bootstrap(c: PairComparison) -> bool:
    """Whether ``c`` is a paired bootstrap on the test texts (several categories per text)."""
    return c.method == PAIRED_BOOTSTRAP_METHOD


def compare_across_folds(
    scores_by_model: Mapping[str, object], n_train: int, n_test: int, level: float = 0.95
) -> list[PairComparison]:
    """The corrected resampled t-test for every pair; ``scores_by_model[name]`` holds that model's
    score in each fold (the same folds, in the same order, for every model)."""
    def test(a: object, b: object) -> Any:
        return corrected_resampled_t_test(a, b, n_train, n_test, level)

    return _every_pair(scores_by_model, test, lambda a, r: {
        "statistic": r.t, "mean_difference": r.mean_difference, "ci_low": r.ci_low, "ci_high": r.ci_high,
        "level": r.level,
    })  # fmt: skip


def _every_pair(by_model: Mapping[str, object], test: Callable[[object, object], Any],
                fields: Callable[[str, Any], dict]) -> list[PairComparison]:
    """``test`` on every pair (A before B, in the models' order), Holm-adjusted over all pairs;
    ``fields(a, result)`` gives the comparison's fields that are particular to the test."""
    names = list(by_model)
    if len(names) < 2:
        raise ValueError("Comparing models needs at least two models.")
    pairs = list(combinations(names, 2))
    results = [test(by_model[a], by_model[b]) for a, b in pairs]
    adjusted = holm_adjust([r.p_value for r in results])
    return [
        PairComparison(model_a=a, model_b=b, method=r.method, p_value=r.p_value, p_holm=p_holm,
                       n_comparisons=len(pairs), **fields(a, r))
        for (a, b), r, p_holm in zip(pairs, results, adjusted, strict=True)
    ]
