"""Expected run times, so the Models and Run steps can say "about 2 minutes" before a run.

Every piece of work the runner does is counted (``run_plan.py`` says which): a conventional model's
tuning fits (settings × folds, spread over the worker processes; SVM settings of a kernel share one
kernel matrix per fold), its refits inside the folds for the combined models and its final fit
(an SVM asked for probabilities fits 5 more times inside, to calibrate them), predicting the test
texts; the texts' sentence embeddings (once per embedding model, after loading PyTorch and the
model); a Transformer's fine-tuning runs (every setting on every tuning split, then the chosen
setting once per seed, each predicting its held-out or test texts); starting the worker processes
and learning the combined models.

The costs are CPU seconds measured on a 2-core laptop-class CPU with short texts
(benchmarks/bench_estimates.py compares the estimate with a real run; bench_tuning.py times the
fits alone). Where this computer has been measured (``speed_probe.py``, kept per machine by
``speed_cache.py``), the measured speed replaces the constant: the seconds per text of the chosen
embedding model, and a factor for how much faster or slower this computer fits each classifier or
fine-tunes each Transformer. The Run step's "time left" takes over once a run starts.

A fine-tuned Transformer is estimated from its registry entry's seconds per epoch over 1,000
texts of about 64 subword tokens (on the CPU or on a GPU); the models that need few or no coded
texts (zero-shot, SetFit) by ``few_shot_estimates.py``, from the same figures (``speed_figures.py``);
a language model with your codebook by ``codebook_estimates.py``, from its size and its prompt's length
(on a language-model server its time cannot be estimated, and the estimate says so in words).
"""

from __future__ import annotations

import os
from typing import Any

from guiapp.core.experiment.speed.speed_cache import machine_identity, read_speed
from guiapp.core.experiment.speed.speed_figures import (
    EMBED_TEXTS_PER_SECOND,
    LOAD_SECONDS,
    PREDICT_SHARE,
    TORCH_LOAD_SECONDS,
    per_text_finetune_seconds,
)
from guiapp.core.models.conventional import expand_grid
from guiapp.core.study.sections import ModelSpec

EMBEDDING_MODEL = "all-MiniLM-L6-v2"

# CPU seconds for one fit on 1,000 training texts with 3 categories (one core), and how it grows
# with the number of texts
_FIT_SECONDS_PER_1000 = {
    "svm": 0.075,
    "xgboost": 0.25,  # per 100 trees of depth 6
    "logistic_regression": 0.03,
    "naive_bayes": 0.005,
}
_FIT_GROWTH = {"svm": 1.55, "xgboost": 1.0, "logistic_regression": 1.2, "naive_bayes": 1.0}
_SVM_SHARED_KERNEL = 0.35  # a tuning fit on the fold's shared kernel matrix, against a fit of its own
_SVM_DENSE = 0.85  # word vectors and embeddings: few dense numbers per text, against bag-of-words counts
_CALIBRATION_FITS = 6  # an SVM with probabilities: 5 fits inside to calibrate them, then the fit on all its texts
MODEL_SECONDS = 0.5  # per conventional model: each fold's features, the test's interval, saving the model
_WORKERS_START_SECONDS = 3.0  # the worker processes start once per run and import scikit-learn
_FIRST_MODEL_SECONDS = 2.0  # once per run: what the first conventional model loads to test and save itself
_READ_SECONDS = 0.5  # reading the coded texts, the split and the folds
_COMBINE_SECONDS = 0.5  # learning the weighted vote and the stacking (its own small cross-validation)


def workers(n_jobs: int | None, pieces: int) -> int:
    """The worker processes that share ``pieces`` of work at once: no more than the cores."""
    cores = os.cpu_count() or 1
    return max(1, min(n_jobs or min(cores, 8), cores, pieces))  # the runner's default: one per core, at most 8


def fit_seconds_per_fit(classifier: str, representation: str, point: dict, n_train: int, n_categories: int) -> float:
    """The constants' CPU seconds for one fit of ``classifier`` at setting ``point`` on ``n_train``
    texts (a fit of its own: no shared kernel, no calibration)."""
    size = max(n_train, 1) / 1000.0
    categories = max(n_categories, 2)
    per_fit = _FIT_SECONDS_PER_1000[classifier] * size ** _FIT_GROWTH[classifier]
    if classifier == "svm":
        per_fit *= (1.0 if representation == "bow" else _SVM_DENSE) * (categories / 3) ** 0.35
    elif classifier == "xgboost":
        per_fit *= (categories if categories > 2 else 1) / 3 * point.get("n_estimators", 100) / 100
        per_fit *= point.get("max_depth", 6) / 6
    elif classifier == "logistic_regression":
        per_fit *= (categories / 3) ** 0.7
    else:
        per_fit *= categories / 3
    return per_fit


def _fit_factor(model: ModelSpec) -> float:
    return read_speed(f"fit:{model.classifier}:{model.representation}", machine_identity()) or 1.0


def conventional_seconds(
    model: ModelSpec,
    n_train: int,
    n_test: int,
    n_categories: int,
    folds: int,
    *,
    repeats: int = 1,
    out_of_fold: bool = False,
    n_jobs: int | None = None,
) -> float:
    """Expected seconds of one conventional model's own work: its tuning fits on ``folds`` ×
    ``repeats`` folds, with ``out_of_fold`` its refits in the first ``folds`` folds for the combined
    models, its final fit and the test (not the texts' embedding: see :func:`embedding_seconds`)."""
    factor = _fit_factor(model)
    fold_train = max(n_train, 1) * (folds - 1) / folds
    points = expand_grid(model.classifier, model.grid)
    tuning = 0.0
    for point in points:
        per_fit = fit_seconds_per_fit(model.classifier, model.representation, point, round(fold_train), n_categories)
        tuning += per_fit * (_SVM_SHARED_KERNEL if model.classifier == "svm" else 1.0)
    tuning *= folds * repeats * factor
    splits = folds * repeats
    groups = len({point.get("kernel") for point in points}) if model.classifier == "svm" else len(points)
    total = tuning / workers(n_jobs, splits * groups)
    chosen = _typical_point(points)
    calibrated = _CALIBRATION_FITS if model.classifier == "svm" else 1
    if out_of_fold:  # the chosen setting in each fold, with probabilities
        refit = fit_seconds_per_fit(model.classifier, model.representation, chosen, round(fold_train), n_categories)
        total += folds * refit * calibrated * factor / workers(n_jobs, folds)
    final = fit_seconds_per_fit(model.classifier, model.representation, chosen, max(n_train, 1), n_categories)
    if model.classifier == "xgboost":  # the final fit uses every core
        final /= os.cpu_count() or 1
    total += final * calibrated * factor
    total += PREDICT_SHARE * final * factor * max(n_test, 0) / max(n_train, 1)
    return total + MODEL_SECONDS


def _typical_point(points: list[dict]) -> dict:
    """The setting whose cost stands for the chosen one (the grid's middle in cost)."""
    return points[len(points) // 2]


def embedding_seconds(model: ModelSpec, n_texts: int) -> float:
    """Seconds to turn ``n_texts`` into ``model``'s sentence embeddings, loading included (0 for
    other representations). Done once per study for every model with the same embedding model."""
    if model.representation != "sentence_embeddings":
        return 0.0
    name = model.representation_options.get("model") or EMBEDDING_MODEL
    per_text = read_speed(f"embed:{name}", machine_identity()) or 1.0 / EMBED_TEXTS_PER_SECOND
    return TORCH_LOAD_SECONDS + max(n_texts, 0) * per_text


def run_seconds(conventional: list[ModelSpec], n_jobs: int | None) -> float:
    """What every run costs once: reading the texts and, for conventional models, starting the
    worker processes."""
    started = _WORKERS_START_SECONDS if conventional and workers(n_jobs, 2) > 1 else 0.0
    return _READ_SECONDS + started + (_FIRST_MODEL_SECONDS if conventional else 0.0)


def combining_seconds(n_train: int, n_models: int, n_categories: int) -> float:
    """Learning the two combined models from the held-out probabilities."""
    return _COMBINE_SECONDS * max(1.0, n_models * max(n_categories, 2) * max(n_train, 1) / 10_000)


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
    repeats: int = 1,
    seeds: int = 1,
) -> float:
    """Expected seconds to tune, refit and test ``model`` on its own (the Models step's figure per
    model: with the texts' embedding; without the combined models' refits).

    The keyword arguments ``on_gpu`` … ``mean_tokens`` and ``seeds`` only matter for a fine-tuned
    Transformer: whether it trains on a GPU, how its setting is chosen
    (``EvaluationSpec.transformer_tuning`` and ``validation_share``), the mean length of the texts
    in subword tokens (None: about 64) and the seeds of its final fine-tuning.
    """
    if model.representation == "transformer":
        return estimate_transformer_seconds(
            model, n_train, n_test, folds * repeats, on_gpu=on_gpu, tuning=tuning,
            validation_share=validation_share, mean_tokens=mean_tokens, seeds=seeds,
        )
    if model.representation == "codebook_llm":  # a language model with your codebook (a server: UserError)
        from guiapp.core.experiment.speed.codebook_estimates import codebook_seconds

        return codebook_seconds(model, n_train, n_test, n_categories, on_gpu=on_gpu, mean_tokens=mean_tokens)
    if model.representation in ("zero_shot", "setfit"):  # models that need few or no coded texts
        from guiapp.core.experiment.speed import few_shot_estimates
        return few_shot_estimates.model_seconds(model, n_train, n_test, n_categories, folds * repeats,
                                                on_gpu=on_gpu, tuning=tuning, validation_share=validation_share,
                                                mean_tokens=mean_tokens)
    return (conventional_seconds(model, n_train, n_test, n_categories, folds, repeats=repeats, n_jobs=n_jobs)
            + embedding_seconds(model, n_train + n_test))


def transformer_tuning_splits(tuning: str, on_gpu: bool, folds: int) -> int:
    """How many training runs each setting gets: every fold (``folds``: k, or r × k with repeated
    cross-validation), or 1 for a validation split."""
    if tuning == "auto":
        tuning = "cross-validation" if on_gpu else "validation split"
    return folds if tuning == "cross-validation" else 1


def _transformer_text_seconds(model: ModelSpec, on_gpu: bool,
                              mean_tokens: float | None) -> tuple[dict[str, Any], float]:
    """A Transformer's full options and its seconds per text and epoch of fine-tuning, on the GPU when
    there is one and the model may use it, corrected by what this computer measured before."""
    from guiapp.core.models.transformers.options import full_options

    options = full_options(model.representation_options)
    gpu = on_gpu and options["device"] != "cpu"
    per_text = per_text_finetune_seconds(options["model"], gpu, mean_tokens, options["max_length"])
    per_text *= read_speed(f"finetune:{options['model']}:{'gpu' if gpu else 'cpu'}", machine_identity()) or 1.0
    return options, per_text


def transformer_seconds(
    model: ModelSpec,
    n_train: int,
    n_test: int,
    *,
    tuning_splits: int,
    cross_validation: bool,
    validation_share: float = 0.2,
    seeds: int = 1,
    on_gpu: bool = False,
    mean_tokens: float | None = None,
) -> float:
    """Expected seconds of every fine-tuning run of a Transformer: each setting on each of
    ``tuning_splits`` splits (folds when ``cross_validation``, else one validation split of
    ``validation_share``), predicting the texts held out from it; then the chosen setting (costed
    at the grid's most epochs) on all training texts once per seed, each predicting the test texts."""
    from guiapp.core.models.transformers.options import expand_transformer_grid

    options, per_text = _transformer_text_seconds(model, on_gpu, mean_tokens)
    n_train = max(n_train, 1)
    if cross_validation:
        folds = max(tuning_splits, 2)
        fit, held_out = n_train * (folds - 1) / folds, n_train / folds
    else:
        fit, held_out = n_train * (1 - validation_share), n_train * validation_share
    points = expand_transformer_grid(model.grid, options["model"])
    total = 0.0
    for point in points:
        total += tuning_splits * (point["epochs"] * fit + PREDICT_SHARE * held_out) * per_text
    most_epochs = max(point["epochs"] for point in points)
    total += seeds * (most_epochs * n_train + PREDICT_SHARE * max(n_test, 0)) * per_text
    return total + LOAD_SECONDS * (tuning_splits * len(points) + seeds) + TORCH_LOAD_SECONDS


def transformer_out_of_fold_seconds(model: ModelSpec, n_train: int, folds: int, *, on_gpu: bool = False,
                                    mean_tokens: float | None = None) -> float:
    """Expected seconds of fine-tuning the chosen setting (costed at the grid's most epochs) once in each of
    ``folds`` folds of the training texts, each predicting the fold's held-out texts."""
    from guiapp.core.models.transformers.options import expand_transformer_grid

    options, per_text = _transformer_text_seconds(model, on_gpu, mean_tokens)
    folds, n_train = max(folds, 2), max(n_train, 1)
    epochs = max(point["epochs"] for point in expand_transformer_grid(model.grid, options["model"]))
    fit, held_out = n_train * (folds - 1) / folds, n_train / folds
    return folds * ((epochs * fit + PREDICT_SHARE * held_out) * per_text + LOAD_SECONDS)


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
    seeds: int = 1,
) -> float:
    """:func:`transformer_seconds` with the splits of ``tuning`` ("auto", "cross-validation" or
    "validation split") on ``folds`` folds."""
    from guiapp.core.models.transformers.options import full_options

    gpu = on_gpu and full_options(model.representation_options)["device"] != "cpu"
    splits = transformer_tuning_splits(tuning, gpu, folds)
    cross_validation = tuning == "cross-validation" or (tuning == "auto" and gpu)
    return transformer_seconds(model, n_train, n_test, tuning_splits=splits, cross_validation=cross_validation,
                               validation_share=validation_share, seeds=seeds, on_gpu=gpu, mean_tokens=mean_tokens)


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


def mean_subword_tokens(texts: list[str]) -> float | None:
    """About how many subword tokens a text has (1.3 per word, as ``speed_probe`` counts them)."""
    if not texts:
        return None
    return 1.3 * sum(len(str(text).split()) for text in texts) / len(texts)
