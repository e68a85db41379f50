"""Is one model better than another? Three paired tests.

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

**Paired bootstrap of the difference in macro-F1** (Efron & Tibshirani 1993, ch. 16; for
classifiers: Koehn 2004, "Statistical significance tests for machine translation evaluation";
Berg-Kirkpatrick et al. 2012, "An empirical investigation of statistical significance in NLP").
For studies where a text can have several categories, where "right or wrong" per text loses most
of the information McNemar's test needs. Both models are scored on the same B resamples of the
test texts (whole texts drawn with replacement), giving B differences d*_b of macro-F1 (A - B).
The interval is their percentile interval; the two-sided p-value centres them on the observed
difference d (so that they mimic "no difference") and counts how often they lie at least as far
from 0 as d: p = (1 + #{|d*_b - d| >= |d|}) / (B + 1). Identical predictions give d = 0, an
interval of (0, 0) and p = 1. Assumes independent test texts not used to train or tune either model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guiapp.core.stats.multilabel_scores import bootstrap_f1, macro_f1
from guiapp.core.stats.plain_record import PlainRecord

EXACT_BELOW = 25
ROUNDING = 1e-12
EXACT_METHOD = "McNemar's test (exact binomial)"
CHI_SQUARE_METHOD = "McNemar's test (chi-square with continuity correction)"
CORRECTED_T_METHOD = "corrected resampled t-test (Nadeau & Bengio)"
PAIRED_BOOTSTRAP_METHOD = "paired bootstrap over the test texts (difference in macro-F1)"


@dataclass(frozen=True)
class McNemarResult(PlainRecord):
    statistic: float
    p_value: float
    n_only_a_right: int
    n_only_b_right: int
    method: str


@dataclass(frozen=True)
class CorrectedTTestResult(PlainRecord):
    t: float
    df: int
    p_value: float
    mean_difference: float  # mean of (A - B) over the folds
    ci_low: float
    ci_high: float
    level: float
    n_folds: int
    method: str = CORRECTED_T_METHOD


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


@dataclass(frozen=True)
class PairedBootstrapResult(PlainRecord):
    difference: float  # observed macro-F1 of A minus that of B
    ci_low: float
    ci_high: float
    level: float
    p_value: float
    samples: int
    n_texts: int
    method: str = PAIRED_BOOTSTRAP_METHOD


def paired_bootstrap(
    observed_difference: float, resampled_differences, level: float = 0.95, n_texts: int = 0
) -> PairedBootstrapResult:
    """The paired bootstrap test from the observed difference A - B and the differences on the
    resamples (both models scored on the same resamples of the test texts)."""
    differences = np.asarray(resampled_differences, dtype=float)
    if differences.ndim != 1 or len(differences) < 1:
        raise ValueError("The paired bootstrap needs at least one resample.")
    if not np.isfinite(differences).all() or not np.isfinite(observed_difference):
        raise ValueError("A resampled score is missing or not a number.")
    if not 0 < level < 1:
        raise ValueError("The confidence level must lie between 0 and 1, e.g. 0.95.")
    d = float(observed_difference)
    as_far = np.abs(differences - d) >= abs(d) - ROUNDING
    p = (1 + int(np.count_nonzero(as_far))) / (len(differences) + 1)
    low, high = np.quantile(differences, [(1 - level) / 2, (1 + level) / 2])
    return PairedBootstrapResult(d, float(low), float(high), level, float(min(1.0, p)), len(differences), n_texts)


def paired_bootstrap_macro_f1(
    y_true, a_pred, b_pred, samples: int = 1000, seed: int = 0, level: float = 0.95
) -> PairedBootstrapResult:
    """The paired bootstrap of the difference in macro-F1 (A - B) between two models' predicted
    categories for the same test texts; all three are texts × categories 0/1 tables."""
    observed = macro_f1(y_true, a_pred) - macro_f1(y_true, b_pred)
    resampled = bootstrap_f1(y_true, [a_pred, b_pred], samples, seed)[0]
    return paired_bootstrap(observed, resampled[:, 0] - resampled[:, 1], level, len(np.asarray(y_true)))
