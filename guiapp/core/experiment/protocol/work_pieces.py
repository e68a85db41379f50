"""A study's units of work for conventional models, as plain data any TextLab process can run.

A piece is a small frozen dataclass — which classifier, which settings, the seed, how many threads —
and is run on data that are shared once per model rather than sent with every piece: a fold's
features (``tuning.Fold``) or the training texts' features. The executor (``core/compute``) sends
``(piece, data)`` to a worker, where :func:`run_piece` calls ``piece.run(data)``; with a Dask
cluster, ``data`` travels as the future of a value scattered once. The result is plain data (scores,
probabilities, or the fitted classifier of a final fit).

* :class:`SettingsOnFold` — one group of settings fitted on one fold's training part and scored on
  its held-out part (the grid search's piece);
* :class:`HeldOutProbabilities` — the chosen setting refitted in one fold, probabilities for the
  fold's held-out texts (for the combined models);
* :class:`FinalFit` — the chosen setting fitted on all training texts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from guiapp.core.experiment.protocol import fitting
@dataclass(frozen=True)
class SettingsOnFold:
    classifier: str
    points: tuple[dict, ...]
    seed: int
    threads: int

    def run(self, fold: Any) -> list[tuple[float, float]]:
        """``(macro-F1, fit seconds)`` per setting, in order."""
        return fitting.fit_and_score(self.classifier, list(self.points), self.seed, self.threads,
                                     fold.X_train, fold.y_train, fold.X_valid, fold.y_valid, None,
                                     fold.oversampling)


@dataclass(frozen=True)
class HeldOutProbabilities:
    classifier: str
    params: dict
    seed: int
    threads: int
    n_categories: int

    def run(self, fold: Any) -> np.ndarray:
        return fitting.fitted_probabilities((self.classifier, self.params, self.seed, self.threads,
                                             fold.X_train, fold.y_train, fold.X_valid, self.n_categories,
                                             fold.oversampling))


@dataclass(frozen=True)
class FinalFit:
    classifier: str
    params: dict
    seed: int
    threads: int
    oversampling: float | None = None  # per category, when a text can have several categories

    def run(self, training: tuple[Any, np.ndarray]) -> Any:
        X, y = training
        return fitting.fit_classifier(self.classifier, self.params, self.seed, self.threads, X, y, None, True,
                                      self.oversampling)


def run_piece(argument: tuple[Any, Any]) -> Any:
    """The entry point a worker runs: ``piece.run(data)`` for ``argument = (piece, data)``."""
    piece, data = argument
    return piece.run(data)
