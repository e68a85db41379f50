"""Which category an explanation is about when nobody names one.

With one category per text it is the category the model chose. Where a text can have several,
the model answers a yes or no per category (each category's own chance at its own threshold);
an explanation is then always about one category — which words raised or lowered *its* chance —
and without a choice it is the first category the model gave the text (in category order), or,
for a text the model gave none, the category it found most likely.
"""

from __future__ import annotations

from typing import Any

import numpy as np



def default_target(decision: Any, probabilities: Any) -> int:
    """The category to explain for one text: its category index (one category per text), or from
    its 0/1 row the first category it was given, else the most probable one."""
    decision = np.asarray(decision)
    if decision.ndim == 0:
        return int(decision)
    given = np.flatnonzero(decision == 1)
    if given.size:
        return int(given[0])
    chances = np.asarray(probabilities, dtype=np.float64)
    return int(np.argmax(np.where(np.isnan(chances), -np.inf, chances)))


def default_targets(decisions: Any, probabilities: Any) -> np.ndarray:
    """:func:`default_target` for every text (``decisions``: indices, or a 0/1 matrix)."""
    decisions = np.asarray(decisions)
    if decisions.ndim == 1:
        return decisions.astype(np.int64)
    probabilities = np.asarray(probabilities, dtype=np.float64)
    return np.array([default_target(row, chances) for row, chances in zip(decisions, probabilities, strict=True)],
                    dtype=np.int64)


def targets_from_probabilities(model: Any, probabilities: Any) -> np.ndarray:
    """The category to explain for each text, from the model's probabilities alone: the most
    probable (one category per text), or the first category whose chance reaches its threshold,
    else the most probable (several)."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    if not getattr(model, "multi_label", False):
        return probabilities.argmax(axis=1).astype(np.int64) if len(probabilities) else np.zeros(0, np.int64)
    decisions = (probabilities >= model.thresholds).astype(np.uint8)
    return default_targets(decisions, probabilities)


def given_categories(decision: Any) -> list[int]:
    """The categories a text was given: its one category, or every 1 of its 0/1 row."""
    decision = np.asarray(decision)
    return [int(decision)] if decision.ndim == 0 else np.flatnonzero(decision == 1).tolist()
