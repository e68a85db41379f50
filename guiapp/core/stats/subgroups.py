"""Does the model do worse for some kinds of texts (a party, a year, an outlet)?

Per group of test texts: the count, macro-F1 (:mod:`classification_scores`, or any metric passed
in), the error rate (share of texts where the model disagrees with the human coding), and
percentile bootstrap intervals for both (resampling the group's texts; seeded per group).

**The rule for "much worse".** A group is judged only if it has at least ``min_texts`` texts (30 by
default) and there are texts outside it; smaller groups are reported as "too few texts to judge".
A judged group is flagged when the lower end of its error-rate bootstrap interval lies above the
error rate of all texts outside the group. That interval is Bonferroni-widened to level
1 - (1 - level)/g over the g judged groups, so that with many groups one is not flagged merely by
chance (family-wise, like Holm's correction for the model comparisons). The sentences quote the
ordinary ``level`` interval. Assumes the test texts are independent; the rest's error rate is
taken as known, which is reasonable when the rest is much larger than the group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from guiapp.core.stats.agreement import sorted_categories
from guiapp.core.stats.classification_scores import bootstrap_scores, macro_f1
from guiapp.core.stats.plain_record import PlainRecord

MUCH_WORSE = "much worse"
NOT_CLEARLY_WORSE = "not clearly worse"
TOO_FEW = "too few texts to judge"
NO_VALUE = "(no value)"


@dataclass(frozen=True)
class GroupResult(PlainRecord):
    group: object
    n_texts: int
    macro_f1: float
    macro_f1_interval: tuple[float, float]
    error_rate: float
    error_interval: tuple[float, float]
    rest_error_rate: float | None  # None when the group holds every text
    verdict: str  # MUCH_WORSE, NOT_CLEARLY_WORSE or TOO_FEW
    sentence: str

    @property
    def flagged(self) -> bool:
        return self.verdict == MUCH_WORSE


def _percent(share: float) -> str:
    return f"{share:.1%}" if 0 < share < 0.1 else f"{share:.0%}"


def _group_keys(groups) -> list:
    return [NO_VALUE if v is None or (isinstance(v, float) and v != v) else v for v in groups]


def _resampled(y_true, y_pred, n_classes, metric, samples, rng):
    if metric is None:
        return bootstrap_scores(y_true, y_pred, n_classes, samples, rng)
    n = len(y_true)
    draws = rng.integers(0, n, size=(samples, n))
    scores = np.array([metric(y_true[d], y_pred[d]) for d in draws], dtype=float)
    return scores, (y_true[draws] != y_pred[draws]).mean(axis=1)


def _quantiles(values: np.ndarray, level: float) -> tuple[float, float]:
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def subgroup_report(
    y_true,
    y_pred,
    groups,
    n_classes: int,
    metric: Callable[[np.ndarray, np.ndarray], float] | None = None,
    min_texts: int = 30,
    samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    label: str = "group",
) -> list[GroupResult]:
    """One result per group value (sorted; missing values form the group "(no value)").
    ``y_true``/``y_pred`` are category numbers; ``metric(y_true, y_pred)`` replaces macro-F1;
    ``label`` names the grouping in the sentences ("party", "year")."""
    y_true = np.asarray(y_true, dtype=int)
    y_pred = np.asarray(y_pred, dtype=int)
    keys = _group_keys(groups)
    if not (len(y_true) == len(y_pred) == len(keys)):
        raise ValueError("Coding, predictions and groups must have one value per test text.")
    if samples < 1 or not 0 < level < 1:
        raise ValueError("Need at least one resample and a confidence level between 0 and 1.")
    score = metric or (lambda t, p: macro_f1(t, p, n_classes))
    wrong = y_true != y_pred
    names = sorted_categories(keys)
    members = {name: np.array([k == name for k in keys], dtype=bool) for name in names}
    judged = [n for n in names if members[n].sum() >= min_texts and (~members[n]).any()]
    flag_level = 1 - (1 - level) / max(len(judged), 1)
    results = []
    for number, name in enumerate(names):
        inside = members[name]
        t, p = y_true[inside], y_pred[inside]
        rng = np.random.default_rng([seed, number])
        f1s, errors = _resampled(t, p, n_classes, metric, samples, rng)
        error = float(wrong[inside].mean())
        rest = float(wrong[~inside].mean()) if (~inside).any() else None
        interval = _quantiles(errors, level)
        if name not in judged:
            verdict = TOO_FEW
        elif _quantiles(errors, flag_level)[0] > rest:
            verdict = MUCH_WORSE
        else:
            verdict = NOT_CLEARLY_WORSE
        sentence = _sentence(label, name, int(inside.sum()), error, interval, rest, verdict, level, min_texts)
        results.append(
            GroupResult(name, int(inside.sum()), score(t, p), _quantiles(f1s, level), error, interval, rest,
                        verdict, sentence)
        )
    return results


def _sentence(label, name, n, error, interval, rest, verdict, level, min_texts) -> str:
    texts = f"Texts with {label} {name} ({n:,})"
    if verdict == TOO_FEW:
        if rest is None:
            return f"All texts have {label} {name}: there is nothing to compare them with."
        return f"Only {n:,} texts with {label} {name}: too few texts to judge (at least {min_texts:,} are needed)."
    numbers = (
        f"{_percent(error)} of them disagree with your coding ({level:.0%} interval {_percent(interval[0])} "
        f"to {_percent(interval[1])}), against {_percent(rest)} of all other texts"
    )
    if verdict == MUCH_WORSE:
        return f"{texts} are coded wrongly clearly more often than the rest: {numbers}."
    return (
        f"{texts} are not clearly worse off than the rest: {numbers}. "
        f"This does not show that the model works equally well for them."
    )
