"""How a combined model fared against the models it combines, before the test texts are looked at.

The combination is learnt on all folds of the out-of-fold texts but one and scored on the one left,
in turn; each part is scored on the very same held-out texts from its own out-of-fold probabilities.
The per-fold differences to the best part give the combination's advantage and its standard error —
what decides whether it may be recommended (``recommendation.py``) and what the Results step says.
"""

from __future__ import annotations

import math

import numpy as np
from guiapp.core.experiment.results.result_parts import AgainstParts


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
