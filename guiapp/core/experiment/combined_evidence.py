"""How a combined model fared against the models it combines, before the test texts are looked at.

The combination is learnt on all folds of the out-of-fold texts but one and scored on the one left,
in turn; each part is scored on the very same held-out texts from its own out-of-fold probabilities.
The per-fold differences to the best part give the combination's advantage and its standard error —
what decides whether it may be recommended (``recommendation.py``) and what the Results step says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AgainstParts:
    best_part: str  # the part with the best mean macro-F1 on the held-out folds
    best_part_score: float
    worst_part_score: float
    score: float  # the combination's mean macro-F1 on the same folds
    advantage: float  # mean per-fold difference to the best part
    advantage_se: float  # its standard error over the folds (NaN with one fold)
    folds: int
    learnt_on_texts: int

    @property
    def below_every_part(self) -> bool:
        return self.score < self.worst_part_score

    @property
    def clear_advantage(self) -> bool:
        """Better than its best part by more than one standard error (the one-standard-error rule)."""
        return self.advantage > 0 and math.isfinite(self.advantage_se) and self.advantage > self.advantage_se

    def to_dict(self) -> dict:
        return {name: (None if isinstance(value, float) and not math.isfinite(value) else value)
                for name, value in self.__dict__.items()}

    @classmethod
    def from_dict(cls, data: dict | None) -> AgainstParts | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                best_part=str(data["best_part"]),
                best_part_score=float(data["best_part_score"]),
                worst_part_score=float(data["worst_part_score"]),
                score=float(data["score"]),
                advantage=float(data["advantage"]),
                advantage_se=float("nan") if data.get("advantage_se") is None else float(data["advantage_se"]),
                folds=int(data["folds"]),
                learnt_on_texts=int(data["learnt_on_texts"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


def against_parts(combined_scores: list[float], part_scores: dict[str, list[float]], learnt_on_texts: int
                  ) -> AgainstParts | None:
    """The comparison from per-fold macro-F1 scores on the same held-out folds (``None`` without folds)."""
    if not combined_scores or not part_scores:
        return None
    means = {name: float(np.mean(scores)) for name, scores in part_scores.items()}
    best = max(means, key=lambda name: means[name])  # ties: the first part
    differences = np.asarray(combined_scores, dtype=float) - np.asarray(part_scores[best], dtype=float)
    se = float(differences.std(ddof=1) / math.sqrt(len(differences))) if len(differences) > 1 else float("nan")
    return AgainstParts(best, means[best], min(means.values()), float(np.mean(combined_scores)),
                        float(differences.mean()), se, len(differences), learnt_on_texts)
