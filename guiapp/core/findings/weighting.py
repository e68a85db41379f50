"""The weight of each coded text in a design-based estimate, and the variance that the design
gives such an estimate.

Every design in the corpus is written the same way: with ``f`` the model's probabilities (the
coded texts' cross-fitted ones) and ``r = y − f`` a coded text's residual, the total of any
per-text quantity over the corpus is estimated by

    Σ_corpus f  +  Σ_coded c_i · r_i

— Horvitz–Thompson weights ``c_i = 1/π_i`` for a random sample (π = n/N), a stratified sample
(π = n_h/N_h) and independent choices with known π; the Coding step's sequential draws have
weights of their own (``sequential.py``). A :class:`Weighting` holds the weights ``c`` and
``variance(z)``: the design variance of ``Σ_coded c_i z_i`` as an estimate of ``Σ_corpus z``,
for a matrix ``z`` (one row per coded text, one column per category). The variance is what
sampling the coded texts adds; the corpus itself is fixed (its shares are the target), so a
sample that covers much of it has a narrower interval (the finite-population correction).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from guiapp.core.errors import DataError
from guiapp.core.findings.designs import KnownProbabilities, Stratified
from guiapp.core.findings.inputs import Checked, group_labels


@dataclass
class Weighting:
    """Weights of the coded texts and the design's variance of weighted totals."""

    weights: np.ndarray
    warnings: list[str] = field(default_factory=list)

    def variance(self, z: np.ndarray) -> np.ndarray:  # pragma: no cover - each design has its own
        raise NotImplementedError

    def model_variance(self, z: np.ndarray, moments: np.ndarray) -> np.ndarray | None:
        """A floor (K) under the diagonal of ``variance(z)`` from the model's expected squares of
        ``z`` (``moments``, n_coded × K, already scaled by ``shares.FLOOR_SHARE``); None for designs
        that need none (equal chances)."""
        return None


def _covariance(z: np.ndarray) -> np.ndarray:
    """Sample covariance of the rows of ``z`` (ddof 1); zero with fewer than two rows."""
    if z.shape[0] < 2:
        return np.zeros((z.shape[1], z.shape[1]))
    centred = z - z.mean(axis=0)
    return centred.T @ centred / (z.shape[0] - 1)


class SimpleRandom(Weighting):
    """A simple random sample of ``n`` of the ``N`` texts: c = N/n, and the variance of the
    expansion estimator N²(1 − n/N)·S²(z)/n."""

    def __init__(self, n_texts: int, n_coded: int) -> None:
        super().__init__(np.full(n_coded, n_texts / n_coded))
        self.n_texts, self.n_coded = n_texts, n_coded

    def variance(self, z: np.ndarray) -> np.ndarray:
        n, big_n = self.n_coded, self.n_texts
        return big_n**2 * (1 - n / big_n) * _covariance(z) / n


class StratifiedRandom(Weighting):
    """A simple random sample within each stratum h: c = N_h/n_h, variance summed over strata."""

    def __init__(self, stratum_of_coded: np.ndarray, sizes: np.ndarray, coded_sizes: np.ndarray,
                 names: tuple[str, ...]) -> None:
        super().__init__(sizes[stratum_of_coded] / coded_sizes[stratum_of_coded])
        self.stratum = stratum_of_coded
        self.sizes, self.coded_sizes = sizes, coded_sizes
        single = [names[h] for h in np.flatnonzero(coded_sizes == 1)]
        if single:
            self.warnings.append("Only one coded text in the group " + ", ".join(single[:5])
                                 + " the texts were drawn from: its part of the interval cannot be measured "
                                 "and is left out. Code at least two texts in every group.")

    def variance(self, z: np.ndarray) -> np.ndarray:
        total = np.zeros((z.shape[1], z.shape[1]))
        for h in np.flatnonzero(self.coded_sizes >= 2):
            rows = self.stratum == h
            big_n, n = self.sizes[h], self.coded_sizes[h]
            total += big_n**2 * (1 - n / big_n) * _covariance(z[rows]) / n
        return total


class Independent(Weighting):
    """Each text coded independently with a known probability π (Poisson sampling): c = 1/π,
    variance Σ (1 − π)/π² · z zᵀ."""

    def __init__(self, probabilities: np.ndarray) -> None:
        super().__init__(1.0 / probabilities)
        self.pi = probabilities

    def variance(self, z: np.ndarray) -> np.ndarray:
        scale = (1 - self.pi) / self.pi**2
        return (z * scale[:, None]).T @ z

    def model_variance(self, z: np.ndarray, moments: np.ndarray) -> np.ndarray:
        return ((1 - self.pi) / self.pi**2) @ moments


def random_sample(checked: Checked) -> SimpleRandom:
    if checked.n_coded < 2:
        raise _too_few()
    return SimpleRandom(checked.n_texts, checked.n_coded)


def stratified(design: Stratified, checked: Checked) -> StratifiedRandom:
    found = group_labels(design.strata, checked.n_texts, "texts of the corpus")
    assert found is not None and checked.positions is not None
    stratum_of_text, names = found
    sizes = np.bincount(stratum_of_text, minlength=len(names)).astype(np.float64)
    stratum_of_coded = stratum_of_text[checked.positions]
    coded_sizes = np.bincount(stratum_of_coded, minlength=len(names)).astype(np.float64)
    empty = [names[h] for h in np.flatnonzero((coded_sizes == 0) & (sizes > 0))]
    if empty:
        raise DataError("No text was coded in the group " + ", ".join(empty[:5])
                        + (" …" if len(empty) > 5 else "")
                        + ", so its texts had no chance of being coded and its share cannot be estimated.",
                        "Code a few texts drawn at random from every group, or say that the coded texts are "
                        "a random sample of the whole corpus.")
    return StratifiedRandom(stratum_of_coded, sizes, coded_sizes, names)


def independent(design: KnownProbabilities, checked: Checked) -> Independent:
    pi = np.asarray(design.probabilities, dtype=np.float64)
    if pi.shape != (checked.n_coded,):
        raise DataError(f"There are {pi.size:,} chances of being coded for {checked.n_coded:,} coded texts.",
                        "Give one chance of being chosen per coded text.")
    bad = ~np.isfinite(pi) | (pi <= 0) | (pi > 1)
    if bad.any():
        raise DataError(f"{bad.sum():,} coded texts have a chance of being chosen outside (0, 1] "
                        f"(the first: {pi[np.flatnonzero(bad)[0]]!r}).",
                        "Give each coded text the probability with which it was chosen: above 0 and at most 1.")
    if checked.n_coded < 2:
        raise _too_few()
    return Independent(pi)


def _too_few() -> DataError:
    return DataError("An interval needs at least two coded texts.", "Code more texts, drawn at random.")
