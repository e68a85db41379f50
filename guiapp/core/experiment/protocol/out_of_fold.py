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

from guiapp.core.compute.executors import Executor, LocalExecutor
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.experiment.protocol.work_pieces import HeldOutProbabilities, run_piece


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
    executor: Executor | None = None,
) -> np.ndarray:
    """The chosen setting refitted in each fold; its probabilities for the fold's held-out texts
    (with a remote ``executor``, on the cluster, on the folds' features it already holds)."""
    executor = executor or LocalExecutor(n_jobs)
    threads = 1 if n_jobs > 1 or executor.remote else (os.cpu_count() or 1)
    piece = HeldOutProbabilities(classifier, params, seed, threads, n_categories)
    arguments = [(piece, executor.share(fold)) for fold in fold_data]
    message = "refitting the chosen setting in each part of the data for the combined models"
    on_event(Progress(0.0, message))
    outcomes = executor.map_calls(lambda done: on_event(Progress(done / len(arguments), message)), run_piece, arguments)
    probabilities = np.full((n_train, n_categories), np.nan)
    for (_, valid_part), outcome in zip(folds, outcomes, strict=True):
        probabilities[valid_part] = outcome
    return probabilities
