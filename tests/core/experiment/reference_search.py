"""The reference the engine is checked against: scikit-learn's GridSearchCV over an
imbalanced-learn Pipeline(representation, RandomOverSampler, classifier), written directly."""

from __future__ import annotations

import functools

import numpy as np
from imblearn.over_sampling import RandomOverSampler
from imblearn.pipeline import Pipeline
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from guiapp.core.experiment.protocol.resampling import oversampling_targets
from guiapp.core.models.conventional import make_classifier


def reference_search(representation, classifier: str, points, texts, y, folds: int, ratio, seed: int, n_jobs=None):
    steps = [("features", clone(representation))]
    if ratio is not None:
        strategy = functools.partial(oversampling_targets, ratio=ratio)
        steps.append(("oversample", RandomOverSampler(sampling_strategy=strategy, random_state=seed)))
    steps.append(("model", make_classifier(classifier, {}, seed, n_threads=1)))
    # one dictionary per setting keeps GridSearchCV's order equal to the engine's grid order
    grid = [{f"model__{name}": [value] for name, value in point.items()} for point in points]
    search = GridSearchCV(
        Pipeline(steps),
        grid,
        scoring="f1_macro",
        cv=StratifiedKFold(folds, shuffle=True, random_state=seed),
        n_jobs=n_jobs,
    )
    return search.fit(np.asarray(texts, dtype=object), y)


def reference_params(search) -> dict:
    return {name.removeprefix("model__"): value for name, value in search.best_params_.items()}
