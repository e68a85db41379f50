"""Rough expected run times, so the Models step can say "about 2 minutes" before a run.

The constants were measured on a 2-core laptop-class CPU (benchmarks/bench_tuning.py prints the
real times); the estimate only has to get the order of magnitude right, and the Run step's
"time left" takes over from measured progress once a run starts.
"""

from __future__ import annotations

import os

from guiapp.core.models.conventional import expand_grid
from guiapp.core.spec_sections import ModelSpec

# seconds for one fit on 1,000 training texts with 3 categories, on one core
_FIT_SECONDS_PER_1000 = {
    "svm": 0.08,  # kernel matrix shared by the settings of a fold
    "xgboost": 0.25,  # per 100 trees
    "logistic_regression": 0.16,
    "naive_bayes": 0.005,
}
_EMBED_TEXTS_PER_SECOND = 120.0  # all-MiniLM-L6-v2 on 2 CPU cores, short texts


def estimate_seconds(
    model: ModelSpec, n_train: int, n_test: int, n_categories: int, folds: int, n_jobs: int | None = None
) -> float:
    """Expected seconds to tune, refit and test ``model`` (order of magnitude)."""
    workers = max(1, min(n_jobs or os.cpu_count() or 1, 2 if n_train < 200_000 else 1))
    size = max(n_train, 1) / 1000.0
    categories = max(n_categories, 2)
    total = 0.0
    for point in expand_grid(model.classifier, model.grid):
        per_fit = _FIT_SECONDS_PER_1000[model.classifier]
        if model.classifier == "svm":
            per_fit *= size**1.7 * (1.0 if model.representation == "bow" else 1.5)
        elif model.classifier == "xgboost":
            per_fit *= size * (categories if categories > 2 else 1) / 3 * point["n_estimators"] / 100
            per_fit *= point["max_depth"] / 6
        else:
            per_fit *= size * categories / 3
        total += per_fit * (folds * (folds - 1) / folds + 1)
    total /= workers
    if model.representation == "sentence_embeddings":
        total += (n_train + n_test) / _EMBED_TEXTS_PER_SECOND
    return total + 1.0


def describe_duration(seconds: float) -> str:
    """"under a minute", "about 4 minutes", "about 2 hours" — for plain-language estimates."""
    if seconds < 45:
        return "under a minute"
    minutes = seconds / 60
    if minutes < 90:
        return f"about {max(1, round(minutes))} minute{'s' if round(minutes) > 1 else ''}"
    hours = minutes / 60
    return f"about {hours:.0f} hours" if hours >= 2 else "about 1.5 hours"
