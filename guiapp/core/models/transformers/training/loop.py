"""The fine-tuning loop: AdamW, linear learning-rate decay, dynamic padding, GPU memory backoff.

Follows the reference paper (AdamW, learning rate falling linearly to 0 over all steps, no
warm-up, batch 16). The loss is cross-entropy over the categories or, when a text can have several
categories, binary cross-entropy per category (``batch_loss``). Each optimizer step takes one batch
of texts of similar length, padded only to its longest text. On a GPU the forward pass runs in
bfloat16 (or float16 with a gradient scaler) autocast. When the GPU runs out of memory, the step is
repeated in micro-batches of half the size whose gradients are summed, so the optimizer sees the
same batch of 16 and the same learning-rate schedule; this goes on down to one text at a time.

Speed (each switchable, ``speed_switches.py``): the last layer computes only the token the
classifier reads (``first_token.py``); only the word embeddings of words in the texts are trained
(``used_vocabulary.py``); on the CPU the thread count follows the free cores (``cpu_threads.py``);
on a GPU each loss is read one step late, so the GPU never waits for Python, and batches are padded
to multiples of 8 tokens. AdamW is fused into one kernel on the CPU and on CUDA, and gradients are
freed (not zeroed) after each step.

The callback is called after every optimizer step (on a GPU, just after the next one was queued);
it may raise ``Cancelled`` to stop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Metric, Progress
from guiapp.core.models.transformers.training.batches import (
    Batch,
    collate,
    length_grouped_batches,
    split,
)
from guiapp.core.models.transformers.training.first_token import first_token_only
from guiapp.core.models.transformers.training.speed_switches import SpeedSwitches
from guiapp.core.models.transformers.training.used_vocabulary import UsedVocabulary

if TYPE_CHECKING:
    from guiapp.core.models.transformers.training.cpu_threads import CpuThreads
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

# Called with the size of each micro-batch just before its forward pass. Tests set it to
# simulate a GPU that runs out of memory; None in normal use.
before_micro_batch: Callable[[int], None] | None = None


@dataclass
class Outcome:
    losses: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    samples_per_second: float = 0.0
    micro_batch_size: int = 0


def is_out_of_memory(exc: BaseException) -> bool:
    """True for a lack of accelerator memory (CUDA, MPS), however torch reports it."""
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def free_memory(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()
    elif device.type == "mps" and hasattr(torch, "mps"):
        torch.mps.empty_cache()


def halving_on_lack_of_memory(batches: Sequence[np.ndarray], device: torch.device,
                              answer: Callable[[np.ndarray], None]) -> Iterator[np.ndarray]:
    """``answer(batch)`` for each of ``batches`` in order, each batch yielded once answered; a batch
    the accelerator has no memory for is halved and its halves answered in its place (a batch of one
    text that does not fit raises)."""
    stack = list(batches)[::-1]  # pop() takes the next in order
    while stack:
        batch = stack.pop()
        try:
            answer(batch)
        except Exception as error:
            if not is_out_of_memory(error) or len(batch) == 1:
                raise
            short = True
        else:
            short = False
        if short:  # halved outside the except block, so that the failed batch's tensors can be freed
            free_memory(device)
            half = len(batch) // 2
            stack.extend([batch[half:], batch[:half]])
            continue
        yield batch


def autocast_dtype(device: torch.device, mixed_precision: bool, bf16: bool) -> torch.dtype | None:
    """bfloat16 on GPUs that support it, else float16 on CUDA; None (full precision) elsewhere."""
    if device.type != "cuda" or not mixed_precision:
        return None
    return torch.bfloat16 if bf16 else torch.float16


def make_optimizer(model: torch.nn.Module, settings: FineTuneSettings, device: torch.device) -> torch.optim.AdamW:
    """AdamW; weight decay (0 by default) spares biases and LayerNorm weights, as usual."""
    decay, no_decay = [], []
    for name, parameter in model.named_parameters():
        if parameter.requires_grad:
            (no_decay if parameter.ndim < 2 or "LayerNorm" in name else decay).append(parameter)
    groups = [
        {"params": decay, "weight_decay": settings.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    if device.type in ("cuda", "cpu"):  # one fused kernel: on 2 CPU cores 40 ms a step instead of 175
        try:
            return torch.optim.AdamW(groups, lr=settings.learning_rate, fused=True)
        except (RuntimeError, ValueError):  # an older torch without the fused kernel here
            pass
    return torch.optim.AdamW(groups, lr=settings.learning_rate)


def linear_schedule(optimizer: torch.optim.Optimizer, total: int, warmup: int) -> torch.optim.lr_scheduler.LambdaLR:
    """Learning rate rises over ``warmup`` steps (none by default), then falls linearly to 0."""

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / (warmup + 1)
        return max(0.0, (total - step) / max(1, total - warmup))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def batch_loss(logits: torch.Tensor, labels: torch.Tensor, n: int,
               positive_weight: torch.Tensor | None = None) -> torch.Tensor:
    """The loss of a (micro-)batch, summed over its texts and divided by the ``n`` texts of the
    whole step, so that micro-batches add up to the step's mean, computed in 32-bit numbers.

    One category per text (``labels`` of category indices): cross-entropy over the categories
    (softmax). Several categories per text (``labels`` a 0/1 matrix, text × category): binary
    cross-entropy of each category's own logit (sigmoid), averaged over the categories as well,
    like Hugging Face's ``multi_label_classification`` loss; ``positive_weight`` (one per category)
    weighs the texts that have a category (:func:`positive_weights`)."""
    logits = logits.float()
    if labels.ndim == 2:
        weight = None if positive_weight is None else positive_weight.to(logits.device)
        total = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype), reduction="sum",
                                                   pos_weight=weight)
        return total / (n * logits.shape[1])
    return F.cross_entropy(logits, labels, reduction="sum") / n


MAX_POSITIVE_WEIGHT = 20.0  # a category of one text in 200 counts 20 times, not 199


def positive_weights(labels: np.ndarray) -> np.ndarray:
    """Where a text can have several categories: each category's texts weighted against the texts
    without it (those without ÷ those with, at most :data:`MAX_POSITIVE_WEIGHT`; 1 for a category
    no text or every text has). The shared network otherwise learns to say "no" to every rare
    category — on ETHOS's 8 categories it gave no text any category — just as the logistic
    regressions weigh their categories ("balanced")."""
    positives = labels.sum(axis=0).astype(float)
    negatives = len(labels) - positives
    ratio = np.divide(negatives, positives, out=np.ones_like(positives), where=positives > 0)
    return np.clip(np.where(negatives > 0, ratio, 1.0), 1.0, MAX_POSITIVE_WEIGHT)


class _Step:
    """One optimizer step's forward and backward passes, in micro-batches when memory is short."""

    def __init__(self, model: torch.nn.Module, device: torch.device, dtype: torch.dtype | None,
                 scaler: Any, batch_size: int, pad_multiple: int = 1,
                 positive_weight: torch.Tensor | None = None) -> None:
        self.model, self.device, self.dtype, self.scaler = model, device, dtype, scaler
        self.batch_size = batch_size
        self.micro = batch_size
        self.pad_multiple = pad_multiple
        self.positive_weight = positive_weight

    def run(self, batch: Batch) -> torch.Tensor:
        n = batch.input_ids.shape[0]
        total: torch.Tensor | None = None
        for part in split(batch, self.micro, self.pad_multiple):
            if before_micro_batch is not None:
                before_micro_batch(part.input_ids.shape[0])
            part = part.to(self.device)
            with torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None):
                logits = self.model(input_ids=part.input_ids, attention_mask=part.attention_mask).logits
            loss = batch_loss(logits, part.labels, n, self.positive_weight)
            (self.scaler.scale(loss) if self.scaler is not None else loss).backward()
            total = loss.detach() if total is None else total + loss.detach()
        assert total is not None
        return total

    def back_off(self, on_event: EventCallback, notes: list[str]) -> None:
        """Halve the micro-batch after running out of memory; UserError below one text."""
        if self.micro <= 1:
            raise UserError(
                "The GPU does not have enough memory to fine-tune this model, not even one text "
                "at a time.",
                "Choose a shorter maximum text length (for example 256 tokens) or a smaller model, "
                "close other programs that use the GPU, or train on the CPU (slower).",
            )
        self.micro = max(1, self.micro // 2)
        parts = math.ceil(self.batch_size / self.micro)
        note = (
            f"The GPU ran out of memory; TextLab now trains in micro-batches of {self.micro} and "
            f"accumulates {parts} of them per step (same results, a bit slower)."
        )
        notes.append(note)
        on_event(Log(note, "warning"))


def train(
    model: torch.nn.Module,
    input_ids: Sequence[Sequence[int]],
    lengths: np.ndarray,
    labels: np.ndarray,
    pad_id: int,
    settings: FineTuneSettings,
    device: torch.device,
    bf16: bool,
    generator: torch.Generator,
    on_event: EventCallback,
    threads: CpuThreads | None = None,
    switches: SpeedSwitches | None = None,
) -> Outcome:
    """Fine-tune ``model`` (already on ``device``) for ``settings.epochs`` passes over the texts.

    ``threads`` (on the CPU) is looked at after every step and sets torch's thread count to the
    free cores; ``switches`` are the speed-ups in use (all, unless the environment says otherwise)."""
    switches = switches or SpeedSwitches.from_environment()
    n, batch_size, epochs = len(labels), settings.batch_size, settings.epochs
    per_epoch = math.ceil(n / batch_size)
    total = per_epoch * epochs
    vocabulary = UsedVocabulary(model, input_ids, pad_id, settings.weight_decay, switches.vocabulary)
    if vocabulary.active:
        input_ids, pad_id = vocabulary.renumber(input_ids), vocabulary.pad_id(pad_id)
    optimizer = make_optimizer(model, settings, device)
    scheduler = linear_schedule(optimizer, total, round(settings.warmup_share * total))
    dtype = autocast_dtype(device, settings.mixed_precision, bf16)
    scaler = torch.amp.GradScaler("cuda") if dtype == torch.float16 else None
    multiple = switches.pad_multiple(device.type)
    limit = int(max(lengths)) if len(lengths) else None  # padding never goes past the longest text
    weights = None
    outcome = Outcome()
    if np.ndim(labels) == 2:
        weights = positive_weights(np.asarray(labels))
        if (weights > 1.0).any():
            outcome.notes.append("Each category's texts were weighted against the texts without it (up to "
                                 f"{weights.max():.1f} times), so that rare categories are learnt too.")
    stepper = _Step(model, device, dtype, scaler, batch_size, multiple,
                    None if weights is None else torch.tensor(weights, dtype=torch.float32))
    pin = device.type == "cuda"
    lag = switches.lag and device.type in ("cuda", "mps")  # CPU work is done when the call returns
    report = _Reporter(outcome, total, epochs, on_event)
    model.train()
    started = time.perf_counter()
    try:
        with first_token_only(model, switches.first_token):
            for epoch in range(1, epochs + 1):
                for indices in length_grouped_batches(lengths, batch_size, generator):
                    batch = collate(input_ids, indices, pad_id, labels, pin_memory=pin, multiple=multiple,
                                    limit=limit)
                    loss = _step_with_backoff(stepper, batch, optimizer, device, on_event, outcome.notes)
                    if settings.max_grad_norm:
                        if scaler is not None:
                            scaler.unscale_(optimizer)
                        torch.nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
                    if scaler is not None:
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad(set_to_none=True)
                    report.queue(loss, epoch, len(indices))
                    if not lag:
                        report.flush()
                    if threads is not None:
                        threads.tick()
                report.flush()
                report.epoch_done(epoch)
    finally:
        optimizer.zero_grad(set_to_none=True)
        optimizer.state.clear()
        vocabulary.restore()
        model.eval()
        free_memory(device)
    outcome.seconds = time.perf_counter() - started
    outcome.samples_per_second = report.seen / max(outcome.seconds, 1e-9)
    outcome.micro_batch_size = stepper.micro
    return outcome


class _Reporter:
    """Reads each step's loss and reports it (Metric, Progress, per-epoch Log). On a GPU a step's
    loss is read only after the next step has been queued (:meth:`queue` without :meth:`flush`),
    so that reading it, which waits for the GPU, never leaves the GPU idle."""

    def __init__(self, outcome: Outcome, total: int, epochs: int, on_event: EventCallback) -> None:
        self.outcome, self.total, self.epochs, self.on_event = outcome, total, epochs, on_event
        self.pending: list[tuple[torch.Tensor, int, int]] = []
        self.step = self.seen = 0
        self.epoch_losses: list[float] = []
        self.started = time.perf_counter()

    def queue(self, loss: torch.Tensor, epoch: int, texts: int) -> None:
        if len(self.pending) >= 1:
            self.flush()
        self.pending.append((loss, epoch, texts))

    def flush(self) -> None:
        pending, self.pending = self.pending, []
        for loss, epoch, texts in pending:
            self.step += 1
            self.seen += texts
            value = float(loss)
            self.outcome.losses.append(value)
            self.epoch_losses.append(value)
            speed = self.seen / max(time.perf_counter() - self.started, 1e-9)
            recent = float(np.mean(self.outcome.losses[-10:]))
            self.on_event(Metric("loss", self.step, value, self.total))
            self.on_event(Progress(
                self.step / self.total,
                f"epoch {epoch} of {self.epochs}, step {self.step} of {self.total} · loss {recent:.2f} · "
                f"{speed:.1f} texts a second",
                done=self.step, total=self.total,
            ))

    def epoch_done(self, epoch: int) -> None:
        speed = self.seen / max(time.perf_counter() - self.started, 1e-9)
        self.on_event(Log(
            f"Epoch {epoch} of {self.epochs} done: mean loss {np.mean(self.epoch_losses):.3f} "
            f"({len(self.epoch_losses)} steps, {speed:.1f} texts per second so far)."
        ))
        self.epoch_losses = []


def _step_with_backoff(stepper: _Step, batch: Batch, optimizer: torch.optim.Optimizer, device: torch.device,
                       on_event: EventCallback, notes: list[str]) -> torch.Tensor:
    """Forward and backward for one step; on a lack of memory, retry the step in smaller parts."""
    while True:
        try:
            return stepper.run(batch)
        except Exception as exc:
            if not is_out_of_memory(exc):
                raise
        # outside the except block, so the traceback no longer holds the failed step's tensors
        optimizer.zero_grad(set_to_none=True)
        free_memory(device)
        stepper.back_off(on_event, notes)


__all__ = ["Outcome", "autocast_dtype", "batch_loss", "free_memory", "is_out_of_memory", "linear_schedule", "positive_weights",
           "train"]
