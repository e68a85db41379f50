"""Cross-fitted probabilities for the findings, from the quick model: the coded texts are dealt into
folds; each fold's model learns from the other folds. A coded text gets the probabilities of the
model that did not see it (out of fold); every other text the mean of the fold models'
probabilities (cross-prediction, Zrnic & Candès 2023, "Cross-prediction-powered inference").

Why not the model fitted on all coded texts for the uncoded ones: the correction measures the
mistakes of models that learned from 4/5 of the coded texts, so the predictions it corrects must
come from such models too. A model fitted on all of them is a little different (often a little
surer); that difference is a bias of the same order as the interval's half-width when n is a few
hundred to a thousand (0.1 to 1.5 points on the corpora of ``benchmarks/bench_findings_corpora.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guiapp.core.coding.quick_model import QuickModel, check_kind, stratified_folds
from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.stats.agreement import sorted_categories

FOLDS = 5


@dataclass(frozen=True)
class CrossFitted:
    corpus: np.ndarray  # N × K: out of fold for the coded texts, the fold models' mean for the others
    coded: np.ndarray  # n × K: the coded texts' out-of-fold probabilities (the rows of ``corpus`` at their positions)
    categories: tuple[str, ...]


def cross_fitted_probabilities(kind: str, features: Any, positions: Sequence[int], labels: Sequence[str], *,
                               categories: Sequence[str] | None = None, folds: int = FOLDS, seed: int = 0,
                               on_event: EventCallback = ignore_events,
                               model: Callable[[int], Any] | None = None) -> CrossFitted:
    """The quick model's cross-fitted probabilities of every corpus text (``features``: one row per
    corpus text, indexable by rows; ``positions``/``labels``: the coded texts and their categories).

    ``model``: a function of the seed that returns an unfitted classifier with the quick model's
    ``fit(features, labels, categories)`` and ``predict_proba(features)`` (rows summing to 1, columns
    in ``categories`` order); ``kind`` then only names it. Default: ``QuickModel(kind, seed=seed)``."""
    if model is None:
        check_kind(kind)
    make = model if model is not None else (lambda fold_seed: QuickModel(kind, seed=fold_seed))
    positions = np.asarray(positions, dtype=np.intp)
    labels = [str(label) for label in labels]
    if len(positions) != len(labels):
        raise DataError(f"There are {len(positions):,} coded texts but {len(labels):,} codings.",
                        "Give one coding per coded text.")
    assignment = stratified_folds(labels, folds, seed)
    n_folds = int(assignment.max()) + 1
    label_array = np.array(labels, dtype=object)
    n_texts = features.shape[0]
    columns = list(categories) if categories is not None else list(sorted_categories(labels))
    corpus = None
    coded = None
    for fold in range(n_folds):
        on_event(Progress(fold / n_folds, f"Cross-fitting: part {fold + 1} of {n_folds}", fold, n_folds))
        training = assignment != fold
        fitted = make(seed).fit(features[positions[training]], label_array[training].tolist(), columns)
        predicted = fitted.predict_proba(features)
        if corpus is None:
            corpus = np.zeros_like(predicted)
            coded = np.zeros((len(labels), predicted.shape[1]))
        corpus += predicted / n_folds
        held_out = np.flatnonzero(~training)
        coded[held_out] = predicted[positions[held_out]]
    on_event(Progress(1.0, f"Cross-fitting: part {n_folds} of {n_folds}", n_folds, n_folds))
    assert corpus is not None and coded is not None
    if n_texts:
        corpus[positions] = coded
    return CrossFitted(corpus, coded, tuple(columns))
