"""Out-of-fold probabilities: for each training text, a model's probabilities from a fit that never
saw it — what a combined model (``combining.py``) learns its weights from.

Conventional models: the chosen setting is refitted inside each cross-validation fold (the very
folds, features and oversampled training parts the grid search used) and asked for the
probabilities of the fold's held-out texts. Fine-tuned Transformers: the probabilities their
tuning runs already gave for the texts held out from them, for the chosen setting — every
training text with k-fold tuning, only the validation texts with one validation split.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.experiment import fitting, process_pool


@dataclass
class OutOfFold:
    """One model's out-of-fold probabilities over the training texts (rows of ``data.split.train``);
    rows no held-out fit covered are NaN."""

    probabilities: np.ndarray  # (n_train, n_categories)
    seconds: float = 0.0  # the extra time it took (0 when it came free with tuning)

    @property
    def covered(self) -> np.ndarray:
        return ~np.isnan(self.probabilities).any(axis=1)


def conventional_out_of_fold(
    classifier: str,
    params: dict,
    fold_data: list,  # tuning.Fold per fold
    folds: list[tuple[np.ndarray, np.ndarray]],
    n_train: int,
    n_categories: int,
    seed: int,
    n_jobs: int,
    on_event: EventCallback = ignore_events,
) -> np.ndarray:
    """The chosen setting refitted in each fold; its probabilities for the fold's held-out texts."""
    threads = 1 if n_jobs > 1 else (os.cpu_count() or 1)
    arguments = [(classifier, params, seed, threads, fold.X_train, fold.y_train, fold.X_valid, n_categories)
                 for fold in fold_data]
    message = "refitting the chosen setting in each part of the data for the combined models"
    on_event(Progress(0.0, message))
    outcomes = process_pool.map_calls(n_jobs, lambda done: on_event(Progress(done / len(arguments), message)),
                                      fitting.fitted_probabilities, arguments)
    probabilities = np.full((n_train, n_categories), np.nan)
    for (_, valid_part), outcome in zip(folds, outcomes, strict=True):
        probabilities[valid_part] = outcome
    return probabilities
