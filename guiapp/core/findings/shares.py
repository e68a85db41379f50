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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guiapp.core.findings.inputs import Checked
from guiapp.core.findings.weighting import Weighting


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

    @property
    def standard_errors(self) -> np.ndarray:
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))


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
    return Estimate(shares, weighting.variance(z), z, power, n, int((c > 0).sum()))


def in_group(checked: Checked, weighting: Weighting, of_text: np.ndarray, of_coded: np.ndarray,
             tune: bool, model: bool = True) -> Estimate:
    """The shares of the texts with ``of_text`` True (ratio form); ``of_coded`` the same for the
    coded texts. ``model=False``: the coded texts alone (f = 0)."""
    c = np.where(of_coded, weighting.weights, 0.0)
    total = c.sum()
    size = int(of_text.sum())
    k = checked.y.shape[1]
    if total <= 0 or size == 0:
        return Estimate(np.full(k, np.nan), np.full((k, k), np.nan), np.zeros_like(checked.y), 1.0, size, 0)
    y_mean = (c[:, None] * checked.y).sum(axis=0) / total
    a = of_coded[:, None] * (checked.y - y_mean) / size
    if not model:
        return Estimate(y_mean, weighting.variance(a), a, 0.0, size, int((c > 0).sum()))
    f_mean = (c[:, None] * checked.f_coded).sum(axis=0) / total
    b = of_coded[:, None] * (checked.f_coded - f_mean) / size
    power = tuned_power(weighting, a, b) if tune else 1.0
    shares = power * checked.f[of_text].mean(axis=0) + y_mean - power * f_mean
    z = a - power * b
    return Estimate(shares, weighting.variance(z), z, power, size, int((c > 0).sum()))


def difference_covariance(weighting: Weighting, first: Estimate, second: Estimate) -> np.ndarray:
    """The covariance (K × K) of ``first.shares − second.shares``."""
    return weighting.variance(first.residuals - second.residuals)
