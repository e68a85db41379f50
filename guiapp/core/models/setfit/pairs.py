"""The pairs of coded texts SetFit fine-tunes on: similar pairs (target 1) and dissimilar ones (0).

SetFit's sampling (``setfit`` 1.2, ``ContrastiveDataset`` with ``num_iterations``): every
combination of two texts, a text with itself included, is taken in a random order; the similar
ones and the dissimilar ones are listed apart, and the first ``pairs_per_text × n`` of each list are
kept, starting the list again when it runs out. So with ``n`` coded texts there are
``2 × pairs_per_text × n`` pairs, half of each kind, and no pair comes twice before every pair of
its kind has come once. (SetFit orders the combinations with a fixed seed, 42; here the run's seed.)
An epoch can be given at most ``max_pairs`` pairs: then ``max_pairs / 2`` of each kind are kept, the
first of the same random order — a random sample of the pairs SetFit would have taken.
With more than :data:`MAX_COMBINATIONS` combinations (about 2,000 texts) the pairs are drawn at
random instead, which rarely repeats one among so many.

Similar: one category per text — the same category. Several categories per text — category sets
that overlap by at least half (Jaccard index |A ∩ B| / |A ∪ B| ≥ 0.5: {a} and {a, b} are similar,
{a, b} and {a, c} are not), and two texts in no category are similar. (SetFit itself calls two
texts similar when they share any category; that pulls a text of {a, b} towards texts of only b
as strongly as towards texts of exactly {a, b}.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_COMBINATIONS = 2_000_000
_DRAW = 1 << 18  # random pairs looked at per round, beyond MAX_COMBINATIONS
_ROUNDS = 64
JACCARD_SIMILAR = 0.5


@dataclass(frozen=True)
class Pairs:
    """Pair ``k`` joins text ``first[k]`` and text ``second[k]``; ``target[k]`` is 1.0 for a similar
    pair and 0.0 for a dissimilar one."""

    first: np.ndarray  # int64
    second: np.ndarray  # int64
    target: np.ndarray  # float32

    def __len__(self) -> int:
        return len(self.target)

    @property
    def n_similar(self) -> int:
        return int((self.target == 1.0).sum())


def similar(labels: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Whether each pair of texts is similar (see the module docstring); ``labels`` are category
    indices, or a 0/1 matrix (text × category)."""
    if labels.ndim == 1:
        return labels[first] == labels[second]
    a, b = labels[first].astype(bool), labels[second].astype(bool)
    shared = (a & b).sum(axis=1)
    either = (a | b).sum(axis=1)
    return (either == 0) | (shared >= JACCARD_SIMILAR * either)


def pairs_wanted(n_texts: int, pairs_per_text: int, max_pairs: int | None = None) -> int:
    """How many pairs of each kind (similar, dissimilar) an epoch takes: ``pairs_per_text × n``, at
    most ``max_pairs / 2``."""
    wanted = max(int(pairs_per_text), 0) * max(int(n_texts), 0)
    return wanted if max_pairs is None else min(wanted, max(int(max_pairs), 0) // 2)


def sample_pairs(labels: np.ndarray, pairs_per_text: int, rng: np.random.Generator,
                 max_pairs: int | None = None) -> Pairs:
    """``pairs_per_text × n`` similar and as many dissimilar pairs of the ``n`` texts coded as
    ``labels``, by SetFit's sampling, at most ``max_pairs`` in all. When no two texts are dissimilar
    (all in one category) only the similar pairs are returned."""
    labels = np.asarray(labels)
    n = len(labels)
    wanted = pairs_wanted(n, pairs_per_text, max_pairs)
    if n == 0 or wanted == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Pairs(empty, empty, np.zeros(0, dtype=np.float32))
    if n * (n + 1) // 2 <= MAX_COMBINATIONS:
        first, second = np.triu_indices(n)  # i ≤ j: each combination once, a text with itself too
        order = rng.permutation(len(first))
        first, second = first[order], second[order]
        alike = similar(labels, first, second)
    else:
        first, second, alike = _drawn(labels, wanted, rng)
    firsts, seconds, targets = [], [], []
    for keep, target in ((alike, 1.0), (~alike, 0.0)):
        if keep.any():  # the first `wanted` of this kind, the list started again when it runs out
            firsts.append(np.resize(first[keep], wanted))
            seconds.append(np.resize(second[keep], wanted))
            targets.append(np.full(wanted, target, dtype=np.float32))
    return Pairs(np.concatenate(firsts).astype(np.int64), np.concatenate(seconds).astype(np.int64),
                 np.concatenate(targets))


def _drawn(labels: np.ndarray, wanted: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random pairs of texts until there are ``wanted`` of each kind (or enough rounds were drawn)."""
    n = len(labels)
    firsts, seconds, alikes = [], [], []
    counts = np.zeros(2, dtype=np.int64)  # dissimilar, similar
    for _ in range(_ROUNDS):
        a, b = rng.integers(0, n, size=_DRAW), rng.integers(0, n, size=_DRAW)
        a, b = np.minimum(a, b), np.maximum(a, b)
        alike = similar(labels, a, b)
        firsts.append(a)
        seconds.append(b)
        alikes.append(alike)
        counts += np.bincount(alike.astype(np.int64), minlength=2)
        if counts.min() >= wanted:
            break
    return np.concatenate(firsts), np.concatenate(seconds), np.concatenate(alikes)


__all__ = ["JACCARD_SIMILAR", "MAX_COMBINATIONS", "Pairs", "pairs_wanted", "sample_pairs", "similar"]
