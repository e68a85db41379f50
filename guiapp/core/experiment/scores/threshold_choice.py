"""Each category's decision threshold chosen for a model of a study where a text can have several
categories, said in the study's log (the choice itself: ``thresholds.py``)."""

from __future__ import annotations

import numpy as np

from guiapp.core.events import EventCallback, Log


def tuned_thresholds(Y: np.ndarray, probabilities: np.ndarray, categories: list[str], name: str,
                     on_event: EventCallback) -> np.ndarray:
    """The thresholds chosen on the training texts' out-of-fold probabilities (never the test
    texts'), one per category, and a log line naming those that moved from 0.5."""
    from guiapp.core.experiment.scores.thresholds import tune_thresholds

    thresholds = tune_thresholds(Y, probabilities)
    moved = [f"{category} {value:.2f}" for category, value in zip(categories, thresholds, strict=True)
             if abs(value - 0.5) > 1e-9]
    on_event(Log(f"{name}: thresholds chosen on the training texts' held-out answers: "
                 + (", ".join(moved) if moved else "0.5 for every category") + "."))
    return thresholds
