"""A floor under a group's interval that does not rest on the group's own handful of coded texts.

A group (a year, a party) holds a few dozen coded texts, and a rare category has none or one or two
of them. The group's own variance of the model's mistakes is then a lottery: if its few coded texts
of the category happen to be ones the model got right — or there are none — the variance is near 0
and the interval collapses onto the model's count, whatever the model's mistakes are elsewhere.

The floor pools what the coded texts of **all** groups say about each category. For category k,

    r_k = (Σ c (e − ē_g)² + κ) / (Σ c (y − ȳ_g)² + κ),   e = y − λf,

the share of the category's variance that the model leaves unexplained (its mistakes' variance over
the indicator's variance), both pooled within groups over every coded text (c its design weight,
scaled to a mean of 1; ē_g, ȳ_g the group's weighted means), with a prior of κ = 2 coded texts that
the model explains nothing of: a category with no or few coded texts is taken as one the model
cannot see (r near 1), one with many gets its measured ratio. The group's variance at a share θ is
then at least

    r_k · θ(1 − θ) · a_g,   a_g = (1 − n_g/N_g) / n_g  (a random sample of the texts),
                            a_g = (1 − n_g/N_g) / n_eff,g  (other designs: Kish's effective number),
                            a_g = 1/n_g + 1/N_g  (coded texts outside the corpus: the corpus's share),

and the floor's interval holds every θ with (θ̂ − θ)² ≤ z² · r_k · θ(1 − θ) · a_g — Wilson's score
interval on an effective number of coded texts m = 1/(r_k · a_g) — joined with the group's own
interval (the wider of the two on each side). A lower end below one of the group's texts is 0: the
share of a group is a number of its texts, and 0.3 of a text means none (without this, a group
holding no text of a category is "missed" by an interval starting at 0.001 %). So a group's interval is never narrower than the pooled mistakes
allow, and a group whose own mistakes are larger keeps its own, wider interval. With the model
left out (the coded texts alone) r_k = 1: Wilson's interval on the group's coded texts, so 0 of n
still has an upper bound. Reading: Wilson (1927); Brown, Cai & DasGupta (2001), who recommend
Wilson's interval for small n over the exact one (Clopper–Pearson held 99 % here, not 95 %);
Kish (1965); the pooled variance is the "synthetic" part of small-area estimation (Rao & Molina 2015,
ch. 3) used for the variance only, not for the share, which stays the group's own, unbiased
estimate. Chosen and measured in ``benchmarks/bench_findings.py``.
"""

from __future__ import annotations

import numpy as np

PRIOR_TEXTS = 2.0  # κ: coded texts the model is assumed to explain nothing of


def pooled_ratio(y: np.ndarray, f: np.ndarray, power: float, weights: np.ndarray,
                 group_of_coded: np.ndarray) -> np.ndarray:
    """r_k for each category (see the module docstring); coded texts of group −1 count in none."""
    keep = group_of_coded >= 0
    y, f, c, g = y[keep], f[keep], weights[keep], group_of_coded[keep]
    k = y.shape[1]
    if y.shape[0] == 0 or c.sum() <= 0:
        return np.ones(k)
    c = c / c.mean()
    e = y - power * f
    unexplained = np.zeros(k)
    spread = np.zeros(k)
    for group in np.unique(g):
        rows = g == group
        w = c[rows][:, None]
        total = w.sum()
        if total <= 0:
            continue
        unexplained += (w * (e[rows] - (w * e[rows]).sum(axis=0) / total) ** 2).sum(axis=0)
        spread += (w * (y[rows] - (w * y[rows]).sum(axis=0) / total) ** 2).sum(axis=0)
    return (unexplained + PRIOR_TEXTS) / (spread + PRIOR_TEXTS)


def design_factor(n_coded: int, n_texts: int, effective_n: float | None = None, outside: bool = False) -> float:
    """a_g: the variance of a group's share per unit of θ(1 − θ) (see the module docstring);
    ``effective_n`` for designs with unequal weights; ``outside``: coded texts outside the corpus."""
    if n_coded <= 0:
        return float("inf")
    if outside:
        return 1.0 / n_coded + (1.0 / n_texts if n_texts > 0 else 0.0)
    fraction = max(0.0, 1.0 - n_coded / n_texts) if n_texts > 0 else 1.0
    effective = n_coded if effective_n is None or not np.isfinite(effective_n) else max(effective_n, 1.0)
    return fraction / effective


def floor_bounds(share: np.ndarray, spread: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score interval for θ̂ on m = 1/spread effective coded texts (θ̂ clipped to [0, 1]):
    every θ with (θ̂ − θ)² ≤ z² · spread · θ(1 − θ)."""
    from scipy.stats import norm

    theta = np.clip(np.nan_to_num(share, nan=0.0), 0.0, 1.0)
    a = norm.ppf(0.5 + level / 2) ** 2 * np.clip(spread, 1e-12, None)
    root = np.sqrt(a * (4 * theta * (1 - theta) + a))
    low = (2 * theta + a - root) / (2 * (1 + a))
    high = (2 * theta + a + root) / (2 * (1 + a))
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def floor_variance(share: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """The floor's variance at the estimate, with one text in and one out of the category added
    (Agresti & Caffo 2000), so that a share of 0 still has a standard error: θ̃(1 − θ̃)/(m + 2),
    θ̃ = (θ̂m + 1)/(m + 2), m = 1/spread the effective number of coded texts."""
    spread = np.clip(spread, 1e-12, None)
    m = 1.0 / spread
    theta = (np.clip(np.nan_to_num(share, nan=0.0), 0.0, 1.0) * m + 1.0) / (m + 2.0)
    return theta * (1 - theta) / (m + 2.0)
