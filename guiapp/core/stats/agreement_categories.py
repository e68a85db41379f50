"""Agreement of two codings per category, when a text can have several categories.

Each category is its own yes/no coding: both coders (a model counts as one) say for every text
whether it belongs to the category. Per category this gives Krippendorff's alpha (nominal, two
values; :mod:`agreement`) and Cohen's kappa of the 2×2 table, and their unweighted mean over the
categories where they are defined (a category neither coder used has no alpha or kappa and is left
out of the mean). Intervals are percentile bootstraps over the texts (:mod:`agreement_intervals`:
whole texts drawn with replacement, seeded): one set of resamples gives every category's interval
and the interval of the mean. Assumes independent texts and coders who work independently.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guiapp.core.stats.agreement import alpha_from_sums
from guiapp.core.stats.agreement_intervals import check_bootstrap, interval_of
from guiapp.core.stats.bootstrap_draws import resample_weights
from guiapp.core.stats.multilabel_scores import check_pair


@dataclass(frozen=True)
class CategoryAgreements:
    """Per category (in column order) and their mean; intervals are (nan, nan) where undefined."""

    alpha: list[float]
    alpha_intervals: list[tuple[float, float]]
    kappa: list[float]
    kappa_intervals: list[tuple[float, float]]
    share_agreeing: list[float]  # per category: share of texts both put in it or both left out
    mean_alpha: float
    mean_alpha_interval: tuple[float, float]
    mean_kappa: float
    mean_kappa_interval: tuple[float, float]


def _terms(coder_1: np.ndarray, coder_2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per text and category: the values (count of 'no', count of 'yes' among the two codes), the
    coincidence diagonal (2 when the coders agree, else 0) and the 2×2 cell (coder 1 × 2 + coder 2)."""
    a, b = coder_1.astype(float), coder_2.astype(float)
    values = np.stack([2 - a - b, a + b], axis=-1)  # texts × categories × 2
    diagonal = 2.0 * (a == b)
    cells = coder_1.astype(int) * 2 + coder_2.astype(int)
    return values, diagonal, cells


def _kappa(tables: np.ndarray) -> np.ndarray:
    """Cohen's kappa of 2×2 tables on the last two axes (NaN where both coders used one value only)."""
    n = tables.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (tables[..., 0, 0] + tables[..., 1, 1]) / n
        expected = (tables.sum(axis=-1) * tables.sum(axis=-2)).sum(axis=-1) / n**2
        return np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)


def _mean(values: np.ndarray) -> np.ndarray:
    """The mean over the last axis of the defined (finite) values; NaN where none is."""
    finite = np.isfinite(values)
    counted = finite.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counted > 0, np.where(finite, values, 0.0).sum(axis=-1) / counted, np.nan)


def alpha_per_category(coder_1, coder_2) -> np.ndarray:
    """Krippendorff's nominal alpha of each category (two coders, every text coded by both)."""
    a, b = check_pair(coder_1, coder_2)
    values, diagonal, _ = _terms(a, b)
    return np.asarray(alpha_from_sums(values.sum(axis=0), diagonal.sum(axis=0)), dtype=float)


def kappa_per_category(coder_1, coder_2) -> np.ndarray:
    """Cohen's kappa of each category's 2×2 table."""
    a, b = check_pair(coder_1, coder_2)
    _, _, cells = _terms(a, b)
    tables = np.stack([(cells == c).sum(axis=0) for c in range(4)], axis=-1).reshape(-1, 2, 2)
    return _kappa(tables.astype(float))


def category_agreement(
    coder_1, coder_2, samples: int = 1000, seed: int = 0, level: float = 0.95
) -> CategoryAgreements:
    """Alpha and kappa per category and their means, with bootstrap intervals over the texts;
    ``coder_1`` and ``coder_2`` are texts × categories 0/1 tables (e.g. the coding and a model)."""
    a, b = check_pair(coder_1, coder_2)
    n, k = a.shape
    if n == 0:
        raise ValueError("Agreement needs at least one coded text.")
    alpha, kappa = alpha_per_category(a, b), kappa_per_category(a, b)
    nan_pair = (float("nan"), float("nan"))
    alpha_intervals, kappa_intervals = [nan_pair] * k, [nan_pair] * k
    mean_alpha_interval = mean_kappa_interval = nan_pair
    if n >= 2:
        check_bootstrap(samples, level, n)
        values, diagonal, cells = _terms(a, b)
        one_hot = (cells[:, :, None] == np.arange(4)).reshape(n, 4 * k).astype(float)
        columns = np.concatenate([values.reshape(n, 2 * k), diagonal, one_hot], axis=1)
        alphas, kappas = np.empty((samples, k)), np.empty((samples, k))
        rng = np.random.default_rng(seed)
        for start, stop, weights in resample_weights(rng, n, samples):
            sums = weights @ columns
            totals = sums[:, : 2 * k].reshape(-1, k, 2)
            agreeing = sums[:, 2 * k: 3 * k]
            alphas[start:stop] = alpha_from_sums(totals, agreeing)
            kappas[start:stop] = _kappa(sums[:, 3 * k:].reshape(-1, k, 2, 2))
        alpha_intervals = [interval_of(alphas[:, c], level) for c in range(k)]
        kappa_intervals = [interval_of(kappas[:, c], level) for c in range(k)]
        mean_alpha_interval = interval_of(_mean(alphas), level)
        mean_kappa_interval = interval_of(_mean(kappas), level)
    return CategoryAgreements(
        alpha=[float(v) for v in alpha], alpha_intervals=alpha_intervals,
        kappa=[float(v) for v in kappa], kappa_intervals=kappa_intervals,
        share_agreeing=[float(v) for v in (a == b).mean(axis=0)],
        mean_alpha=float(_mean(alpha)), mean_alpha_interval=mean_alpha_interval,
        mean_kappa=float(_mean(kappa)), mean_kappa_interval=mean_kappa_interval,
    )
