"""Is one model better than another? Two paired tests.

**McNemar's test** (McNemar 1947; for comparing classifiers: Dietterich 1998, "Approximate
statistical tests for comparing supervised classification learning algorithms") uses one shared
test set. Only the texts where exactly one of the two models agrees with the human coding carry
information: ``b`` texts only A got right, ``c`` texts only B got right. Under "both models are
equally good" each such text is a fair coin flip, so ``b ~ Binomial(b + c, 1/2)``.

- fewer than 25 such texts: the exact two-sided binomial test (``scipy.stats.binomtest``);
  statistic = min(b, c), as in statsmodels' ``mcnemar(exact=True)``;
- otherwise: chi-square with continuity correction, ``(|b - c| - 1)^2 / (b + c)``, 1 df.

Assumes the test texts are independent and were not used to train or tune either model.

**Corrected resampled t-test** (Nadeau & Bengio 2003, "Inference for the generalization error",
Machine Learning 52; the r×k cross-validation form of Bouckaert & Frank 2004, "Evaluating the
replicability of significance tests for comparing learning algorithms", PAKDD). With the J = r·k
fold-wise score differences ``d_j`` (mean ``m``, sample variance ``s²``),

    t = m / sqrt((1/J + n_test/n_train) · s²),   df = J - 1.

The plain t-test uses ``s²/J``; because folds share training texts their scores are correlated and
the plain test finds "differences" far too often. The term ``n_test/n_train`` is Nadeau & Bengio's
heuristic for that correlation (for k-fold CV it is 1/(k - 1)). Assumes the folds were built the
same way for both models (the same splits) and roughly equal fold sizes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

EXACT_BELOW = 25
ROUNDING = 1e-12
EXACT_METHOD = "McNemar's test (exact binomial)"
CHI_SQUARE_METHOD = "McNemar's test (chi-square with continuity correction)"
CORRECTED_T_METHOD = "corrected resampled t-test (Nadeau & Bengio)"


@dataclass(frozen=True)
class McNemarResult:
    statistic: float
    p_value: float
    n_only_a_right: int
    n_only_b_right: int
    method: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class CorrectedTTestResult:
    t: float
    df: int
    p_value: float
    mean_difference: float  # mean of (A - B) over the folds
    ci_low: float
    ci_high: float
    level: float
    n_folds: int
    method: str = CORRECTED_T_METHOD

    def to_dict(self) -> dict:
        return asdict(self)


def _as_correctness(values, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one right/wrong value per test text.")
    if array.dtype != bool:
        if not np.isin(array, (0, 1)).all():
            raise ValueError(f"{name} must hold only right (True) or wrong (False) per test text.")
        array = array.astype(bool)
    return array


def mcnemar(a_right, b_right) -> McNemarResult:
    """McNemar's test for two models on the same test texts; ``a_right[i]`` says whether model A
    agrees with the human coding on text i (likewise ``b_right``)."""
    a = _as_correctness(a_right, "Model A's results")
    b = _as_correctness(b_right, "Model B's results")
    if len(a) != len(b):
        raise ValueError(f"The two models were judged on different numbers of test texts ({len(a)} and {len(b)}).")
    only_a = int(np.count_nonzero(a & ~b))
    only_b = int(np.count_nonzero(b & ~a))
    discordant = only_a + only_b
    if discordant < EXACT_BELOW:
        from scipy import stats  # imported when used: it takes a while to load

        p = stats.binomtest(only_a, discordant, 0.5).pvalue if discordant else 1.0
        return McNemarResult(float(min(only_a, only_b)), float(p), only_a, only_b, EXACT_METHOD)
    statistic = (abs(only_a - only_b) - 1) ** 2 / discordant
    from scipy import stats

    return McNemarResult(float(statistic), float(stats.chi2.sf(statistic, 1)), only_a, only_b, CHI_SQUARE_METHOD)


def corrected_resampled_t_test(
    a_scores, b_scores, n_train: int, n_test: int, level: float = 0.95
) -> CorrectedTTestResult:
    """Nadeau & Bengio's corrected t-test on per-fold scores of A and B (the same r×k folds, in the
    same order); ``n_train``/``n_test``: texts used to train and to score in one fold. Returns t,
    df, the two-sided p-value, the mean difference A - B and its ``level`` confidence interval.

    When every fold shows the same difference (up to rounding, 1e-12) the variance is 0: t is 0
    (p = 1) for a difference of 0, and ±inf (p = 0) otherwise."""
    a = np.asarray(a_scores, dtype=float)
    b = np.asarray(b_scores, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError("Both models need one score per fold, for the same folds.")
    if len(a) < 2:
        raise ValueError("The corrected t-test needs scores from at least two folds.")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("A fold score is missing or not a number.")
    if n_train <= 0 or n_test <= 0:
        raise ValueError("The numbers of training and test texts per fold must be positive.")
    if not 0 < level < 1:
        raise ValueError("The confidence level must lie between 0 and 1, e.g. 0.95.")
    differences = a - b
    folds = len(differences)
    mean = float(differences.mean())
    df = folds - 1
    if np.ptp(differences) <= ROUNDING * max(1.0, abs(mean)):
        if abs(mean) <= ROUNDING:
            return CorrectedTTestResult(0.0, df, 1.0, 0.0, 0.0, 0.0, level, folds)
        return CorrectedTTestResult(float(np.copysign(np.inf, mean)), df, 0.0, mean, mean, mean, level, folds)
    variance = float(differences.var(ddof=1)) * (1 / folds + n_test / n_train)
    se = variance**0.5
    t = mean / se
    from scipy import stats

    p = float(2 * stats.t.sf(abs(t), df))
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return CorrectedTTestResult(float(t), df, p, mean, mean - half, mean + half, level, folds)
