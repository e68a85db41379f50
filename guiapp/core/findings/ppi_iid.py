"""Prediction-powered shares when the coded texts are a random sample of the same kind of texts as
the corpus but not part of it (PPI++, Angelopoulos, Duchi & Zrnic 2023, "PPI++: Efficient
Prediction-Powered Inference").

With n coded texts (categories y, cross-fitted probabilities f) and the corpus's N probabilities:

    θ = λ · mean_corpus(f) + mean_coded(y − λ f),
    Var = λ² Var_corpus(f)/N + Var_coded(y − λ f)/n,

and the power-tuned λ = tr 2·Cov(y, f) / (2 (1 + n/N) tr Var(f)) (f of the coded texts and the
corpus pooled), clipped to [0, 1] — the same numbers as the authors' library ``ppi-python``
(``ppi_mean_pointestimate`` / ``ppi_mean_ci`` with their default, one λ for all categories), which
the tests check, except that the interval is the score (Wilson-type) interval: an indicator's
variance is θ(1 − θ) at the share θ tested, so a group with a handful of coded texts, all of one
category, gets an interval reaching where other categories are plausible instead of a point (for
a few hundred coded texts the two intervals agree to a fraction of a point). The target is the share among texts of this kind (the population both samples
come from). Two groups' estimates use different texts, so the variance of their difference is the
sum of their variances.
"""

from __future__ import annotations

import numpy as np

from guiapp.core.findings.shares import Estimate


def _centred(values: np.ndarray) -> np.ndarray:
    return values - values.mean(axis=0)


def power(y: np.ndarray, f_coded: np.ndarray, f_corpus: np.ndarray) -> float:
    """PPI++'s λ for a mean (ppi-python's ``_calc_lam_glm``, mode "overall", clipped to [0, 1])."""
    n, big_n = y.shape[0], f_corpus.shape[0]
    cy, cf = _centred(y), _centred(f_coded)
    cross = (cy.T @ cf + cf.T @ cy) / n
    pooled = np.concatenate([f_coded, f_corpus], axis=0)
    spread = np.cov(pooled.T).reshape(y.shape[1], y.shape[1])
    denominator = 2 * (1 + n / big_n) * np.trace(spread)
    if denominator <= 1e-300:
        return 1.0
    return float(np.clip(np.trace(cross) / denominator, 0.0, 1.0))


def shares(y: np.ndarray, f_coded: np.ndarray, f_corpus: np.ndarray, tune: bool, lam: float | None = None) -> Estimate:
    """PPI++ shares of the corpus (rows of ``f_corpus``) from the coded texts (``y``, ``f_coded``);
    ``lam``: a λ fixed beforehand (a group takes the whole corpus's), else tuned here when ``tune``."""
    if lam is None:
        lam = power(y, f_coded, f_corpus) if tune else 1.0
    n, big_n = y.shape[0], f_corpus.shape[0]
    rectified = y - lam * f_coded
    estimate = lam * f_corpus.mean(axis=0) + rectified.mean(axis=0)
    imputed = lam * _centred(f_corpus)
    corrected = _centred(rectified)
    covariance = imputed.T @ imputed / big_n**2 + corrected.T @ corrected / n**2
    return Estimate(estimate, covariance, corrected / n, lam, big_n, n, _score_terms(y, f_coded, lam, imputed))


def _score_terms(y: np.ndarray, f_coded: np.ndarray, lam: float, imputed: np.ndarray) -> tuple[float, np.ndarray, int]:
    """The score interval's terms: Var = (θ(1 − θ) + rest)/n, with S²(y − λf) = θ(1 − θ) + λ²S²(f) − 2λS(y, f)
    (divisor n, as the plain variance) and the corpus's part λ²V(f)/N carried in ``rest``; size 0: the
    target is the population the texts come from, so no finite-corpus correction."""
    n, big_n = y.shape[0], imputed.shape[0]
    yc, fc = _centred(y), _centred(f_coded)
    rest = (lam**2 * (fc * fc).sum(axis=0) - 2 * lam * (yc * fc).sum(axis=0)) / n
    rest += n * (imputed * imputed).sum(axis=0) / big_n**2
    return 1.0 / n, rest, 0


def coded_only(y: np.ndarray) -> Estimate:
    """The share of each category among the coded texts, with the usual variance S²/n and Wilson's
    score interval."""
    n = y.shape[0]
    centred = _centred(y)
    covariance = centred.T @ centred / (n * max(n - 1, 1))
    return Estimate(y.mean(axis=0), covariance, centred / n, 0.0, n, n, (1.0 / max(n, 1), np.zeros(y.shape[1]), 0))
