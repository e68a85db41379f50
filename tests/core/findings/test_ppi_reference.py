"""The i.i.d. case against the authors' reference library ppi-python (a test-only dependency: it
brings numba; skipped when it is not installed)."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.findings import CodedSample, SeparateSample, estimate_findings
from guiapp.core.findings.regression import _ppi_fit

ppi = pytest.importorskip("ppi_py")

CATS = ("x", "y", "z")


def _sample(seed: int, n: int = 400, big_n: int = 5000):
    rng = np.random.default_rng(seed)

    def texts(m: int):
        truth = rng.dirichlet([1.0, 1.0, 1.0], size=m)
        labels = np.array([rng.choice(3, p=p) for p in truth])
        predicted = 0.3 * truth + 0.7 * rng.dirichlet([1.0, 1.0, 1.0], size=m)
        return labels, predicted

    labels, coded_probabilities = texts(n)
    _, corpus = texts(big_n)
    return labels, coded_probabilities, corpus


@pytest.mark.parametrize("seed", [0, 1])
def test_shares_equal_ppi_python_with_power_tuning(seed):
    labels, coded_probabilities, corpus = _sample(seed)
    y = np.eye(3)[labels]
    coded = CodedSample([CATS[i] for i in labels], coded_probabilities)
    found = estimate_findings(corpus, CATS, coded, SeparateSample())
    point = ppi.ppi_mean_pointestimate(y, coded_probabilities, corpus)
    low, high = ppi.ppi_mean_ci(y, coded_probabilities, corpus, alpha=0.05)
    assert [s.estimate for s in found.overall()] == pytest.approx(np.ravel(point), abs=1e-10)
    _same_errors_and_close_intervals(found, low, high, 0.95)
    assert 0 < found.power < 1


def _same_errors_and_close_intervals(found, low, high, level: float) -> None:
    """The standard errors are ppi-python's; the score interval differs from its plain one by a
    fraction of a point with 400 coded texts."""
    from scipy.stats import norm

    z = norm.ppf(0.5 + level / 2)
    errors = (np.ravel(high) - np.ravel(low)) / (2 * z)
    assert [s.standard_error for s in found.overall()] == pytest.approx(errors, abs=1e-10)
    assert [s.low for s in found.overall()] == pytest.approx(np.ravel(low), abs=0.004)
    assert [s.high for s in found.overall()] == pytest.approx(np.ravel(high), abs=0.004)


def test_shares_without_tuning_equal_ppi_python_with_lambda_one():
    labels, coded_probabilities, corpus = _sample(2)
    y = np.eye(3)[labels]
    found = estimate_findings(corpus, CATS, CodedSample([CATS[i] for i in labels], coded_probabilities),
                              SeparateSample(), power_tuning=False, level=0.9)
    low, high = ppi.ppi_mean_ci(y, coded_probabilities, corpus, alpha=0.1, lam=1)
    _same_errors_and_close_intervals(found, low, high, 0.9)


def _regression_data(seed: int, n: int = 300, big_n: int = 3000):
    rng = np.random.default_rng(seed)

    def texts(m: int):
        x = np.column_stack([np.ones(m), rng.normal(size=m), rng.integers(0, 2, m)])
        chance = 1 / (1 + np.exp(-(x @ np.array([-0.3, 0.8, -0.5]))))
        y = (rng.random(m) < chance).astype(float)
        f = np.clip(0.7 * chance + 0.3 * rng.random(m), 0.01, 0.99)
        return x, y, f

    x_l, y_l, f_l = texts(n)
    x_c, _, f_c = texts(big_n)
    return x_l, y_l, f_l, x_c, f_c


@pytest.mark.parametrize("lam", [1.0, 0.6])
def test_linear_regression_equals_ppi_python(lam):
    x_l, y_l, f_l, x_c, f_c = _regression_data(3)
    beta, _ = _ppi_fit("linear", x_c, f_c, x_l, y_l, f_l, lam=lam)
    # the point estimate only: ppi-python's interval compiles a numba function for several seconds
    assert beta == pytest.approx(ppi.ppi_ols_pointestimate(x_l, y_l, f_l, x_c, f_c, lam=lam), abs=1e-10)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # ppi-python's scikit-learn call
def test_logistic_regression_equals_ppi_python():
    x_l, y_l, f_l, x_c, f_c = _regression_data(4)
    beta, covariance = _ppi_fit("logistic", x_c, f_c, x_l, y_l, f_l, lam=0.6)
    reference = ppi.ppi_logistic_pointestimate(x_l, y_l, f_l, x_c, f_c, lam=0.6)
    assert beta == pytest.approx(reference, abs=1e-4)  # ppi-python minimises with L-BFGS
    # its interval compiles numba functions for several seconds: the same formula, written out here
    n, big_n = len(y_l), len(f_c)
    mu_l, mu_c = 1 / (1 + np.exp(-x_l @ beta)), 1 / (1 + np.exp(-x_c @ beta))
    w_l, w_c = mu_l * (1 - mu_l), mu_c * (1 - mu_c)
    inverse = np.linalg.inv(((x_l * w_l[:, None]).T @ x_l + (x_c * w_c[:, None]).T @ x_c) / (n + big_n))
    grads, grads_hat = x_l * (mu_l - y_l)[:, None], x_l * (mu_l - f_l)[:, None]
    grads_hat_c = x_c * (mu_c - f_c)[:, None]
    sigma = inverse @ (n / big_n * np.cov(0.6 * grads_hat_c.T) + np.cov(grads.T - 0.6 * grads_hat.T)) @ inverse / n
    assert covariance == pytest.approx(sigma, rel=1e-8)
