"""Training a SetFit model (Tunstall et al. 2022, "Efficient Few-Shot Learning Without Prompts").

1. Contrastive fine-tuning of a sentence model (the bundled all-MiniLM-L6-v2 by default) on pairs
   of coded texts (``pairs.py``: SetFit's sampling, ``pairs_per_text`` similar and as many
   dissimilar pairs per text): the cosine similarity of the two texts' vectors (mean-pooled,
   L2-normalised: ``body.py``) is pulled towards 1 for a similar pair and 0 for a dissimilar one
   (sentence-transformers' CosineSimilarityLoss: the mean squared difference). AdamW, weight
   decay 0.01, the learning rate rising over the first 10 % of the steps then falling linearly to
   0, gradients clipped at norm 1, pairs in a new random order each epoch: SetFit's defaults.
2. A logistic-regression head on the fine-tuned vectors of the same texts (``head.py``).

Why not the ``setfit`` package itself: measured with setfit 1.2.0 installed apart (with this
TextLab's transformers 5.24 and sentence-transformers 6.2), it imports and trains only once
datasets 5.2, evaluate 0.4.6, dill, multiprocess and xxhash are added to the installer (13 MB, and
evaluate asks for aiohttp through fsspec[http]); it saves its head with joblib, a pickle that
TextLab never opens; its trainer writes checkpoints into the current folder and reports through
tqdm, not through TextLab's events with Cancel; and on a busy 2-core machine its trainer took 8 to
18 s for the 9 steps of a tiny test model that this function, loading included, trains in 1 to 4 s.
The method itself is small, so it is written here with torch and the Transformer family's pieces
(dynamic padding, the thread count on the CPU, the device choice, AdamW and the learning-rate
schedule).

On this kind of machine (2 busy cores), the bundled MiniLM with the default settings trains on 48
short coded texts (16 per category: 1,920 pairs, 120 steps) in about 2.5 minutes.

Everything is seeded from ``settings.seed``: on the CPU, two runs with the same seed and the same
number of threads give the same model.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Metric, Progress, ignore_events, sub_progress
from guiapp.core.models.setfit.body import autocast_dtype, embed, encode, load_body, pooled
from guiapp.core.models.setfit.head import fit_head
from guiapp.core.models.setfit.model import SetFitModel
from guiapp.core.models.setfit.pairs import Pairs, pairs_wanted, sample_pairs
from guiapp.core.models.setfit.settings import MAX_GRAD_NORM, WARMUP_SHARE, WEIGHT_DECAY, SetFitSettings
from guiapp.core.models.transformers.fine_tuning import model_name, pick_device, seed_everything
from guiapp.core.models.transformers.training.batches import collate, pad_id
from guiapp.core.models.transformers.training.cpu_threads import CpuThreads
from guiapp.core.models.transformers.training.loop import free_memory, is_out_of_memory, linear_schedule, make_optimizer
from guiapp.core.models.transformers.training.speed_switches import SpeedSwitches
from guiapp.core.progress_clock import TimeLeftClock, describe_time_left

FINE_TUNING_SHARE = 0.9  # of the progress bar; reading the texts and fitting the head take the rest


def train_setfit(
    texts: Sequence[str],
    y: np.ndarray,
    n_categories: int,
    settings: SetFitSettings | None = None,
    model: str | Path | None = None,
    on_event: EventCallback = ignore_events,
    *,
    categories: Sequence[str] | None = None,
) -> SetFitModel:
    """Train SetFit on ``texts`` coded as ``y``: a category index (0 … n_categories − 1) per text,
    or a 0/1 matrix (text × category) where a text can have several categories. ``model``: the
    sentence model to start from (the bundled all-MiniLM-L6-v2 when None: a model folder or a name
    as for the Transformer family). ``categories`` name the categories (else "category 1" …).

    Reports Progress (with the time left), the loss of every step (Metric) and Log lines through
    ``on_event``, which may raise ``Cancelled`` to stop after any step."""
    settings = settings if settings is not None else SetFitSettings()
    settings.check()
    texts = [text if isinstance(text, str) else "" for text in texts]
    labels = checked_labels(texts, y, n_categories)
    names = [str(name) for name in categories] if categories is not None else [
        f"category {k + 1}" for k in range(n_categories)]
    if len(names) != n_categories:
        raise ValueError(f"{len(names)} category names for {n_categories} categories")
    started = time.perf_counter()
    info = pick_device(settings.device)
    device = torch.device(info.kind)
    on_event(Progress(0.0, "Loading the sentence model", 0, None))
    generator = seed_everything(settings.seed)
    net, tokenizer, folder = load_body(model, on_event)
    try:
        encoded = encode(tokenizer, net.config, texts, settings.max_length)
        pairs = sample_pairs(labels, settings.pairs_per_text, np.random.default_rng(settings.seed),
                             settings.max_pairs)
        notes: list[str] = []

        def note(text: str, level: str = "warning") -> None:
            notes.append(text)
            on_event(Log(text, level))

        if pairs_wanted(len(texts), settings.pairs_per_text) > pairs_wanted(len(texts), settings.pairs_per_text,
                                                                            settings.max_pairs):
            note(capped_pairs_note(len(texts), settings), "info")

        if encoded.n_truncated:
            note(f"{encoded.n_truncated} of {len(texts)} texts were longer than {encoded.max_length} tokens; only "
                 f"their first {encoded.max_length} tokens were read.")
        net.to(device)
        with CpuThreads(enabled=device.type == "cpu" and SpeedSwitches.from_environment().threads) as threads:
            losses: list[float] = []
            if len(pairs) == pairs.n_similar:  # nothing to tell apart: every text has the same categories
                note("All coded texts have the same categories, so there are no dissimilar pairs: the sentence "
                     "model was not fine-tuned, and the model always answers those categories.")
            else:
                on_event(Log(_describe_run(model_name(folder), net, info.name, pairs, len(texts), settings)))
                losses = fine_tune_on_pairs(net, tokenizer, encoded.input_ids, pairs, settings, device, info.bf16,
                                            generator, sub_progress(on_event, 0.0, FINE_TUNING_SHARE), threads)
        vectors = embed(net, tokenizer, encoded, device, info.bf16, sub_progress(on_event, FINE_TUNING_SHARE, 0.98),
                        "Reading the coded texts")
        on_event(Progress(0.98, "Fitting the logistic regression on the fine-tuned vectors"))
        head = fit_head(vectors, labels, n_categories, settings.seed)
    except BaseException:
        net.to("cpu")
        del net
        free_memory(device)
        raise
    seconds = time.perf_counter() - started
    on_event(Progress(1.0, f"SetFit trained in {seconds:.0f} s"))
    return SetFitModel(net, tokenizer, head, settings, names, info.kind, info.bf16, model_name(folder), [],
                       losses, len(pairs), encoded.n_truncated, seconds, notes)


def capped_pairs_note(n_texts: int, settings: SetFitSettings) -> str:
    """In words: an epoch took at most ``settings.max_pairs`` pairs, fewer than pairs per text × texts."""
    full = 2 * pairs_wanted(n_texts, settings.pairs_per_text)
    taken = 2 * pairs_wanted(n_texts, settings.pairs_per_text, settings.max_pairs)
    return (f"The sentence model was fine-tuned on {taken:,} pairs of coded texts per epoch, drawn at random: "
            f"{settings.pairs_per_text} pairs per text would have made {full:,} pairs of the {n_texts:,} texts, "
            f"more than the {settings.max_pairs:,} allowed (SetFit is made for a few coded texts per category). "
            "The logistic regression still learnt from every coded text.")


def checked_labels(texts: Sequence[str], y: np.ndarray, n_categories: int) -> np.ndarray:
    """``y`` as int64 category indices, or as a uint8 0/1 matrix (texts × n_categories)."""
    labels = np.asarray(y)
    if len(texts) == 0:
        raise UserError("SetFit needs coded texts to learn from, and none were given.",
                        "Code some texts first (a few per category suffice).")
    if len(labels) != len(texts):
        raise ValueError(f"{len(texts)} texts but {len(labels)} codes")
    if labels.ndim == 2:
        if n_categories < 1 or labels.shape[1] != n_categories or not np.isin(labels, (0, 1)).all():
            raise ValueError(f"a 0/1 matrix of {n_categories} columns is needed for {n_categories} categories")
        return labels.astype(np.uint8)
    whole = np.issubdtype(labels.dtype, np.integer) or (
        np.issubdtype(labels.dtype, np.floating) and bool(np.all(np.mod(labels, 1) == 0)))
    if labels.ndim != 1 or n_categories < 2 or not whole or labels.min() < 0 or labels.max() >= n_categories:
        raise ValueError(f"category indices from 0 to {n_categories - 1} are needed")
    return labels.astype(np.int64)


def fine_tune_on_pairs(net: Any, tokenizer: Any, input_ids: Sequence[Sequence[int]], pairs: Pairs,
                       settings: SetFitSettings, device: torch.device, bf16: bool, generator: torch.Generator,
                       on_event: EventCallback, threads: CpuThreads | None = None) -> list[float]:
    """Contrastive fine-tuning (see the module docstring); the loss of every step."""
    n, batch_size, epochs = len(pairs), settings.batch_size, settings.epochs
    per_epoch = math.ceil(n / batch_size)
    total = per_epoch * epochs
    optimizer = make_optimizer(net, SimpleNamespace(learning_rate=settings.learning_rate, weight_decay=WEIGHT_DECAY),
                               device)
    scheduler = linear_schedule(optimizer, total, round(WARMUP_SHARE * total))
    dtype = autocast_dtype(device, bf16)
    padding, pin = pad_id(tokenizer), device.type == "cuda"
    targets = torch.from_numpy(pairs.target)
    clock, losses, step = TimeLeftClock(), [], 0
    net.train()
    try:
        for epoch in range(1, epochs + 1):
            order = torch.randperm(n, generator=generator).numpy()
            for start in range(0, n, batch_size):
                chosen = order[start:start + batch_size]
                batch = collate(input_ids, np.concatenate([pairs.first[chosen], pairs.second[chosen]]), padding,
                                pin_memory=pin).to(device)
                try:
                    with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
                        vectors = pooled(net, batch.input_ids, batch.attention_mask)
                    similarity = F.cosine_similarity(vectors[:len(chosen)], vectors[len(chosen):])
                    loss = F.mse_loss(similarity, targets[chosen].to(device))
                    loss.backward()
                except Exception as exc:
                    if is_out_of_memory(exc):
                        raise _out_of_memory(settings.batch_size) from None
                    raise
                torch.nn.utils.clip_grad_norm_(net.parameters(), MAX_GRAD_NORM)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                step += 1
                losses.append(float(loss.detach()))
                if threads is not None:
                    threads.tick()
                on_event(Metric("loss", step, losses[-1], total))
                left = describe_time_left(clock.update(time.monotonic(), step / total))
                on_event(Progress(step / total, f"SetFit: epoch {epoch} of {epochs}, step {step:,} of {total:,} · "
                                                 f"loss {np.mean(losses[-10:]):.3f}" + (f" · {left}" if left else ""),
                                  step, total))
            on_event(Log(f"Epoch {epoch} of {epochs} done: mean loss {np.mean(losses[-per_epoch:]):.4f}."))
    finally:
        optimizer.zero_grad(set_to_none=True)
        optimizer.state.clear()
        net.eval()
        free_memory(device)
    return losses


def _describe_run(name: str, net: Any, device_name: str, pairs: Pairs, n_texts: int,
                  settings: SetFitSettings) -> str:
    weights = sum(p.numel() for p in net.parameters()) / 1e6
    steps = math.ceil(len(pairs) / settings.batch_size) * settings.epochs
    return (f"SetFit: fine-tuning {name} ({weights:.1f} million weights; {device_name}) on {len(pairs):,} pairs "
            f"of the {n_texts:,} coded texts ({pairs.n_similar:,} similar, {len(pairs) - pairs.n_similar:,} not): "
            f"{settings.epochs} epoch{'s' if settings.epochs > 1 else ''}, {steps:,} steps of {settings.batch_size} "
            f"pairs, learning rate {settings.learning_rate:g}.")


def _out_of_memory(batch_size: int) -> UserError:
    return UserError(f"The GPU does not have enough memory to fine-tune the sentence model on {batch_size} pairs "
                     "of texts at a time.",
                     "Choose a smaller batch size or a shorter maximum text length, close other programs that use "
                     "the GPU, or train on the CPU (slower).")


__all__ = ["capped_pairs_note", "checked_labels", "fine_tune_on_pairs", "train_setfit"]
