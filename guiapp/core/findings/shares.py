"""Design-based shares of the categories, for the whole corpus and for a group of it, when the coded
texts are texts of the corpus (see ``weighting.py`` for the weights and variances).

**Whole corpus** (the corpus's shares are the target; the coded texts count with their coding):

    θ = λ · mean_corpus(f)  +  (1/N) Σ_coded c_i (y_i − λ f_i)

— design-based supervised learning (Egami et al. 2023, NeurIPS) with λ = 1: the pseudo-outcome
f + R/π·(y − f) averaged over the corpus, with the coded texts' f cross-fitted. With a random
sample (c = N/n) it is prediction-powered inference for the corpus: λ·mean(f) + mean_coded(y − λf)
(Angelopoulos et al. 2023, *Science*), whose **power tuning** (PPI++, Angelopoulos, Duchi & Zrnic
2023) picks the λ in [0, 1] that makes the variance smallest: tr C(y, f) / tr V(f) under the
design's own variance (one λ for all categories, so that the shares add up to one). Unbiased for
any fixed λ; the tuned λ adds a bias of a smaller order than the standard error.

**A group** G (the texts with one value of a column): the ratio (Hájek) form
λ·mean_G(f) + Σ_{coded∩G} c (y − λf) / Σ_{coded∩G} c — the random number of coded texts falling
into the group then adds no variance — with its variance from the linearised residuals
1_G (d − d̄_G)/N_G. A difference between groups is the difference of their estimates, its variance
the design's variance of the difference of their linearised residuals (so any covariance is kept).

**The coded texts alone** are the same with f = 0: the design-weighted share of each category
among the coded texts (ratio form).

**Score intervals for a random sample.** With a simple random sample, the variance of the estimate
is (1 − n/N)·S²(y − λf)/n, and S²(y − λf) = S²(y) + λ²S²(f) − 2λ·S(y, f). The first term is known
once the share θ is: an indicator's variance is θ(1 − θ). Putting it in (the other two from the
coded texts) and keeping every θ with |θ̂ − θ| ≤ z·SE(θ) gives the interval — Wilson's score
interval when the model adds nothing (the coded texts alone). A rare category with no or one coded
text then still gets an interval that reaches up to where a few such texts are plausible, where the
plain ± z·SE interval collapses onto 0 (and misses the true share). For common categories the two
agree. Other designs use the plain interval with Student's t quantile on Kish's effective number of
coded texts (Σc)²/Σc² less one degrees of freedom: when a few texts carry large weights (texts
drawn with a small probability) the variance rests on those few, and the interval widens for it.

**The model's floor under the variance** (designs with unequal chances: known π, the Coding
step's draws). With large weights the observed variance is a lottery: if, say, twenty texts drawn
with a small chance all happen to be ones the model got right, their residuals are near 0 and the
variance looks tiny, although the next draw could hit one of the model's mistakes and move the
estimate a lot. Each residual's expected square under the model's own probabilities,
f(1 − f) + (its expected value)², does not depend on that luck; **half** the design's variance of
those is a floor under the observed variance (the larger of the two is used for each category).
Half, because the model's probabilities are fitted to the coded texts, most of which the Coding
step chose where the model was unsure: on the easy texts, which carry the large weights, they
expect two to three times the mistakes that happen (``benchmarks/bench_findings_corpora.py``: the whole
floor gave 97–99 % coverage, none 88–96 %, half 94–97 % in a pilot of 60 draws whose seeds the
reported run does not use). A model surer than it should be gives a lower floor, so the observed
variance still counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guiapp.core.findings.group_floor import floor_bounds, floor_variance
from guiapp.core.findings.inputs import Checked
from guiapp.core.findings.weighting import SimpleRandom, Weighting

FLOOR_SHARE = 0.5  # the share of the model's expected variance that is a floor under the observed one


@dataclass(frozen=True)
class Estimate:
    """Shares (K), their covariance (K × K), and the linearised residuals (n_coded × K) that give
    the covariance with other estimates of the same design."""

    shares: np.ndarray
    covariance: np.ndarray
    residuals: np.ndarray
    power: float  # λ
    n_texts: int
    n_coded: int  # coded texts with a weight above 0
    # random sample: ((1 − n/N)/n, λ²S²(f) − 2λS(y, f), N); of the population (size 0): (1/n, the rest, 0)
    score: tuple[float, np.ndarray, int] | None = None
    effective_n: float = float("inf")  # Kish's effective number of coded texts (t quantile with it − 1 df)
    moments: np.ndarray | None = None  # the model's expected square of each linearised residual (n_coded × K)
    floor: np.ndarray | None = None  # the variance those give (K), a floor under the observed one
    # a group's pooled floor (``group_floor.py``): its variance per unit of θ(1 − θ), per category (K)
    spread: np.ndarray | None = None
    # the moderated variance (``group_floor.py``): the own variance's degrees of freedom (K) and the floor's
    own_df: np.ndarray | None = None
    prior_df: float | None = None

    @property
    def standard_errors(self) -> np.ndarray:
        return np.sqrt(np.clip(self._variance() + self.pooled_excess, 0.0, None))

    @property
    def own_variance(self) -> np.ndarray:
        """Each category's variance from the estimate's own coded texts (with the model's floor where the
        design has one), before any pooled floor; at least 0."""
        return np.clip(self._variance(), 0.0, None)

    def _variance(self) -> np.ndarray:
        variance = np.diag(self.covariance)
        if self.floor is not None:
            variance = np.fmax(variance, self.floor)
        return variance

    @property
    def pooled_excess(self) -> np.ndarray:
        """What the pooled floor (``group_floor.py``) adds to each category's own variance (K): the moderated
        variance less the own one (below 0 where the own is above the floor), or, without degrees of
        freedom, how far the floor's variance is above the own one."""
        if self.spread is None:
            return np.zeros(self.shares.shape)
        own = np.clip(self._variance(), 0.0, None)
        floor = floor_variance(self.shares, self.spread)
        if self.prior_df is None or self.own_df is None:
            return np.nan_to_num(np.fmax(floor - own, 0.0))
        w = self._floor_weight()
        return np.nan_to_num(w * floor + (1 - w) * own - own)

    def _floor_weight(self) -> np.ndarray:
        """d0/(d0 + d_g) per category: the floor's weight in the moderated variance."""
        assert self.own_df is not None and self.prior_df is not None
        d0, d = self.prior_df, np.clip(self.own_df, 0.0, None)
        if not np.isfinite(d0):
            return np.ones_like(d)
        total = d0 + d
        return np.where(total > 0, d0 / np.where(total > 0, total, 1.0), 1.0)

    def _own_parts(self) -> tuple[np.ndarray, np.ndarray]:
        """The own variance as a θ(1 − θ) + b at the share θ tested: the score form of a random sample,
        else a = 0 and b the own variance at the estimate."""
        if self.score is None:
            return np.zeros(self.shares.shape), np.clip(self._variance(), 0.0, None)
        factor, rest, size = self.score
        if size:
            factor, rest = factor * size / max(size - 1, 1), rest * (size - 1) / size if size > 1 else rest
        return np.full(self.shares.shape, factor), factor * np.asarray(rest, dtype=np.float64)

    def moderated(self, level: float) -> tuple[np.ndarray, np.ndarray]:
        """Every θ with (θ̂ − θ)² ≤ q² [w r a θ(1 − θ) + (1 − w) V_own(θ)], w = d0/(d0 + d_g), q Student's t on
        d0 + d_g degrees of freedom (``group_floor.py``); the plain interval where that has no solution."""
        from scipy.stats import norm, t

        assert self.spread is not None and self.own_df is not None and self.prior_df is not None
        w = self._floor_weight()
        df = self.prior_df + np.clip(self.own_df, 0.0, None)
        p = 0.5 + level / 2
        q = np.where(np.isfinite(df), t.ppf(p, np.clip(np.where(np.isfinite(df), df, 1.0), 1.0, None)), norm.ppf(p))
        a_own, b_own = self._own_parts()
        theta = np.clip(np.nan_to_num(self.shares, nan=0.0), 0.0, 1.0)
        a = q**2 * (w * np.clip(self.spread, 1e-12, None) + (1 - w) * a_own)
        b = q**2 * (1 - w) * b_own
        discriminant = a * (4 * theta * (1 - theta) + a) + 4 * b * (1 + a)
        root = np.sqrt(np.clip(discriminant, 0.0, None))
        low = (2 * theta + a - root) / (2 * (1 + a))
        high = (2 * theta + a + root) / (2 * (1 + a))
        plain = q * self.standard_errors
        bad = ~(discriminant > 0) | ~np.isfinite(low) | ~np.isfinite(high) | (low > theta) | (high < theta)
        return np.where(bad, self.shares - plain, low), np.where(bad, self.shares + plain, high)

    def widened(self, low: np.ndarray, high: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
        """The interval (``low``, ``high``) where there is no pooled floor; with one, the moderated
        interval (:meth:`moderated`, ``group_floor.py``) where the degrees of freedom are known, else
        (the coded texts alone) the floor's interval where its variance at the estimate is the larger;
        a lower end below one of the group's ``n_texts`` texts is 0 (the share is a number of its texts:
        0.3 texts means none)."""
        if self.spread is None:
            return low, high
        if self.prior_df is not None and self.own_df is not None:
            low, high = self.moderated(level)
        else:
            floor_low, floor_high = floor_bounds(self.shares, self.spread, level)
            use_floor = self.pooled_excess > 0
            low, high = np.where(use_floor, floor_low, low), np.where(use_floor, floor_high, high)
        if self.n_texts > 0:
            low = np.where(low * self.n_texts < 1 - 1e-9, 0.0, low)
        return low, high


def tuned_power(weighting: Weighting, a: np.ndarray, b: np.ndarray) -> float:
    """The λ in [0, 1] that makes tr Var(Σ c (a − λ b)) smallest (1 when the model's part has no
    variance): tr C(a, b) / tr V(b), with C from the design's quadratic variance."""
    v_b = np.trace(weighting.variance(b))
    if not np.isfinite(v_b) or v_b <= 1e-300:
        return 1.0
    cross = (np.trace(weighting.variance(a + b)) - np.trace(weighting.variance(a)) - v_b) / 2
    return float(np.clip(cross / v_b, 0.0, 1.0))


def whole_corpus(checked: Checked, weighting: Weighting, tune: bool) -> Estimate:
    """The shares of the whole corpus (expansion form, exactly unbiased for fixed λ)."""
    n = checked.n_texts
    c = weighting.weights
    a, b = checked.y / n, checked.f_coded / n
    power = tuned_power(weighting, a, b) if tune else 1.0
    shares = power * checked.f.mean(axis=0) + (c[:, None] * (checked.y - power * checked.f_coded)).sum(axis=0) / n
    z = a - power * b
    score = _score_terms(checked.y, checked.f_coded, power, n) if isinstance(weighting, SimpleRandom) else None
    f = checked.f_coded
    moments = FLOOR_SHARE * (f * (1 - f) + ((1 - power) * f) ** 2) / n**2
    return Estimate(shares, weighting.variance(z), z, power, n, int((c > 0).sum()), score, effective_number(c),
                    moments, weighting.model_variance(z, moments))


def effective_number(weights: np.ndarray) -> float:
    """Kish's effective sample size (Σc)²/Σc² of the coded texts' weights."""
    square = float((weights**2).sum())
    return float(weights.sum()) ** 2 / square if square > 0 else 0.0


def _score_terms(y: np.ndarray, f: np.ndarray, power: float, size: int) -> tuple[float, np.ndarray, int] | None:
    """What a random sample's score interval needs (see the module docstring)."""
    n = y.shape[0]
    if n < 2 or size < 2:
        return None
    yc, fc = y - y.mean(axis=0), f - f.mean(axis=0)
    rest = (power**2 * (fc * fc).sum(axis=0) - 2 * power * (yc * fc).sum(axis=0)) / (n - 1)
    return max(0.0, 1 - n / size) / n, rest, size


def quantile(level: float, effective_n: float) -> float:
    """The normal quantile, or Student's t on ``effective_n`` − 1 degrees of freedom (at least 1)."""
    from scipy.stats import norm, t

    if not np.isfinite(effective_n):
        return float(norm.ppf(0.5 + level / 2))
    return float(t.ppf(0.5 + level / 2, max(effective_n - 1.0, 1.0)))


def score_interval(estimate: Estimate, z: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The score interval of a random sample's estimate (None for other designs). Where the
    inequality has no solution (the sample's covariance outweighs the indicator's variance) the
    plain interval of the category is kept."""
    if estimate.score is None:
        return None
    factor, rest, size = estimate.score
    theta = estimate.shares
    if size:  # a finite corpus: the indicator's variance with divisor N − 1
        a = z**2 * factor * size / max(size - 1, 1)
        c = rest * (size - 1) / size if size > 1 else rest
    else:  # the population the texts come from
        a, c = z**2 * factor, rest
    discriminant = a * (4 * theta * (1 - theta) + a + 4 * c * (1 + a))
    root = np.sqrt(np.clip(discriminant, 0.0, None))
    low = (2 * theta + a - root) / (2 * (1 + a))
    high = (2 * theta + a + root) / (2 * (1 + a))
    plain = z * estimate.standard_errors
    bad = ~(discriminant > 0) | ~np.isfinite(low) | ~np.isfinite(high) | (low > theta) | (high < theta)
    low = np.where(bad, theta - plain, low)
    high = np.where(bad, theta + plain, high)
    return low, high


def in_group(checked: Checked, weighting: Weighting, of_text: np.ndarray, of_coded: np.ndarray,
             tune: bool, model: bool = True, power: float | None = None) -> Estimate:
    """The shares of the texts with ``of_text`` True (ratio form); ``of_coded`` the same for the
    coded texts. ``model=False``: the coded texts alone (f = 0). ``power``: a λ fixed beforehand
    (for a group, the whole corpus's: tuned on a handful of coded texts λ is noisy and its bias
    grows, PPI++ §6), else tuned here when ``tune``."""
    c = np.where(of_coded, weighting.weights, 0.0)
    total = c.sum()
    size = int(of_text.sum())
    k = checked.y.shape[1]
    if total <= 0 or size == 0:
        return Estimate(np.full(k, np.nan), np.full((k, k), np.nan), np.zeros_like(checked.y), 1.0, size, 0)
    y_mean = (c[:, None] * checked.y).sum(axis=0) / total
    a = of_coded[:, None] * (checked.y - y_mean) / size
    members = np.flatnonzero(of_coded)
    simple = isinstance(weighting, SimpleRandom)
    if not model:
        score = _score_terms(checked.y[members], np.zeros_like(checked.y[members]), 0.0, size) if simple else None
        return Estimate(y_mean, weighting.variance(a), a, 0.0, size, int((c > 0).sum()), score, effective_number(c))
    f_mean = (c[:, None] * checked.f_coded).sum(axis=0) / total
    b = of_coded[:, None] * (checked.f_coded - f_mean) / size
    if power is None:
        power = tuned_power(weighting, a, b) if tune else 1.0
    shares = power * checked.f[of_text].mean(axis=0) + y_mean - power * f_mean
    z = a - power * b
    score = _score_terms(checked.y[members], checked.f_coded[members], power, size) if simple else None
    f = checked.f_coded
    centre = y_mean - power * f_mean
    moments = FLOOR_SHARE * of_coded[:, None] * (f * (1 - f) + ((1 - power) * f - centre) ** 2) / size**2
    return Estimate(shares, weighting.variance(z), z, power, size, int((c > 0).sum()), score, effective_number(c),
                    moments, weighting.model_variance(z, moments))


def difference_variance(weighting: Weighting, first: Estimate, second: Estimate) -> np.ndarray:
    """The variance (K) of ``first.shares − second.shares``, with the model's floor where the
    design has one (a text belongs to one group, so the expected squares add up)."""
    variance = np.diag(weighting.variance(first.residuals - second.residuals))
    if first.moments is not None and second.moments is not None:
        floor = weighting.model_variance(first.residuals - second.residuals, first.moments + second.moments)
        if floor is not None:
            variance = np.fmax(variance, floor)
    return variance
