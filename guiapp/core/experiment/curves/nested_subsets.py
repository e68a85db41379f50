"""Which training texts each point of a learning curve learns from: nested, stratified, repeatable.

For every repeat, the training texts are put in one random order that is stratified at every
length: each category's texts are shuffled, and the k-th text of a category with n_c training
texts gets the place (k + ½) / n_c (ties broken at random), so that the first n texts of the order
hold each category within about one text of its share. A subset of size n is the first n texts of
its repeat's order, so every smaller subset is contained in every larger one of the same repeat
(nested, as in the reference protocol: 500 ⊂ 1,000 ⊂ 2,000 ⊂ 5,000 ⊂ 10,000). Only the study's
training texts are ever ordered; its test texts stay the one fixed test set.

Each repeat has a seed of its own, derived from the study's seed (``numpy.random.SeedSequence``),
so the same study gives the same curve, and asking for more repeats keeps the earlier ones.

**Default sizes** (:func:`default_sizes`) adapt to the training texts so that a curve always has at
least ``MIN_POINTS`` (4) points: the reference protocol's 500, 1,000, 2,000, 5,000 and 10,000 below
the number of training texts (and not within 10% of it), then all of them — when that gives 4 points
or more (more than 2,200 training texts). Otherwise all training texts and 3 halvings below them (4 when the smallest
still holds ``HALVING_FLOOR`` texts), rounded to round numbers: 639 training texts give 80, 160,
320 and 639. Below 80 training texts, 4 sizes evenly spaced on a log scale from ``SMALLEST_SIZE``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guiapp.core.errors import UserError

DEFAULT_SIZES = (500, 1_000, 2_000, 5_000, 10_000)
DEFAULT_REPEATS = 5
PAPER_TUNING_SIZE = 1_000  # the reference protocol tunes on the 1,000-text subset of the first repeat
SMALLEST_SIZE = 10
MIN_POINTS = 4  # a default curve has at least this many sizes (all training texts included)
HALVING_FLOOR = 50  # a fifth, smaller size is added by halving when it still holds this many texts
NEAR_ALL = 1.1  # a default size within 10% of all training texts would repeat that last point


def default_sizes(n_train: int) -> list[int]:
    """The sizes of a curve nobody chose sizes for, smallest first, ending with all ``n_train``
    training texts (module docstring); [] when there are fewer than ``SMALLEST_SIZE``."""
    n_train = int(n_train)
    if n_train < SMALLEST_SIZE:
        return []
    paper = [size for size in DEFAULT_SIZES if size * NEAR_ALL < n_train] + [n_train]
    if len(paper) >= MIN_POINTS:
        return paper
    if n_train >= 8 * SMALLEST_SIZE:
        halvings = MIN_POINTS if n_train / 2 ** MIN_POINTS >= HALVING_FLOOR else MIN_POINTS - 1
        below = [_round_size(n_train / 2 ** k) for k in range(halvings, 0, -1)]
    else:
        below = [int(round(size)) for size in np.geomspace(SMALLEST_SIZE, n_train, MIN_POINTS)[:-1]]
    return sorted({size for size in below if SMALLEST_SIZE <= size < n_train} | {n_train})


FEW_SHOT_PER_CATEGORY = (8, 16, 32, 64)  # coded texts per category where few-shot models (SetFit) are compared


def few_shot_sizes(n_train: int, n_categories: int) -> list[int]:
    """Sizes for a study that compares a few-shot model (SetFit): 8, 16, 32 and 64 coded texts per
    category on average (the texts are drawn stratified, so each category holds its share of a size),
    then the engine's default sizes above twice the largest of them — a curve that doubles from the
    few-shot regime up to all ``n_train`` training texts. Sizes of ``n_train`` or more are left out."""
    n_train, n_categories = int(n_train), max(int(n_categories), 1)
    few = [per * n_categories for per in FEW_SHOT_PER_CATEGORY if SMALLEST_SIZE <= per * n_categories < n_train]
    if not few:
        return default_sizes(n_train)
    above = [size for size in default_sizes(n_train) if size > 2 * few[-1]]
    return sorted(set(few) | set(above) | {n_train})


def _round_size(size: float) -> int:
    """Whole numbers below 100, multiples of 5 from 100, of 50 from 1,000 (half up)."""
    step = 1 if size < 100 else 5 if size < 1_000 else 50
    return int(np.floor(size / step + 0.5)) * step


def curve_sizes(requested: tuple[int, ...] | list[int] | None, n_train: int, add_full_set: bool = True
                ) -> tuple[list[int], list[str]]:
    """The sizes of the curve, smallest first, and notes on what was changed.

    Without ``requested`` sizes, :func:`default_sizes`. Sizes above the number of training texts
    are capped to all of them (one point, not several); with ``add_full_set`` all training texts
    are added as the last point when they are more than the largest size asked for (the study's
    own models learn from exactly them)."""
    chosen = sorted({int(size) for size in requested}) if requested else default_sizes(n_train) or [n_train]
    too_small = [size for size in chosen if size < SMALLEST_SIZE]
    if too_small:
        raise UserError(f"A learning curve cannot start at {too_small[0]:,} coded texts.",
                        f"Give sizes of at least {SMALLEST_SIZE} texts, e.g. --sizes 500 1000 2000.")
    notes = []
    larger = [size for size in chosen if size > n_train]
    if larger:
        listed = ", ".join(f"{size:,}" for size in larger)
        notes.append(f"{listed} {'is' if len(larger) == 1 else 'are'} more than the {n_train:,} training texts; "
                     f"the curve ends at all {n_train:,} of them.")
        chosen = [size for size in chosen if size <= n_train] + [n_train]
    elif add_full_set and chosen[-1] < n_train:
        chosen.append(n_train)
    if chosen[0] < SMALLEST_SIZE:  # fewer training texts than the smallest useful size
        raise UserError(f"The study has only {n_train:,} training texts, too few for a learning curve.",
                        "Code more texts, or give the study a smaller test share.")
    return sorted(set(chosen)), notes


def repeat_seeds(study_seed: int, repeats: int) -> list[int]:
    """One seed per repeat, derived from the study's seed (the first ones stay when repeats grow)."""
    if repeats < 1:
        raise UserError("A learning curve needs at least one repeat.", "Use --repeats 5, as in the reference protocol.")
    return [int(child.generate_state(1)[0]) for child in np.random.SeedSequence(study_seed).spawn(repeats)]


def stratified_order(y: np.ndarray, seed: int) -> np.ndarray:
    """Positions into ``y`` in a random order whose every beginning is stratified (module docstring).
    Where a text can have several categories (``y`` a 0/1 matrix), each text counts in the stratum of
    its rarest category (texts with none in one of their own), so rare categories reach small subsets."""
    rng = np.random.default_rng(seed)
    if np.ndim(y) == 2:
        y = _rarest_category(np.asarray(y))
    places = np.empty(len(y))
    for label in np.unique(y):
        members = np.flatnonzero(y == label)
        shuffled = rng.permutation(members)
        places[shuffled] = (np.arange(len(members)) + 0.5) / len(members)
    tie_breaks = rng.random(len(y))
    return np.lexsort((tie_breaks, places))


def _rarest_category(Y: np.ndarray) -> np.ndarray:
    """Each text's rarest category (by how many texts have it); -1 for a text with none."""
    counts = Y.sum(axis=0)
    rank = np.where(Y == 1, counts[None, :], np.iinfo(np.int64).max)
    return np.where(Y.any(axis=1), rank.argmin(axis=1), -1)


def default_tuning_size(sizes: list[int]) -> int:
    """The reference protocol's 1,000 texts, or the nearest larger size, or the largest size."""
    at_least = [size for size in sizes if size >= PAPER_TUNING_SIZE]
    return at_least[0] if at_least else sizes[-1]


@dataclass
class CurvePlan:
    """The sizes, repeats and training subsets of one learning curve (study-wide row numbers)."""

    train: np.ndarray  # the study's training rows
    y: np.ndarray  # category code of every row of the study
    sizes: list[int]
    seeds: list[int]  # one per repeat
    orders: list[np.ndarray]  # per repeat: positions into ``train``, stratified at every length

    @classmethod
    def make(cls, train: np.ndarray, y: np.ndarray, sizes: list[int], seeds: list[int]) -> CurvePlan:
        orders = [stratified_order(y[train], seed) for seed in seeds]
        return cls(np.asarray(train), y, list(sizes), list(seeds), orders)

    @property
    def repeats(self) -> int:
        return len(self.seeds)

    def subset(self, size: int, repeat: int) -> np.ndarray:
        """The rows of the study that the point (``size``, ``repeat``) learns from, in row order."""
        return np.sort(self.train[self.orders[repeat][:size]])

    def same_for_every_repeat(self, size: int, oversampling: bool) -> bool:
        """Whether every repeat learns from exactly the same texts at ``size`` (all training texts,
        no random oversampling), so that one fit stands for all repeats."""
        return size >= len(self.train) and not oversampling

    def shared_sizes(self, oversampling: bool) -> list[int]:
        return [size for size in self.sizes if self.same_for_every_repeat(size, oversampling)]
