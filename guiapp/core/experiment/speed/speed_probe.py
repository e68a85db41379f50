"""A short measurement of the study's own work on this computer, for the Models step's estimate.

For each ticked model it does a little of the real work on the user's own texts: embeds two
batches (4 + 32 texts) with the chosen sentence-embedding model; fits the classifier once on a
subsample (its representation built the same way); fine-tunes the Transformer for a few steps.
The results go into the per-machine cache (``speed_cache.py``) as
- ``embed:<model>``: seconds per text;
- ``fit:<classifier>:<representation>``: how much slower (>1) or faster this computer fits than
  the constants in ``estimates.py`` assume;
- ``finetune:<model>:cpu|gpu``: the same factor for fine-tuning.
A value already in the cache (same machine, fresh) is not measured again. Runs in a worker: it
takes seconds (a minute at most with a Transformer), honours cancellation through ``on_event``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.experiment.speed.estimates import fit_seconds_per_fit, per_text_finetune_seconds
from guiapp.core.experiment.speed.speed_cache import machine_identity, read_speed, write_speeds
from guiapp.core.study.sections import ModelSpec

EMBED_SAMPLE = 36  # the first, small batch (4) and one full batch (32)
FIT_SAMPLE = 400
FINETUNE_SAMPLE = 32


def speed_keys(model: ModelSpec, on_gpu: bool = False) -> list[str]:
    """The cache keys a model's estimate uses."""
    if model.representation == "transformer":
        name = str(model.representation_options.get("model") or "all-MiniLM-L6-v2")
        return [f"finetune:{name}:{'gpu' if on_gpu else 'cpu'}"]
    keys = [f"fit:{model.classifier}:{model.representation}"]
    if model.representation == "sentence_embeddings":
        keys.append(f"embed:{model.representation_options.get('model') or 'all-MiniLM-L6-v2'}")
    return keys


def missing_keys(models: Sequence[ModelSpec], on_gpu: bool = False, identity: str | None = None) -> list[str]:
    identity = identity or machine_identity()
    return sorted({k for m in models for k in speed_keys(m, on_gpu) if read_speed(k, identity) is None})


def measure_speeds(
    texts: Sequence[str],
    y: np.ndarray,
    models: Sequence[ModelSpec],
    on_event: EventCallback = ignore_events,
    *,
    on_gpu: bool = False,
    seed: int = 0,
) -> dict[str, float]:
    """Measure what the cache lacks for ``models`` on ``texts`` (with their categories ``y``);
    returns the values measured (also written to the cache)."""
    identity = machine_identity()
    wanted = missing_keys(models, on_gpu, identity)
    rng = np.random.default_rng(seed)
    measured: dict[str, float] = {}
    texts = list(texts)
    y = np.asarray(y)
    for number, model in enumerate(models):
        on_event(Progress(number / max(len(models), 1), f"Measuring the speed of this computer: {model.display_name}"))
        for key in speed_keys(model, on_gpu):
            if key not in wanted or key in measured:
                continue
            try:
                if key.startswith("embed:"):
                    measured[key] = _measure_embedding(texts, model, rng)
                elif key.startswith("fit:"):
                    measured[key] = _measure_fit(texts, y, model, rng, seed)
                else:
                    measured[key] = _measure_finetune(texts, y, model, rng, seed, on_gpu)
            except (UserError, ValueError, OSError, RuntimeError, MemoryError) as error:  # the estimate stays a rough one
                on_event(Log(f"Could not measure {model.display_name}: {error}", "warning"))
    if measured:
        write_speeds(measured, identity)
    on_event(Progress(1.0, "Measured the speed of this computer"))
    return measured


def _sample(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.choice(n, size=min(size, n), replace=False))


def _measure_embedding(texts: list[str], model: ModelSpec, rng: np.random.Generator) -> float:
    from guiapp.core.features.sentence_embeddings import SentenceEmbeddings, load_model, resolve_model

    representation = SentenceEmbeddings(**model.representation_options)
    tokenizer, transformer = load_model(resolve_model(representation.model)[0])
    rows = _sample(len(texts), EMBED_SAMPLE, rng)
    start = time.perf_counter()
    representation._embed([texts[i] for i in rows], tokenizer, transformer, ignore_events)
    return (time.perf_counter() - start) / max(len(rows), 1)


def _measure_fit(texts: list[str], y: np.ndarray, model: ModelSpec, rng: np.random.Generator, seed: int) -> float:
    from guiapp.core.experiment.protocol.fitting import fit_classifier
    from guiapp.core.features.registry import make_representation
    from guiapp.core.models.conventional import expand_grid

    rows = _sample(len(texts), FIT_SAMPLE, rng)
    sample, labels = [texts[i] for i in rows], y[rows]
    if len(np.unique(labels)) < 2:
        raise ValueError("the sample holds only one category")
    representation = make_representation(model.representation, model.representation_options)
    if model.representation == "sentence_embeddings":  # the embedding is measured on its own
        features = rng.standard_normal((len(sample), 384)).astype(np.float64)
    else:
        prepared = representation.prepare(sample)
        features = representation.fit_prepared(prepared).transform_prepared(prepared)
    point = expand_grid(model.classifier, model.grid)[0]
    start = time.perf_counter()
    fit_classifier(model.classifier, point, seed, 1, features, labels)
    seconds = time.perf_counter() - start
    expected = fit_seconds_per_fit(model.classifier, model.representation, point, len(sample),
                                   len(np.unique(labels)))
    return max(seconds / max(expected, 1e-6), 0.05)


def _measure_finetune(texts: list[str], y: np.ndarray, model: ModelSpec, rng: np.random.Generator, seed: int,
                      on_gpu: bool) -> float:
    from guiapp.core.models.transformers.fine_tuning import fine_tune
    from guiapp.core.models.transformers.options import full_options
    from guiapp.core.models.transformers.sources.resolve import resolve_model
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

    options = full_options(model.representation_options)
    rows = _sample(len(texts), FINETUNE_SAMPLE, rng)
    sample, labels = [texts[i] for i in rows], np.searchsorted(np.unique(y[rows]), y[rows])
    settings = FineTuneSettings(learning_rate=5e-5, epochs=1, batch_size=options["batch_size"],
                                max_length=options["max_length"], seed=seed,
                                device=options["device"] if on_gpu else "cpu")
    tuned = fine_tune(resolve_model(options["model"]), sample, labels, max(int(labels.max()) + 1, 2), settings)
    measured = 1.0 / max(tuned.samples_per_second, 1e-9)
    tokens = float(np.mean([len(text.split()) for text in sample])) * 1.3
    expected = per_text_finetune_seconds(options["model"], on_gpu, tokens, options["max_length"])
    return max(measured / max(expected, 1e-9), 0.05)


def measure_study(spec, spec_file=None, table=None, on_event: EventCallback = ignore_events, *,  # noqa: ANN001
                  on_gpu: bool = False) -> dict[str, float]:
    """Read the study's coded texts and measure what the cache lacks for its models (for a
    worker started by the Models step; returns the values measured)."""
    from guiapp.core.events import sub_progress
    from guiapp.core.study.study_data import load_study_data

    if not missing_keys(spec.models, on_gpu):
        return {}
    data = load_study_data(spec, spec_file, table, sub_progress(on_event, 0.0, 0.2))
    train = data.split.train
    return measure_speeds([data.texts[i] for i in train], data.y[train], spec.models,
                          sub_progress(on_event, 0.2, 1.0), on_gpu=on_gpu, seed=spec.seed)
