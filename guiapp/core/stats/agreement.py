"""How much human coders agree with each other (or a model with a coder): Cohen's kappa and
Krippendorff's alpha for nominal categories.

**Cohen's kappa** (Cohen 1960, "A coefficient of agreement for nominal scales"): two coders, every
unit coded by both; κ = (p_o - p_e) / (1 - p_e) with p_o the share of units coded alike and p_e
the agreement expected from each coder's own category shares. Same as scikit-learn's
``cohen_kappa_score``. Undefined (NaN) when both coders used one and the same category only.

**Krippendorff's alpha, nominal** (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability",
Annenberg School for Communication, Departmental Papers 43): any number of coders, missing codes
allowed. From the value counts n_uc (how many coders put unit u in category c; m_u = Σ_c n_uc),
units with m_u ≥ 2 form the coincidence matrix o_ck = Σ_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1),
with marginals n_c and total n. Then

    α = 1 - (n - 1) · (n - Σ_c o_cc) / (n² - Σ_c n_c²).

Units coded by fewer than two coders carry no information about agreement and are left out.
Because the coincidence matrix needs only the counts n_uc, data that come as per-unit counts
(e.g. "3 coders said offensive, 0 hate, 0 neither") give the same α as the coders × units matrix.
Undefined (NaN) when only one category is used at all. Assumes coders work independently and
categories are unordered.
"""

from __future__ import annotations

import numpy as np


def _is_missing(value) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, and also pandas' NaT
    except (TypeError, ValueError):
        return True  # pandas' NA cannot say whether it equals itself


def sorted_categories(values) -> list:
    """The distinct codes, sorted (by kind and text when they cannot be compared)."""
    try:
        return sorted(set(values))
    except TypeError:  # mixed kinds such as 1 and "a"
        return sorted(set(values), key=lambda v: (type(v).__name__, str(v)))


def cohen_kappa(coder_1, coder_2) -> float:
    """Cohen's kappa between two codings of the same units (any category labels)."""
    a, b = list(coder_1), list(coder_2)
    if len(a) != len(b):
        raise ValueError(f"The two codings cover different numbers of units ({len(a)} and {len(b)}).")
    if not a:
        raise ValueError("Kappa needs at least one coded unit.")
    if any(_is_missing(v) for v in a + b):
        raise ValueError("Cohen's kappa needs both codes for every unit; use Krippendorff's alpha for gaps.")
    categories = sorted_categories(a + b)
    index = {c: i for i, c in enumerate(categories)}
    k = len(categories)
    table = np.bincount([index[x] * k + index[y] for x, y in zip(a, b, strict=True)], minlength=k * k).reshape(k, k)
    return kappa_from_table(table)


def kappa_from_table(table: np.ndarray) -> float:
    """Cohen's kappa from a square table of counts (rows: coder 1, columns: coder 2)."""
    table = np.asarray(table, dtype=float)
    n = table.sum()
    observed = np.trace(table) / n
    expected = float(table.sum(axis=1) @ table.sum(axis=0)) / n**2
    if expected == 1:
        return float("nan")
    return float((observed - expected) / (1 - expected))


def value_counts(reliability_data, categories: list | None = None) -> tuple[np.ndarray, list]:
    """The coders × units matrix (as in Krippendorff's papers and the ``krippendorff`` package;
    None or NaN where a coder did not code a unit) as per-unit counts: (units × categories array,
    the categories). ``categories`` fixes their order; by default the codes found, sorted."""
    data = np.asarray(reliability_data, dtype=object)
    if data.ndim != 2:
        raise ValueError("The coding table must have one row per coder and one column per unit.")
    present = ~np.vectorize(_is_missing, otypes=[bool])(data) if data.size else np.zeros(data.shape, bool)
    found = sorted_categories(data[present].tolist())
    if categories is None:
        categories = found
    index = {c: i for i, c in enumerate(categories)}
    unknown = [v for v in found if v not in index]
    if unknown:
        raise ValueError(f"Codes not among the categories: {unknown[:5]}.")
    coders, units = np.nonzero(present)
    codes = np.array([index[v] for v in data[coders, units]], dtype=int)
    counts = np.zeros((data.shape[1], len(categories)), dtype=int)
    np.add.at(counts, (units, codes), 1)
    return counts, list(categories)


def check_counts(counts) -> np.ndarray:
    """Per-unit counts as floats; ValueError unless a 2-d table of whole numbers of zero or more."""
    counts = np.asarray(counts)
    if counts.ndim != 2:
        raise ValueError("Counts must have one row per unit and one column per category.")
    if counts.size and ((counts < 0).any() or (counts != np.round(counts)).any()):
        raise ValueError("Counts of coders must be whole numbers of zero or more.")
    return counts.astype(float)


def unit_terms(counts) -> tuple[np.ndarray, np.ndarray]:
    """Per unit: its pairable values per category (n_uc, zero for units with fewer than two codes)
    and its contribution to the coincidence diagonal Σ_c n_uc (n_uc - 1) / (m_u - 1). Summing
    these over units (with weights, for the bootstrap) gives everything alpha needs."""
    counts = check_counts(counts)
    m = counts.sum(axis=1)
    pairable = m >= 2
    values = np.where(pairable[:, None], counts, 0.0)
    diagonal = np.zeros(len(counts))
    diagonal[pairable] = (counts[pairable] * (counts[pairable] - 1)).sum(axis=1) / (m[pairable] - 1)
    return values, diagonal


def alpha_from_sums(category_totals: np.ndarray, agreeing: np.ndarray) -> np.ndarray:
    """Nominal alpha from the coincidence marginals n_c (last axis) and the diagonal sum Σ o_cc;
    works on one set of sums or a stack of them (bootstrap resamples)."""
    n = category_totals.sum(axis=-1)
    expected = n**2 - (category_totals**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1 - (n - 1) * (n - agreeing) / expected, np.nan)


def alpha_from_counts(counts) -> float:
    """Krippendorff's nominal alpha from per-unit counts (units × categories: how many coders put
    the unit in each category), e.g. the Davidson et al. (2017) columns hate_speech,
    offensive_language, neither."""
    values, diagonal = unit_terms(counts)
    return float(alpha_from_sums(values.sum(axis=0), np.asarray(diagonal.sum())))


def krippendorff_alpha(reliability_data) -> float:
    """Krippendorff's nominal alpha from a coders × units matrix with None/NaN for missing codes."""
    counts, _ = value_counts(reliability_data)
    return alpha_from_counts(counts)
