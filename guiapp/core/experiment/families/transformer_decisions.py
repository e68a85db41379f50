"""How a fine-tuned Transformer's probabilities become decisions in a study.

One category per text: the most probable category. Several categories per text (the study's labels
are a 0/1 matrix, text × category): the Transformer gives each category its own probability, and a
text is put in every category whose probability reaches that category's threshold — 0.5 each, or,
when the study asks for it (``tune_thresholds``), thresholds tuned on training texts held out from
the tuning runs (``thresholds.tune_thresholds``), never on the test texts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from guiapp.core.experiment.scores.thresholds import DEFAULT_THRESHOLD

OVERSAMPLING_NOTE = (
    "No texts were oversampled: a text can have several categories and the Transformer learns them all in one "
    "network, so copies of texts drawn for one category would also change the shares of the others. It learnt "
    "from the coded texts as they are."
)


@dataclass
class Decisions:
    """Turns probabilities into decisions: category indices, or (multi-label) a 0/1 matrix."""

    multi_label: bool
    thresholds: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per category (multi-label)

    @classmethod
    def for_study(cls, y: np.ndarray) -> Decisions:
        """Category indices for one category per text; 0.5 per category for a 0/1 label matrix."""
        y = np.asarray(y)
        if y.ndim == 2:
            return cls(True, np.full(y.shape[1], DEFAULT_THRESHOLD))
        return cls(False)

    def __call__(self, probabilities: np.ndarray) -> np.ndarray:
        probabilities = np.asarray(probabilities, dtype=np.float64)
        if not self.multi_label:
            return probabilities.argmax(axis=1)
        from guiapp.core.experiment.scores.thresholds import apply_thresholds

        return np.asarray(apply_thresholds(probabilities, self.thresholds), dtype=np.uint8)

    def tunes(self, spec: Any) -> bool:
        """Whether the study asks for thresholds tuned per category (multi-label only)."""
        return self.multi_label and bool(spec.evaluation.tune_thresholds)

    def choose_thresholds(self, spec: Any, y_train: np.ndarray, held_out: np.ndarray | None) -> str:
        """Set the thresholds: tuned on the training texts with held-out probabilities (rows of
        ``held_out`` without NaN) when the study asks, else 0.5 each; what was done, in a sentence."""
        n_labels = np.asarray(y_train).shape[1]
        self.thresholds = np.full(n_labels, DEFAULT_THRESHOLD)
        if not self.tunes(spec):
            return "A text was put in every category whose probability reached 0.5."
        if held_out is None:
            raise ValueError("tuning the thresholds needs held-out probabilities of training texts")
        rows = ~np.isnan(held_out).any(axis=1)
        if not rows.any():
            return ("No training text had held-out probabilities, so every category's threshold stayed at 0.5.")
        from guiapp.core.experiment.scores.thresholds import tune_thresholds

        tuned = np.asarray(tune_thresholds(np.asarray(y_train)[rows], held_out[rows]), dtype=np.float64)
        if tuned.shape != (n_labels,):
            raise ValueError(f"{tuned.shape} thresholds tuned for {n_labels} categories")
        self.thresholds = tuned
        return (f"Each category's decision threshold was tuned on the {int(rows.sum()):,} training texts held out "
                f"from the tuning runs (never on the test texts): from {tuned.min():.2f} to {tuned.max():.2f}.")

    def as_predictions(self, decided: np.ndarray) -> list:
        """Decisions as a result stores them: the category index per text, or (multi-label) the list
        of category indices per text."""
        if not self.multi_label:
            return [int(value) for value in decided]
        from guiapp.core.experiment.scores.thresholds import predicted_sets

        return [[int(k) for k in row] for row in predicted_sets(decided)]


def multi_label_validation_split(y: np.ndarray, share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One validation split of texts with a 0/1 label matrix ``y`` (positions into it, sorted), drawn by
    iterative stratification so that every category keeps about its share in both parts (and the texts
    without a common category too: ``split.stratification_target``, as for the study's test texts)."""
    from iterstrat.ml_stratifiers import MultilabelStratifiedShuffleSplit

    from guiapp.core.study.split import stratification_target

    splitter = MultilabelStratifiedShuffleSplit(n_splits=1, test_size=share, random_state=seed)
    fit, valid = next(splitter.split(np.zeros((len(y), 1)), stratification_target(np.asarray(y))))
    return np.sort(fit), np.sort(valid)


__all__ = ["DEFAULT_THRESHOLD", "OVERSAMPLING_NOTE", "Decisions", "multi_label_validation_split"]
