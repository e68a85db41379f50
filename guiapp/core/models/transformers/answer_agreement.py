"""Whether faster answers are the same answers: a tally of fast against exact, with its limits.

Three kinds of answers are compared, text by text:

- a classifier's probabilities: the same category (the largest probability) for at least
  99.5 % of texts, and no probability more than 0.02 away from the exact one;
- a multi-label classifier's probabilities (one independent probability per category, a text can
  have several categories): the same set of categories (each probability at least 0.5 or not) for at
  least 99.5 % of texts, and no probability more than 0.02 away from the exact one;
- sentence embeddings: every text's vector points the same way (cosine similarity at least
  0.999 with the exact vector).

A :class:`Tally` adds up the comparisons of one model over many calls; :meth:`Tally.problem`
says in words what breaks a limit. The share of texts whose category changed is judged only
once enough texts were compared (one changed category in a handful of texts is no rate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PROBABILITIES = "probabilities"
MULTI_LABEL_PROBABILITIES = "multi-label probabilities"
EMBEDDINGS = "embeddings"
KINDS = (PROBABILITIES, MULTI_LABEL_PROBABILITIES, EMBEDDINGS)

SAME_CATEGORY = 0.995  # share of texts whose category must not change
PROBABILITY_DIFFERENCE = 0.02  # largest allowed difference of any probability
EMBEDDING_COSINE = 0.999  # smallest allowed cosine similarity of a text's two vectors
ENOUGH_TEXTS = 256  # compared texts before the share of changed categories is judged
DECISION = 0.5  # a multi-label classifier's decision: a category at or above this probability


@dataclass
class Tally:
    """Fast answers compared with exact ones, for one model (``kind``: one of :data:`KINDS`)."""

    kind: str
    compared: int = 0
    changed: int = 0  # texts whose category (multi-label: set of categories) changed
    largest_difference: float = 0.0  # largest difference of a probability
    lowest_cosine: float = 1.0  # smallest cosine similarity (embeddings)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of answers {self.kind!r}; choose one of {', '.join(KINDS)}")

    def add(self, exact: np.ndarray, fast: np.ndarray) -> None:
        """Compare the answers of the same texts (one row per text)."""
        exact, fast = np.asarray(exact, dtype=np.float64), np.asarray(fast, dtype=np.float64)
        if exact.shape != fast.shape:
            raise ValueError(f"answers of shape {fast.shape} compared with answers of shape {exact.shape}")
        if len(exact) == 0:
            return
        self.compared += len(exact)
        if self.kind != EMBEDDINGS:
            if self.kind == MULTI_LABEL_PROBABILITIES:
                changed = ((exact >= DECISION) != (fast >= DECISION)).any(axis=1)
            else:
                changed = exact.argmax(axis=1) != fast.argmax(axis=1)
            self.changed += int(changed.sum())
            difference = np.abs(exact - fast).max(initial=0.0)
            self.largest_difference = max(self.largest_difference,
                                          float(difference) if np.isfinite(fast).all() else float("inf"))
        else:
            norms = np.linalg.norm(exact, axis=1) * np.linalg.norm(fast, axis=1)
            cosine = np.where(norms > 0, (exact * fast).sum(axis=1) / np.where(norms > 0, norms, 1.0),
                              np.where(np.abs(exact - fast).max(axis=1) == 0, 1.0, 0.0))
            lowest = float(cosine.min()) if np.isfinite(fast).all() else float("-inf")
            self.lowest_cosine = min(self.lowest_cosine, lowest)

    @property
    def same_category(self) -> float:
        """Share of compared texts whose category stayed the same (1.0 before any comparison)."""
        return 1.0 - self.changed / self.compared if self.compared else 1.0

    def problem(self) -> str | None:
        """What breaks a limit, in words; None while the fast answers are the same answers."""
        if self.kind == EMBEDDINGS:
            if self.lowest_cosine < EMBEDDING_COSINE:
                return (f"a text's embedding differed from the exact one (cosine similarity "
                        f"{self.lowest_cosine:.5f}, below {EMBEDDING_COSINE})")
            return None
        if self.largest_difference > PROBABILITY_DIFFERENCE:
            return (f"a probability differed by {self.largest_difference:.3f} from the exact one "
                    f"(more than {PROBABILITY_DIFFERENCE})")
        if self.compared >= ENOUGH_TEXTS and self.same_category < SAME_CATEGORY:
            another = "another set of categories" if self.kind == MULTI_LABEL_PROBABILITIES else "another category"
            return (f"{self.changed} of {self.compared:,} texts got {another} "
                    f"({1 - self.same_category:.1%}, more than {1 - SAME_CATEGORY:.1%})")
        return None

    def describe(self) -> str:
        """The comparison in words, for the log."""
        if self.kind == EMBEDDINGS:
            return f"{self.compared:,} texts, lowest cosine similarity {self.lowest_cosine:.5f}"
        same = "same categories" if self.kind == MULTI_LABEL_PROBABILITIES else "same category"
        return (f"{self.compared:,} texts, {same} for {self.same_category:.2%}, largest "
                f"probability difference {self.largest_difference:.4f}")


__all__ = [
    "DECISION", "EMBEDDINGS", "EMBEDDING_COSINE", "ENOUGH_TEXTS", "KINDS", "MULTI_LABEL_PROBABILITIES",
    "PROBABILITIES", "PROBABILITY_DIFFERENCE", "SAME_CATEGORY", "Tally",
]
