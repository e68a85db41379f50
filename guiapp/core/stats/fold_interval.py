"""The confidence interval of a model's mean cross-validation score.

The folds of k-fold cross-validation share most of their training texts, so their scores are not
independent and the plain t-interval across folds is too narrow. Nadeau & Bengio's correction
(``paired_tests.corrected_resampled_t_test``) widens the variance by the share of texts each
fold holds out; the interval of the mean score is that test's interval for the scores against 0.
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_FOLDS = 3  # with two scores the interval is too wide to say anything


def fold_sizes(n_train: int, folds: int) -> tuple[int, int]:
    """(texts a fold trains on, texts it scores) when ``n_train`` texts are split into ``folds``
    folds: each holds out a k-th of them (the smaller size when they do not divide evenly)."""
    held_out = n_train // folds
    return n_train - held_out, held_out


def fold_interval(scores: Sequence[float], n_train: int, folds: int | None = None,
                  level: float = 0.95) -> tuple[float, float] | None:
    """The ``level`` interval of the mean of ``scores`` (one per fold, r × k with repeated
    cross-validation), corrected for the folds' overlapping training texts. ``n_train``: the
    training texts split into the folds; ``folds``: k (the number of scores when not given).
    None with fewer than three scores or fewer training texts than folds."""
    if len(scores) < MIN_FOLDS:
        return None
    k = int(folds or len(scores))
    if k < 2 or n_train < k:
        return None
    from guiapp.core.stats.paired_tests import corrected_resampled_t_test

    found = corrected_resampled_t_test(list(scores), [0.0] * len(scores), *fold_sizes(n_train, k), level)
    return found.ci_low, found.ci_high
