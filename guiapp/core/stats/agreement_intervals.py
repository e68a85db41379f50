"""Bootstrap confidence intervals for Krippendorff's alpha and Cohen's kappa.

Percentile bootstrap over units (Efron & Tibshirani 1993, ch. 13): draw as many units as there
are, with replacement, recompute the coefficient, and take the (1 - level)/2 and (1 + level)/2
quantiles of ``samples`` such draws. Seeded, so the same call gives the same interval.

Assumes the units are a random sample of the texts the coding is meant for and that units are
independent; coders are held fixed. (Hayes & Krippendorff 2007 bootstrap the pairable values
instead; resampling whole units keeps each unit's codes together and is the usual choice when the
text, not the single judgement, is the sampling unit.) Resamples where the coefficient is undefined
(only one category left) are ignored; the interval is (nan, nan) if all are.
"""

from __future__ import annotations

import numpy as np

from guiapp.core.stats.agreement import alpha_from_sums, sorted_categories, unit_terms, value_counts
from guiapp.core.stats.bootstrap_draws import resample_weights


def interval_of(values: np.ndarray, level: float) -> tuple[float, float]:
    """The ``level`` percentile interval of the defined (finite) values; (nan, nan) if none is."""
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return float("nan"), float("nan")
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def check_bootstrap(samples: int, level: float, n_units: int) -> None:
    """ValueError unless there is a resample, a level between 0 and 1 and two units or more."""
    if samples < 1:
        raise ValueError("The bootstrap needs at least one resample.")
    if not 0 < level < 1:
        raise ValueError("The confidence level must lie between 0 and 1, e.g. 0.95.")
    if n_units < 2:
        raise ValueError("An interval needs at least two coded units.")


def bootstrap_alpha_from_counts(
    counts, samples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Interval for nominal alpha from per-unit counts (units × categories), resampling units."""
    values, diagonal = unit_terms(counts)
    check_bootstrap(samples, level, len(values))
    rng = np.random.default_rng(seed)
    alphas = np.empty(samples)
    for start, stop, weights in resample_weights(rng, len(values), samples):
        alphas[start:stop] = alpha_from_sums(weights @ values, weights @ diagonal)
    return interval_of(alphas, level)


def bootstrap_alpha(reliability_data, samples: int = 1000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Interval for nominal alpha from a coders × units matrix (None/NaN for missing codes)."""
    counts, _ = value_counts(reliability_data)
    return bootstrap_alpha_from_counts(counts, samples, seed, level)


def bootstrap_kappa(
    coder_1, coder_2, samples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Interval for Cohen's kappa between two codings of the same units, resampling units."""
    a, b = list(coder_1), list(coder_2)
    if len(a) != len(b):
        raise ValueError(f"The two codings cover different numbers of units ({len(a)} and {len(b)}).")
    check_bootstrap(samples, level, len(a))
    categories = sorted_categories(a + b)
    index = {c: i for i, c in enumerate(categories)}
    k = len(categories)
    cell = np.array([index[x] * k + index[y] for x, y in zip(a, b, strict=True)])
    one_hot = np.zeros((len(cell), k * k))
    one_hot[np.arange(len(cell)), cell] = 1.0
    rng = np.random.default_rng(seed)
    kappas = np.empty(samples)
    for start, stop, weights in resample_weights(rng, len(cell), samples):
        tables = (weights @ one_hot).reshape(-1, k, k)
        n = tables.sum(axis=(1, 2))
        observed = np.trace(tables, axis1=1, axis2=2) / n
        expected = np.einsum("si,si->s", tables.sum(axis=2), tables.sum(axis=1)) / n**2
        with np.errstate(divide="ignore", invalid="ignore"):
            kappas[start:stop] = np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)
    return interval_of(kappas, level)
