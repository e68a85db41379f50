"""The weighting of the Coding step's draws: texts drawn one at a time from the texts still open,
each with a known probability, after the file's own codings.

**What happens.** The corpus U holds N texts. The file's own codings S0 (m texts) are taken as a
simple random sample of U. TextLab then shows texts from the pool P = U \\ S0 one at a time: at
draw t it draws text i_t from the texts still open O_t (not yet coded or shown) with probability
p_t, the number the Coding step records. Between draws the researcher may code a text chosen by
hand (no probability): it simply leaves the open texts.

**The estimator** (the "active inference" form of Zrnic & Candès 2024, *Active Statistical
Inference*, ICML, for draws without replacement from a finite corpus). For a quantity z of each
text (for a share: the residual r = y − f of the category's indicator y and the model's
probability f, over N) the total Σ_P z is estimated at each draw t by

    e_t = Σ_{known before t} z  +  z_{i_t} / p_t

(the texts coded before t are known; the open ones are estimated by the drawn text, weighted by
the inverse of its probability). Given everything before draw t, e_t is exactly unbiased for
Σ_P z, whatever the strategy and however the probabilities were computed, as long as they are
the ones the text was drawn with. The T draws are averaged: ē = (1/T) Σ_t e_t. The differences
e_t − Σ_P z are martingale differences, so Var(ē) is estimated by Σ_t (e_t − ē)² / (T(T − 1))
(martingale central limit theorem).

The file's codings add the random-sample estimate A = (N/m) Σ_S0 z of Σ_U z (variance
N²(1 − m/N) S²/m); the draws give B = Σ_S0 z + ē, which is unbiased for Σ_U z given S0 and so
uncorrelated with A. They are averaged with weights m/(m+T) and T/(m+T) — which is what averaging
all m + T per-draw estimates gives when the file's codings are counted as m draws at random in a
random order (the Rao–Blackwellised form, independent of the order of the file's rows). With
fewer than two codings in the file or fewer than two draws, all of them are taken as one sequence
(the file's codings first, as draws at random in a fixed random order).

**What it assumes.** (1) The recorded probability of each draw is the one it was drawn with, and
every open text had a chance above 0 (the Coding step mixes an even share into every strategy).
(2) The file's codings are a random sample of the corpus. (3) A text shown and skipped counts with
the model's answer (its residual is taken as 0): a bias when skipped texts are the model's
mistakes. (4) A text coded by hand counts as known from then on, but stands for no other text.
(5) The model's probabilities are fixed while the draws happen; TextLab uses the final model, with
cross-fitted probabilities for the coded texts, as design-based supervised learning does (Egami
et al. 2023) — a small dependence that cross-fitting keeps from biasing the estimate.

**The model's floor** (:meth:`SequentialDraws.model_variance`): the per-draw deviations are a
lottery when a few draws carry large weights; given the past, draw t adds z_t/p_t, whose expected
square under the model's probabilities is known without that luck, and the variance used is the
larger of the observed one and half the one from those expected squares (see ``shares.py``).
"""

from __future__ import annotations

import numpy as np

from guiapp.core.errors import DataError
from guiapp.core.findings.designs import CodingStepDraws
from guiapp.core.findings.inputs import Checked
from guiapp.core.findings.weighting import Weighting, _covariance

ORDER_SEED = 20230  # the fixed random order of the file's codings when they are taken as draws


class SequentialDraws(Weighting):
    """Weights and variance of the Coding step's draws (see the module docstring)."""

    def __init__(self, n_texts: int, initial: np.ndarray, events: np.ndarray, is_draw: np.ndarray,
                 p: np.ndarray, n_coded: int) -> None:
        """``initial``: coded indices of the file's codings taken as a random sample (A part; empty
        when they are taken as draws); ``events``: in order, the coded index of each text shown
        (−1: skipped), ``is_draw`` whether it was drawn (else chosen by hand), ``p`` its probability."""
        self.n_texts = n_texts
        self.initial = initial
        self.events, self.is_draw, self.p = events, is_draw, p
        self.draws = np.flatnonzero(is_draw)
        m, t = len(initial), len(self.draws)
        self.alpha = m / (m + t) if m + t else 0.0
        self.beta = 1.0 - self.alpha
        weights = np.zeros(n_coded)
        if m:
            weights[initial] = self.alpha * n_texts / m + self.beta
        if t:
            draws_after = t - np.cumsum(is_draw)  # draws after each event
            coded = events >= 0
            part = draws_after / t + np.where(is_draw, 1.0 / (t * np.where(is_draw, p, 1.0)), 0.0)
            weights[events[coded]] += self.beta * part[coded]
        super().__init__(weights)

    def per_draw(self, z: np.ndarray) -> np.ndarray:
        """The per-draw estimates e_t of the pool's total of ``z`` (T × K)."""
        values = np.zeros((len(self.events), z.shape[1]))
        coded = self.events >= 0
        values[coded] = z[self.events[coded]]
        known_before = np.cumsum(values, axis=0) - values
        d = self.draws
        return known_before[d] + values[d] / self.p[d][:, None]

    def variance(self, z: np.ndarray) -> np.ndarray:
        k = z.shape[1]
        total = np.zeros((k, k))
        m = len(self.initial)
        if m >= 2:
            total += self.alpha**2 * self.n_texts**2 * (1 - m / self.n_texts) * _covariance(z[self.initial]) / m
        t = len(self.draws)
        if t >= 2:
            total += self.beta**2 * _covariance(self.per_draw(z)) / t
        return total

    def model_variance(self, z: np.ndarray, moments: np.ndarray) -> np.ndarray:
        """The file's codings' part as observed, the draws' from the model: given what came before,
        draw t adds z_t / p_t, whose expected square is the moment over p_t²."""
        m, t = len(self.initial), len(self.draws)
        floor = np.zeros(z.shape[1])
        if m >= 2:
            spread = np.diag(_covariance(z[self.initial]))
            floor += self.alpha**2 * self.n_texts**2 * (1 - m / self.n_texts) * spread / m
        if t >= 1:
            drawn = self.events[self.draws]
            coded = drawn >= 0
            p = self.p[self.draws][coded]
            floor += self.beta**2 * (moments[drawn[coded]] / p[:, None] ** 2).sum(axis=0) / t**2
        return floor


def sequential(design: CodingStepDraws, checked: Checked) -> SequentialDraws:
    """The weighting of ``design`` for the coded texts of ``checked`` (which must be in the corpus)."""
    assert checked.positions is not None
    n = checked.n_texts
    where = np.full(n, -1, dtype=np.intp)  # coded index of each corpus text
    where[checked.positions] = np.arange(checked.n_coded)
    initial = _positions(design.initial, n, "the file's codings")
    steps = list(design.steps)
    shown = _positions([getattr(step, "position", None) for step in steps], n, "the texts TextLab showed")
    if len(np.unique(initial)) != len(initial) or len(np.unique(shown)) != len(shown):
        raise DataError("A text is listed twice among the file's codings or the texts TextLab showed.",
                        "List each text once, where it was first coded or shown.")
    if np.intersect1d(initial, shown).size:
        raise DataError("A text the file had already coded is listed as shown by TextLab's Coding step.",
                        "TextLab only shows texts the file leaves uncoded; check that the codings belong to "
                        "this table.")
    p = np.array([_probability(step.probability) for step in steps], dtype=np.float64)
    is_draw = ~np.isnan(p)
    if (where[initial] < 0).any():
        raise DataError("Some of the file's codings are missing from the coded texts given.",
                        "Give every coded text, the file's codings included.")
    listed = np.zeros(n, dtype=bool)
    listed[initial] = True
    listed[shown] = True
    if not listed[checked.positions].all():
        unlisted = int((~listed[checked.positions]).sum())
        raise DataError(f"{unlisted:,} coded texts were neither coded in the file nor shown by the Coding step, "
                        "so the chance with which they were chosen is unknown.",
                        "Build the design from the Coding step's record of this table (design_from_log).")
    events = where[shown]
    coded_initial = where[initial]
    n_draws = int(is_draw.sum())
    warnings: list[str] = []
    if len(initial) < 2 or n_draws == 1:  # one sequence: the file's codings as draws at random first
        order = np.random.default_rng(ORDER_SEED).permutation(len(initial))
        first = coded_initial[order]
        events = np.concatenate([first, events])
        p = np.concatenate([1.0 / (n - np.arange(len(first))), p])
        is_draw = np.concatenate([np.ones(len(first), dtype=bool), is_draw])
        coded_initial = np.zeros(0, dtype=np.intp)
        n_draws = int(is_draw.sum())
    if n_draws + len(coded_initial) < 2:
        raise DataError("An interval needs at least two coded texts drawn at random or by the Coding step.",
                        "Code more texts in the Coding step.")
    left_out = int(np.isin(shown, np.asarray(list(design.left_out), dtype=np.intp)).sum()) if len(design.left_out) else 0
    skipped = int(((events < 0) & is_draw).sum()) - left_out
    by_hand = int(((events >= 0) & ~is_draw).sum())
    if skipped:
        warnings.append(f"{skipped:,} texts drawn for coding were skipped; they count with the model's answer, "
                        "which biases the shares if the model is often wrong on such texts.")
    if left_out:
        one = left_out == 1
        warnings.append(f"{left_out:,} text{'' if one else 's'} drawn for coding {'was' if one else 'were'} left out "
                        f"because {'its' if one else 'their'} coders disagreed and no one adjudicated "
                        f"{'it' if one else 'them'}; {'it counts' if one else 'they count'} with the model's answer, "
                        "which biases the shares if the model is often wrong on such texts. Adjudicate "
                        f"{'it' if one else 'them'} on the Coding step.")
    if by_hand:
        warnings.append(f"{by_hand:,} texts were chosen by hand rather than drawn; their codings count, but they "
                        "do not stand for other texts.")
    weighting = SequentialDraws(n, coded_initial, events, is_draw, np.where(is_draw, p, 1.0), checked.n_coded)
    weighting.warnings.extend(warnings)
    return weighting


def _positions(values: object, n: int, what: str) -> np.ndarray:
    array = np.asarray(list(values), dtype=object)  # type: ignore[call-overload]
    if array.size and not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in array):
        raise DataError(f"The positions of {what} are not whole numbers.",
                        "Give positions in the corpus (0 for its first text).")
    positions = array.astype(np.intp)
    if positions.size and (positions.min() < 0 or positions.max() >= n):
        raise DataError(f"A position among {what} lies outside the corpus of {n:,} texts.",
                        "Give positions between 0 and the number of texts minus 1.")
    return positions


def _probability(value: float | None) -> float:
    if value is None:
        return float("nan")
    try:
        probability = float(value)
    except (TypeError, ValueError):
        probability = float("nan")
    if not (np.isfinite(probability) and 0 < probability <= 1):
        raise DataError(f"A text was drawn with the probability {value!r}, which lies outside (0, 1].",
                        "Use the probabilities the Coding step recorded; each lies above 0 and at most 1.")
    return probability
