"""A floor under a group's interval that does not rest on the group's own handful of coded texts.

A group (a year, a party) holds a few dozen coded texts, and a rare category has none or one or two
of them. The group's own variance of the model's mistakes is then a lottery: if its few coded texts
of the category happen to be ones the model got right — or there are none — the variance is near 0
and the interval collapses onto the model's count, whatever the model's mistakes are elsewhere.

The floor pools what the coded texts of **all** groups say about each category. A group's share is a
Hájek mean: its design variance is, to first order (Särndal, Swensson & Wretman 1992, §5.7; exactly
the design's own for independent choices, 1/π = c),

    V_g = (1/N_g²) Σ_{coded of g} w (e − ē_g)²,   w = c'(c' − 1),  e = y − λf,

c' the design weights scaled to add up to the group's N_g texts. For category k the floor replaces
each text's squared residual by r_k · θ(1 − θ) · h, h the text's share of the mistakes the model
expects, m = f(1 − f) + ((1 − λ)f)², relative to their weighted mean in the group (where the Coding
step drew the unsure texts with small weights, their mistakes count for little). Then

    V_g ≥ r_k · θ(1 − θ) · a_gk,   a_gk = Σ w m / (N_g Σ c' m),
    r_k = (Σ w (e − ē_g)² + κ) / (Σ_g N_g² a_gk s²_g(y) + κ),

the share of the design's variance of the category that the model leaves unexplained, pooled within
groups over every coded text (ē_g, and s²_g(y) the indicator's spread, weighted by c; w scaled to a
mean of 1), with a prior of κ = 2 coded texts that the model explains nothing of: a category with no
or few coded texts is taken as one the model cannot see (r near 1), one with many gets its measured
ratio. With equal weights (a random sample) a_gk = (1 − n_g/N_g)/n_g and r_k is the plain ratio of
the residuals' spread to the indicator's; where the model expects the same mistakes everywhere,
a_gk = 1/n_eff − 1/N_g with Kish's effective number. Coded texts outside the corpus (the study's test
texts, each counted once) have a_g = 1/n_g + 1/N_g (the corpus's share); the coded texts alone a_g
with the flat Kish form.

The floor and the group's own variance are combined as empirical Bayes combines a variance with a
prior one (Smyth 2004, *Stat. Appl. Genet. Mol. Biol.* 3:3, the moderated variance of limma; the
"synthetic" variance of small-area estimation): for each group g and category k

    V = (d0 · V_floor + d_gk · V_own) / (d0 + d_gk),   Student's t on d0 + d_gk degrees of freedom,

d_gk the degrees of freedom of the group's own variance and d0 the floor's. d_gk = 2/(2/(n − 1) +
(κ_k − 3)/n), the variance of a sample variance for residuals of kurtosis κ_k, on n = Kish's effective
number of the group's coded texts: n − 1 for normal residuals, about twice the number of the
category's coded texts for a rare one (a variance that rests on one or two of its texts is worth
little); κ_k pooled over the groups, each group's residuals scaled to a mean square of 1 first; d_gk = 0
where the group has no coded text of the category (its interval is the floor's: never narrower than
the data allow). d0 is estimated from the data as limma's ``fitFDist`` does: the spread of
log(V_own/V_floor) over every group and category beyond what the own variances' sampling explains
(trigamma(d_gk/2) each) is trigamma(d0/2); d0 is infinite (the floor alone) where there is none
beyond it. So a group whose own mistakes are far above the floor, seen on many coded texts, keeps
about its own variance, and one whose own variance rests on a few texts follows the floor — not the
larger of two noisy variances, which is biased upwards (it held 97–98 % for the Coding step's draws).
The interval holds every θ with (θ̂ − θ)² ≤ q² [w · r_k a_gk · θ(1 − θ) + (1 − w) · V_own(θ)],
w = d0/(d0 + d_gk), V_own(θ) the score form of a random sample's own variance (else its value at the
estimate): Wilson's score interval on the floor where w = 1, so 0 of n keeps an upper end. A lower
end below one of the group's texts is 0: the share of a group is a number of its texts, and 0.3 of
a text means none. With the model left out (the coded texts alone) r_k = 1 and the floor's
interval is used where its variance is the larger: Wilson's interval on the group's coded texts, so
0 of n still has an upper bound. Reading: Wilson (1927); Brown, Cai & DasGupta (2001), who recommend
Wilson's interval for small n over the exact one (Clopper–Pearson held 99 % here, not 95 %);
Kish (1965); the pooled variance is the "synthetic" part of small-area estimation (Rao & Molina 2015,
ch. 3) used for the variance only, not for the share, which stays the group's own, unbiased
estimate. Chosen and measured in ``benchmarks/bench_findings.py``.
"""

from __future__ import annotations

import numpy as np

PRIOR_TEXTS = 2.0  # κ: coded texts the model is assumed to explain nothing of


def variance_weights(weights: np.ndarray, group_of_coded: np.ndarray,
                     group_sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(c', w): the design weights c scaled so that each group's coded texts add up to its size N_g
    (the Hájek form), and w = c'(c' − 1), at least 0, what each coded text's squared residual counts
    for in its group's design variance (see the module docstring). Both 0 for group −1."""
    scaled, out = np.zeros(len(weights)), np.zeros(len(weights))
    for group in np.unique(group_of_coded[group_of_coded >= 0]):
        rows = group_of_coded == group
        total = weights[rows].sum()
        if total <= 0:
            continue
        scaled[rows] = weights[rows] * group_sizes[group] / total
        out[rows] = np.clip(scaled[rows] * (scaled[rows] - 1.0), 0.0, None)
    return scaled, out


def model_moments(f: np.ndarray, power: float) -> np.ndarray:
    """m: the square of each coded text's residual y − λf that the model expects (y drawn from its
    probabilities f): f(1 − f) + ((1 − λ)f)²; where a category's mistakes are likely."""
    return f * (1.0 - f) + ((1.0 - power) * f) ** 2


def design_factors(weights: np.ndarray, moments: np.ndarray, group_of_coded: np.ndarray,
                   group_sizes: np.ndarray) -> np.ndarray:
    """a_gk (groups × categories): Σ w m / (N_g Σ c' m) over the group's coded texts (``moments``: m,
    coded texts × categories); Σ w / N_g² (= 1/n_eff − 1/N_g, Kish) where the model expects no
    mistake on any of them; inf for a group without coded texts."""
    scaled, w = variance_weights(weights, group_of_coded, group_sizes)
    out = np.full((len(group_sizes), moments.shape[1]), np.inf)
    for group in range(len(group_sizes)):
        rows = group_of_coded == group
        if not rows.any() or group_sizes[group] <= 0:
            continue
        size = float(group_sizes[group])
        flat = w[rows].sum() / size**2
        expected = (scaled[rows][:, None] * moments[rows]).sum(axis=0)
        weighted = (w[rows][:, None] * moments[rows]).sum(axis=0)
        ok = expected > 1e-12 * rows.sum()
        out[group] = np.where(ok, weighted / (size * np.where(ok, expected, 1.0)), flat)
    return out


def pooled_ratio(y: np.ndarray, f: np.ndarray, power: float, weights: np.ndarray,
                 group_of_coded: np.ndarray, factors: np.ndarray | None = None,
                 group_sizes: np.ndarray | None = None) -> np.ndarray:
    """r_k for each category (see the module docstring); coded texts of group −1 count in none.
    ``weights``: the design weights c. ``factors`` (a_gk from :func:`design_factors`) with
    ``group_sizes``: coded texts of the corpus, each residual counted with its w; None: coded texts
    that are a random sample of their own (outside the corpus), each counted with c."""
    keep = group_of_coded >= 0
    k = y.shape[1]
    if not keep.any() or weights[keep].sum() <= 0:
        return np.ones(k)
    if factors is None:
        variance, mass = weights, None
    else:
        assert group_sizes is not None
        variance = variance_weights(weights, group_of_coded, group_sizes)[1]
        mass = np.nan_to_num(factors * np.asarray(group_sizes, dtype=np.float64)[:, None] ** 2, posinf=0.0)
    unit = variance[keep].mean()
    if unit <= 0:  # every text of every group coded: no variance to pool
        return np.ones(k)
    e = y - power * f
    unexplained = np.zeros(k)
    spread = np.zeros(k)
    for group in np.unique(group_of_coded[keep]):
        rows = group_of_coded == group
        c = weights[rows][:, None]
        total = c.sum()
        if total <= 0:
            continue
        residual = e[rows] - (c * e[rows]).sum(axis=0) / total
        indicator = y[rows] - (c * y[rows]).sum(axis=0) / total
        unexplained += (variance[rows][:, None] * residual**2).sum(axis=0) / unit
        group_mass = variance[rows].sum() if mass is None else mass[group]
        spread += group_mass * (c * indicator**2).sum(axis=0) / total / unit
    return (unexplained + PRIOR_TEXTS) / (spread + PRIOR_TEXTS)


def design_factor(n_coded: int, n_texts: int, outside: bool = False) -> float:
    """a_g of coded texts with equal weights (see the module docstring): (1 − n_g/N_g)/n_g for a
    random sample of the group's texts; ``outside``: coded texts outside the corpus, 1/n_g + 1/N_g."""
    if n_coded <= 0:
        return float("inf")
    if outside:
        return 1.0 / n_coded + (1.0 / n_texts if n_texts > 0 else 0.0)
    fraction = max(0.0, 1.0 - n_coded / n_texts) if n_texts > 0 else 1.0
    return fraction / n_coded


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


def _trigamma_inverse(x: float) -> float:
    """y with trigamma(y) = x (Smyth 2004, limma's Newton iteration on 1/trigamma)."""
    from scipy.special import polygamma

    if x > 1e7:
        return 1.0 / np.sqrt(x)
    if x < 1e-6:
        return 1.0 / x
    y = 0.5 + 1.0 / x
    for _ in range(50):
        tri = float(polygamma(1, y))
        step = tri * (1.0 - tri / x) / float(polygamma(2, y))
        y += step
        if -step / y < 1e-8:
            break
    return y


def prior_degrees(own: np.ndarray, floor: np.ndarray, degrees: np.ndarray) -> float:
    """d0: the prior degrees of freedom of the floor, as limma's ``fitFDist`` estimates them (Smyth
    2004, §6.2) from the cells (group, category) with an own variance ``own`` on ``degrees`` > 0 degrees
    of freedom: the spread of log(own/floor) beyond what the own variances' χ² sampling explains
    (trigamma(d/2) each) is the prior's, trigamma(d0/2). inf where there is no spread beyond it (the
    floor is taken as known); 0 with fewer than two cells."""
    from scipy.special import digamma, polygamma

    own, floor, degrees = (np.asarray(a, dtype=np.float64).ravel() for a in (own, floor, degrees))
    keep = (degrees > 0) & (own > 0) & (floor > 0) & np.isfinite(own) & np.isfinite(floor)
    if keep.sum() < 2:
        return 0.0
    half = degrees[keep] / 2
    e = np.log(own[keep] / floor[keep]) - digamma(half) + np.log(half)
    excess = float(e.var(ddof=1) - polygamma(1, half).mean())
    if excess <= 0:
        return float("inf")
    return 2.0 * _trigamma_inverse(excess)


def pooled_kurtosis(blocks: list[np.ndarray]) -> np.ndarray:
    """κ_k: the kurtosis of each category's residuals within a group, pooled over the groups (``blocks``:
    each group's linearised residuals, coded texts × K). Each group's residuals are centred and scaled to
    a mean square of 1 first, so that groups whose mistakes differ in size do not add to the shape (that
    difference is what the prior degrees of freedom measure); 3 (a normal's) where nothing varies."""
    scaled = []
    for block in blocks:
        if block.shape[0] < 2:
            continue
        centred = block - block.mean(axis=0)
        square = (centred**2).mean(axis=0)
        scaled.append(np.where(square > 0, centred / np.sqrt(np.where(square > 0, square, 1.0)), np.nan))
    if not scaled:
        return np.full(blocks[0].shape[1] if blocks else 0, 3.0)
    values = np.concatenate(scaled)
    with np.errstate(invalid="ignore"):
        kurtosis = np.nanmean(values**4, axis=0) / np.nanmean(values**2, axis=0) ** 2
    return np.where(np.isfinite(kurtosis), kurtosis, 3.0)


def own_degrees(effective_n: float, kurtosis: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """d_gk: the degrees of freedom of a group's own variance of each category, 2/(2/(n − 1) + (κ − 3)/n)
    on n = ``effective_n`` coded texts (the variance of a sample variance, Var(s²)/σ⁴, for residuals of
    kurtosis κ: n − 1 for normal ones, about twice the number of the category's texts for a rare one);
    0 where the group has no coded text of the category (``counts``) or fewer than two coded texts."""
    if not effective_n > 1:
        return np.zeros(len(counts))
    spread = 2.0 / (effective_n - 1.0) + (np.asarray(kurtosis) - 3.0) / effective_n
    degrees = np.where(spread > 0, 2.0 / np.where(spread > 0, spread, 1.0), effective_n - 1.0)
    return np.where(np.asarray(counts) > 0, degrees, 0.0)


def moderation(blocks: list[np.ndarray], effective_n: np.ndarray, counts: np.ndarray, own: np.ndarray,
               floor: np.ndarray) -> tuple[np.ndarray, float]:
    """(d_gk for each group, groups × K; d0): the own variances' degrees of freedom and the floor's prior
    degrees of freedom fitted to the groups' own variances ``own`` against the floor's ``floor`` (both
    groups × K at the estimates; ``counts``: coded texts of each category per group)."""
    kurtosis = pooled_kurtosis(blocks)
    degrees = np.array([own_degrees(float(n), kurtosis, c) for n, c in zip(effective_n, counts, strict=True)])
    return degrees, prior_degrees(own, floor, degrees)
