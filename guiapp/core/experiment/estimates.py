"""Expected run times, so the Models step can say "about 2 minutes" before a run.

The shape of each cost (how it grows with texts, categories, trees, epochs) comes from constants
measured on a 2-core laptop-class CPU (benchmarks/bench_tuning.py prints the real times). Where
this computer has been measured (``speed_probe.py`` does a little of the study's real work and
keeps the result per machine in the cache, ``speed_cache.py``), the measured speed replaces the
constant: the seconds per text of the chosen embedding model, and a factor for how much faster
or slower this computer fits each classifier or fine-tunes each Transformer. Without a
measurement the constants stand. The Run step's "time left" takes over once a run starts.

A fine-tuned Transformer is estimated from its registry entry's seconds per epoch over 1,000
texts of about 64 subword tokens (on the CPU or on a GPU): every setting of the grid is trained
on every tuning split (k folds, or one validation split — the default without a GPU) and then
once more, with the most epochs of the grid, on all training texts.
"""

from __future__ import annotations

import os

from guiapp.core.experiment.speed_cache import machine_identity, read_speed
from guiapp.core.models.conventional import expand_grid
from guiapp.core.study.sections import ModelSpec

# seconds for one fit on 1,000 training texts with 3 categories, on one core
_FIT_SECONDS_PER_1000 = {
    "svm": 0.08,  # kernel matrix shared by the settings of a fold
    "xgboost": 0.25,  # per 100 trees
    "logistic_regression": 0.16,
    "naive_bayes": 0.005,
}
_EMBED_TEXTS_PER_SECOND = 120.0  # all-MiniLM-L6-v2 on 2 CPU cores, short texts


_TOKENS_PER_TEXT = 64  # the text length the registry's speed figures were measured at
_LOAD_SECONDS = 3.0  # loading the model's weights once per training run
_PREDICT_SHARE = 1 / 3  # predicting a text costs about a third of learning from it


def estimate_seconds(
    model: ModelSpec,
    n_train: int,
    n_test: int,
    n_categories: int,
    folds: int,
    n_jobs: int | None = None,
    *,
    on_gpu: bool = False,
    tuning: str = "auto",
    validation_share: float = 0.2,
    mean_tokens: float | None = None,
) -> float:
    """Expected seconds to tune, refit and test ``model`` (order of magnitude).

    The keyword arguments only matter for a fine-tuned Transformer: whether it trains on a GPU,
    how its setting is chosen (``EvaluationSpec.transformer_tuning`` and ``validation_share``)
    and the mean length of the texts in subword tokens (None: about 64).
    """
    if model.representation == "transformer":
        return estimate_transformer_seconds(
            model, n_train, n_test, folds, on_gpu=on_gpu, tuning=tuning,
            validation_share=validation_share, mean_tokens=mean_tokens,
        )
    workers = max(1, min(n_jobs or os.cpu_count() or 1, 2 if n_train < 200_000 else 1))
    identity = machine_identity()
    factor = read_speed(f"fit:{model.classifier}:{model.representation}", identity) or 1.0
    total = 0.0
    for point in expand_grid(model.classifier, model.grid):
        per_fit = fit_seconds_per_fit(model.classifier, model.representation, point, n_train, n_categories)
        total += per_fit * (folds * (folds - 1) / folds + 1)
    total *= factor / workers
    if model.representation == "sentence_embeddings":
        name = model.representation_options.get("model") or "all-MiniLM-L6-v2"
        per_text = read_speed(f"embed:{name}", identity) or 1.0 / _EMBED_TEXTS_PER_SECOND
        total += (n_train + n_test) * per_text
    return total + 1.0


def fit_seconds_per_fit(classifier: str, representation: str, point: dict, n_train: int, n_categories: int) -> float:
    """The constants' seconds for one fit of ``classifier`` at setting ``point`` on ``n_train`` texts."""
    size = max(n_train, 1) / 1000.0
    categories = max(n_categories, 2)
    per_fit = _FIT_SECONDS_PER_1000[classifier]
    if classifier == "svm":
        per_fit *= size**1.7 * (1.0 if representation == "bow" else 1.5)
    elif classifier == "xgboost":
        per_fit *= size * (categories if categories > 2 else 1) / 3 * point.get("n_estimators", 100) / 100
        per_fit *= point.get("max_depth", 6) / 6
    else:
        per_fit *= size * categories / 3
    return per_fit


def per_text_finetune_seconds(model_name: str, on_gpu: bool, mean_tokens: float | None, max_length: int) -> float:
    """The registry's seconds to learn from one text of ``mean_tokens`` subword tokens, one epoch."""
    from guiapp.core.models.transformers.sources.registry import info_for

    info = info_for(model_name)
    per_text = (info.seconds_per_1000_samples_gpu if on_gpu else info.seconds_per_1000_samples_cpu) / 1000.0
    if mean_tokens:
        per_text *= max(0.5, min(float(mean_tokens), float(max_length)) / _TOKENS_PER_TEXT)
    return per_text


def transformer_tuning_splits(tuning: str, on_gpu: bool, folds: int) -> int:
    """How many training runs each setting gets: k folds, or 1 for a validation split."""
    if tuning == "auto":
        tuning = "cross-validation" if on_gpu else "validation split"
    return folds if tuning == "cross-validation" else 1


def estimate_transformer_seconds(
    model: ModelSpec,
    n_train: int,
    n_test: int,
    folds: int,
    *,
    on_gpu: bool = False,
    tuning: str = "auto",
    validation_share: float = 0.2,
    mean_tokens: float | None = None,
) -> float:
    """Expected seconds to fine-tune a Transformer for every setting and split, refit and test.

    Sum over settings × tuning splits of epochs × training texts × seconds per 1,000 texts
    / 1000 (plus predicting the held-out part), then the final refit on all training texts with
    the grid's most epochs and the prediction of the test texts.
    """
    from guiapp.core.models.transformers.options import (
        expand_transformer_grid,
        full_options,
    )

    options = full_options(model.representation_options)
    gpu = on_gpu and options["device"] != "cpu"
    per_text = per_text_finetune_seconds(options["model"], gpu, mean_tokens, options["max_length"])
    per_text *= read_speed(f"finetune:{options['model']}:{'gpu' if gpu else 'cpu'}", machine_identity()) or 1.0
    splits = transformer_tuning_splits(tuning, gpu, folds)
    n_train = max(n_train, 1)
    if splits == 1:
        fit, held_out = n_train * (1 - validation_share), n_train * validation_share
    else:
        fit, held_out = n_train * (splits - 1) / splits, n_train / splits
    points = expand_transformer_grid(model.grid, options["model"])
    total = 0.0
    for point in points:
        total += splits * (point["epochs"] * fit + _PREDICT_SHARE * held_out) * per_text
    most_epochs = max(point["epochs"] for point in points)
    total += (most_epochs * n_train + _PREDICT_SHARE * max(n_test, 0)) * per_text
    return total + _LOAD_SECONDS * (splits * len(points) + 1)


def describe_duration(seconds: float) -> str:
    """"under a minute", "about 4 minutes", "about 2 hours" — for plain-language estimates."""
    if seconds < 45:
        return "under a minute"
    minutes = seconds / 60
    if minutes < 90:
        return f"about {max(1, round(minutes))} minute{'s' if round(minutes) > 1 else ''}"
    hours = minutes / 60
    if hours >= 48:
        return f"about {hours / 24:.0f} days"
    return f"about {hours:.0f} hours" if hours >= 2 else "about 1.5 hours"
