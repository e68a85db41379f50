"""A regression of one category's indicator on metadata columns ("economy ~ party + year") whose
standard errors carry the model's mistakes.

**Coded texts of the corpus** (every design but :class:`SeparateSample`): design-based supervised
learning's method of moments (Egami et al. 2023). Each text's indicator is replaced by the
pseudo-outcome

    ỹ = f + w · (y − f)      (coded texts; w the design's weight, 1/π for a random sample)
    ỹ = f                    (the others)

with f the model's probability of the category (cross-fitted for the coded texts), and the linear or
logistic regression is fitted to ỹ by statsmodels (OLS; a binomial GLM, whose score equations
Σ x (ỹ − μ) = 0 stay valid when ỹ leaves [0, 1]). Its robust sandwich (HC0) standard errors are
DSL's: they add the variance of the coded texts' corrections to the regression's own. The
coefficients describe the process behind the corpus, so unlike the shares they carry the corpus's
own sampling variation. The Coding step's draws use their sequential weights (``sequential.py``)
in place of 1/π, which treats the draws as independent in the variance — an approximation.

**Coded texts outside the corpus** (:class:`SeparateSample`): prediction-powered regression
(PPI++, Angelopoulos, Duchi & Zrnic 2023) with power tuning: the linear model as the least-squares
fit of λf on the corpus plus that of y − λf on the coded texts, the logistic model as the minimiser
of the rectified loss; variance as in the authors' ``ppi-python`` (``ppi_ols_ci`` /
``ppi_logistic_ci``). The coded texts' metadata columns must be given (``CodedSample.metadata``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit
from scipy.stats import norm

from guiapp.core.errors import DataError
from guiapp.core.findings.design_weights import weighting_for
from guiapp.core.findings.designs import (
    OtherCorpus,
    RandomSample,
    SeparateSample,
    check_design,
)
from guiapp.core.findings.inputs import CodedSample, check_inputs, check_level

KINDS = ("logistic", "linear")
MIN_CODED = 30


@dataclass(frozen=True)
class Coefficient:
    term: str
    estimate: float
    standard_error: float
    z: float
    p_value: float
    low: float
    high: float


@dataclass(frozen=True)
class Regression:
    outcome: str
    kind: str  # "logistic" | "linear"
    formula: str
    coefficients: tuple[Coefficient, ...]
    n_texts: int  # texts used (those with every column filled)
    n_coded: int  # coded texts among them
    method: str
    assumption: str
    level: float
    warnings: tuple[str, ...] = ()

    def coefficient(self, term: str) -> Coefficient:
        for coefficient in self.coefficients:
            if coefficient.term == term:
                return coefficient
        raise DataError(f"The regression has no term “{term}”.",
                        "Choose one of: " + ", ".join(c.term for c in self.coefficients) + ".")

    def to_frame(self) -> pd.DataFrame:
        """One row per term; a logistic regression adds the odds ratio and its interval."""
        rows = []
        for c in self.coefficients:
            row = {"term": c.term, "estimate": c.estimate, "standard error": c.standard_error, "z": c.z,
                   "p-value": c.p_value, "low": c.low, "high": c.high}
            if self.kind == "logistic":
                with np.errstate(over="ignore"):  # an intercept far from 0 (years as numbers): "inf"
                    row.update({"odds ratio": float(np.exp(c.estimate)), "odds ratio low": float(np.exp(c.low)),
                                "odds ratio high": float(np.exp(c.high))})
            rows.append(row)
        frame = pd.DataFrame(rows)
        frame.attrs.update(outcome=self.outcome, kind=self.kind, formula=self.formula, level=self.level,
                           n_texts=self.n_texts, n_coded=self.n_coded, method=self.method)
        return frame


def formula_for(outcome: str, columns: Sequence[str]) -> str:
    """The formula regressing ``outcome`` on ``columns``, names that are not plain words quoted."""
    if not columns:
        raise DataError("A regression needs at least one column to explain the category by.",
                        "Choose one or more metadata columns.")
    return f"{outcome} ~ " + " + ".join(_term(str(column)) for column in columns)


def _term(name: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    return "Q(" + repr(name) + ")"


def parse_formula(formula: str, categories: Sequence[str]) -> tuple[str, str]:
    """(the outcome category, the right-hand side for patsy)."""
    if not isinstance(formula, str) or formula.count("~") != 1:
        raise DataError(f"“{formula}” is not a regression formula.",
                        "Write the category, a tilde and the columns, such as: economy ~ party + year.")
    left, right = (part.strip() for part in formula.split("~"))
    quoted = re.fullmatch(r"Q\((['\"])(.*)\1\)", left) or re.fullmatch(r"([`'\"])(.*)\1", left)
    outcome = quoted.group(2) if quoted else left
    if outcome not in categories:
        raise DataError(f"“{outcome}” is not one of the categories.",
                        "Put one of these left of the tilde: " + ", ".join(map(str, categories[:10])) + ".")
    if not right:
        raise DataError("The formula names no column to explain the category by.",
                        "Add columns right of the tilde, such as: economy ~ party + year.")
    right = re.sub(r"`([^`]+)`", lambda m: "Q(" + repr(m.group(1)) + ")", right)
    return outcome, right


def regress(formula: str, data: pd.DataFrame, probabilities: np.ndarray, categories: Sequence[str],
            coded: CodedSample, design: object = RandomSample(), *, kind: str = "logistic",
            level: float = 0.95) -> Regression:
    """Regress the indicator of the category left of ``~`` on the columns right of it (patsy
    syntax: ``C(year)`` makes a number a category, ``Q("a name")`` quotes a name). ``data``: the
    metadata of the corpus texts, one row per text in the order of ``probabilities``."""
    if kind not in KINDS:
        raise DataError(f"There is no regression called “{kind}”.", "Choose “logistic” or “linear”.")
    level = check_level(level)
    check_design(design, coded.in_corpus)
    if isinstance(design, OtherCorpus):
        raise DataError("A regression needs coded texts from the corpus or from the same kind of texts.",
                        "When no coded text comes from this corpus, only the shares can be adjusted.")
    checked = check_inputs(probabilities, categories, coded)
    outcome, right = parse_formula(formula, checked.categories)
    k = checked.categories.index(outcome)
    if not isinstance(data, pd.DataFrame) or len(data) != checked.n_texts:
        raise DataError(f"The metadata have {len(data) if hasattr(data, '__len__') else 0:,} rows for "
                        f"{checked.n_texts:,} texts.", "Give the metadata columns of every text of the corpus.")
    x, design_info, kept = _design_matrix(right, data.reset_index(drop=True))
    warnings = []
    dropped = checked.n_texts - len(kept)
    if dropped:
        warnings.append(f"{dropped:,} texts are left out because a column of the formula is empty for them.")
    if isinstance(design, SeparateSample):
        if coded.metadata is None or len(coded.metadata) != checked.n_coded:
            raise DataError("The coded texts' metadata columns are not given.",
                            "The coded texts are not part of the corpus, so the regression needs their columns "
                            "too (one row per coded text).")
        x_coded, coded_kept = _coded_matrix(design_info, coded.metadata.reset_index(drop=True))
        estimate, covariance = _ppi_fit(kind, x, checked.f_model[kept, k], x_coded,
                                        checked.y[coded_kept, k], checked.f_coded[coded_kept, k])
        n_coded = len(coded_kept)
        method = ("prediction-powered regression with power tuning (PPI++; Angelopoulos, Duchi & Zrnic 2023), "
                  "the coded texts being a separate random sample")
    else:
        weighting = weighting_for(design, checked)
        warnings.extend(weighting.warnings)
        assert checked.positions is not None
        pseudo = checked.f[:, k].copy()
        c = weighting.weights
        pseudo[checked.positions] += c * (checked.y[:, k] - checked.f_coded[:, k])
        estimate, covariance = _dsl_fit(kind, x, pseudo[kept])
        in_kept = np.zeros(checked.n_texts, dtype=bool)
        in_kept[kept] = True
        n_coded = int(in_kept[checked.positions].sum())
        method = ("design-based supervised learning (Egami et al. 2023): the regression of a pseudo-outcome that "
                  "corrects the model's probability by its mistakes on the coded texts, with robust standard errors")
    if n_coded < MIN_CODED:
        warnings.append(f"Only {n_coded:,} coded texts: the standard errors are rough. Code at least "
                        f"{MIN_CODED} texts.")
    z = float(norm.ppf(0.5 + level / 2))
    se = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    coefficients = []
    for name, value, error in zip(design_info.column_names, estimate, se, strict=True):
        ratio = value / error if error > 0 else float("inf") * np.sign(value)
        p_value = float(2 * norm.sf(abs(ratio))) if error > 0 else float(value == 0)
        coefficients.append(Coefficient(name, float(value), float(error), float(ratio), p_value,
                                        float(value - z * error), float(value + z * error)))
    return Regression(outcome, kind, formula, tuple(coefficients), len(kept), n_coded, method,
                      design.assumption, level, tuple(warnings))  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- design matrices
def _design_matrix(right: str, data: pd.DataFrame):
    import patsy

    try:
        matrix = patsy.dmatrix(right, data, NA_action="drop", return_type="dataframe")
    except Exception as error:  # patsy's errors name the formula's problem
        raise DataError(f"The formula's right side “{right}” cannot be read: {_first_line(error)}",
                        "Use the columns' names joined by +; quote a name with spaces as Q(\"a name\").") from error
    kept = matrix.index.to_numpy(dtype=np.intp)
    if len(kept) <= matrix.shape[1]:
        raise DataError(f"Only {len(kept):,} texts have every column of the formula filled, too few for "
                        f"{matrix.shape[1]} terms.", "Choose columns that are filled for most texts.")
    x = matrix.to_numpy(dtype=np.float64)
    if np.linalg.matrix_rank(x) < x.shape[1]:
        raise DataError("Some columns of the formula say the same thing (or a column has one value only), so "
                        "their effects cannot be told apart.", "Leave out one of the overlapping columns.")
    return x, matrix.design_info, kept


def _coded_matrix(design_info, metadata: pd.DataFrame):
    import patsy

    try:
        matrix = patsy.dmatrix(design_info, metadata, NA_action="drop", return_type="dataframe")
    except Exception as error:
        raise DataError(f"The coded texts' columns do not fit the formula: {_first_line(error)}",
                        "Give the coded texts the same columns, with values the corpus also has.") from error
    return matrix.to_numpy(dtype=np.float64), matrix.index.to_numpy(dtype=np.intp)


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


# ---------------------------------------------------------------------- fits
def _dsl_fit(kind: str, x: np.ndarray, pseudo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' fit of the pseudo-outcome with HC0 (sandwich) covariance."""
    import statsmodels.api as sm

    if kind == "linear":
        fitted = sm.OLS(pseudo, x).fit(cov_type="HC0")
        return np.asarray(fitted.params), np.asarray(fitted.cov_params())
    fitted = sm.GLM(pseudo, x, family=sm.families.Binomial()).fit(cov_type="HC0", maxiter=200)
    params = np.asarray(fitted.params)
    mu = expit(x @ params)
    score = np.abs(x.T @ (pseudo - mu)).max() / len(pseudo)
    if not np.all(np.isfinite(params)) or score > 1e-6:
        raise DataError("The logistic regression did not settle: some column almost perfectly predicts the "
                        "category.", "Leave out that column, or use a linear regression.")
    return params, np.asarray(fitted.cov_params())


def _ppi_stats(kind: str, beta: np.ndarray, x_c: np.ndarray, f_c: np.ndarray, x_l: np.ndarray,
               y_l: np.ndarray, f_l: np.ndarray):
    """ppi-python's gradients (labelled, labelled with predictions, unlabelled) and inverse Hessian
    (pooled over both samples)."""
    n, big_n = len(y_l), len(f_c)
    if kind == "linear":
        mu_c, mu_l = x_c @ beta, x_l @ beta
        w_c, w_l = np.ones(big_n), np.ones(n)
    else:
        mu_c, mu_l = expit(x_c @ beta), expit(x_l @ beta)
        w_c, w_l = mu_c * (1 - mu_c), mu_l * (1 - mu_l)
    hessian = ((x_c * w_c[:, None]).T @ x_c + (x_l * w_l[:, None]).T @ x_l) / (big_n + n)
    grads = x_l * (mu_l - y_l)[:, None]
    grads_hat = x_l * (mu_l - f_l)[:, None]
    grads_hat_c = x_c * (mu_c - f_c)[:, None]
    return grads, grads_hat, grads_hat_c, np.linalg.inv(hessian)


def _ppi_point(kind: str, lam: float, x_c, f_c, x_l, y_l, f_l) -> np.ndarray:
    if kind == "linear":
        imputed = np.linalg.lstsq(x_c, lam * f_c, rcond=None)[0]
        rectifier = np.linalg.lstsq(x_l, y_l - lam * f_l, rcond=None)[0]
        return imputed + rectifier
    n, big_n = len(y_l), len(f_c)
    beta = np.zeros(x_c.shape[1])
    for _ in range(100):  # Newton on the rectified logistic loss (convex for λ ≤ 1)
        mu_c, mu_l = expit(x_c @ beta), expit(x_l @ beta)
        gradient = (lam * x_c.T @ (mu_c - f_c) / big_n - lam * x_l.T @ (mu_l - f_l) / n
                    + x_l.T @ (mu_l - y_l) / n)
        w_c, w_l = mu_c * (1 - mu_c), mu_l * (1 - mu_l)
        hessian = lam * (x_c * w_c[:, None]).T @ x_c / big_n + (1 - lam) * (x_l * w_l[:, None]).T @ x_l / n
        step = np.linalg.solve(hessian + 1e-12 * np.eye(len(beta)), gradient)
        beta = beta - step
        if np.abs(step).max() < 1e-10:
            return beta
    if not np.all(np.isfinite(beta)):
        raise DataError("The logistic regression did not settle: some column almost perfectly predicts the "
                        "category.", "Leave out that column, or use a linear regression.")
    return beta


def _ppi_fit(kind: str, x_c, f_c, x_l, y_l, f_l, lam: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """PPI++ estimate and covariance; λ tuned (clipped to [0, 1]) at the λ = 1 estimate unless given."""
    n, big_n = len(y_l), len(f_c)
    d = x_c.shape[1]
    if lam is None:
        first = _ppi_point(kind, 1.0, x_c, f_c, x_l, y_l, f_l)
        grads, grads_hat, grads_hat_c, inv_h = _ppi_stats(kind, first, x_c, f_c, x_l, y_l, f_l)
        lam = tuned_regression_power(grads, grads_hat, grads_hat_c, inv_h)
    beta = _ppi_point(kind, lam, x_c, f_c, x_l, y_l, f_l)
    grads, grads_hat, grads_hat_c, inv_h = _ppi_stats(kind, beta, x_c, f_c, x_l, y_l, f_l)
    var_c = np.cov((lam * grads_hat_c).T).reshape(d, d)
    var_l = np.cov((grads - lam * grads_hat).T).reshape(d, d)
    covariance = inv_h @ (n / big_n * var_c + var_l) @ inv_h / n
    return beta, covariance


def tuned_regression_power(grads, grads_hat, grads_hat_c, inv_h) -> float:
    """PPI++'s λ for a GLM (ppi-python's ``_calc_lam_glm``, mode "overall", clipped to [0, 1])."""
    n, big_n = len(grads), len(grads_hat_c)
    d = inv_h.shape[0]
    gc, hc = grads - grads.mean(axis=0), grads_hat - grads_hat.mean(axis=0)
    cov = (gc.T @ hc + hc.T @ gc) / n
    var_hat = np.cov(np.concatenate([grads_hat, grads_hat_c], axis=0).T).reshape(d, d)
    denominator = 2 * (1 + n / big_n) * np.trace(inv_h @ var_hat @ inv_h)
    if denominator <= 1e-300:
        return 1.0
    return float(np.clip(np.trace(inv_h @ cov @ inv_h) / denominator, 0.0, 1.0))
