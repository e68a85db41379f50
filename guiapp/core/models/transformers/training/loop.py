"""The fine-tuning loop: AdamW, linear learning-rate decay, dynamic padding, GPU memory backoff.

Follows the reference paper (AdamW, learning rate falling linearly to 0 over all steps, no
warm-up, batch 16). Each optimizer step takes one batch of texts of similar length, padded only
to its longest text. On a GPU the forward pass runs in bfloat16 (or float16 with a gradient
scaler) autocast. When the GPU runs out of memory, the step is repeated in micro-batches of half
the size whose gradients are summed, so the optimizer sees the same batch of 16 and the same
learning-rate schedule; this goes on down to one text at a time.

The callback is called after every optimizer step; it may raise ``Cancelled`` to stop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
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

if TYPE_CHECKING:
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


class _Step:
    """One optimizer step's forward and backward passes, in micro-batches when memory is short."""

    def __init__(self, model: torch.nn.Module, device: torch.device, dtype: torch.dtype | None,
                 scaler: Any, batch_size: int) -> None:
        self.model, self.device, self.dtype, self.scaler = model, device, dtype, scaler
        self.batch_size = batch_size
        self.micro = batch_size

    def run(self, batch: Batch) -> torch.Tensor:
        n = batch.input_ids.shape[0]
        total = torch.zeros((), device=self.device)
        for part in split(batch, self.micro):
            if before_micro_batch is not None:
                before_micro_batch(part.input_ids.shape[0])
            part = part.to(self.device)
            with torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None):
                logits = self.model(input_ids=part.input_ids, attention_mask=part.attention_mask).logits
            loss = F.cross_entropy(logits.float(), part.labels, reduction="sum") / n
            (self.scaler.scale(loss) if self.scaler is not None else loss).backward()
            total += loss.detach()
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
) -> Outcome:
    """Fine-tune ``model`` (already on ``device``) for ``settings.epochs`` passes over the texts."""
    n, batch_size, epochs = len(labels), settings.batch_size, settings.epochs
    per_epoch = math.ceil(n / batch_size)
    total = per_epoch * epochs
    optimizer = make_optimizer(model, settings, device)
    scheduler = linear_schedule(optimizer, total, round(settings.warmup_share * total))
    dtype = autocast_dtype(device, settings.mixed_precision, bf16)
    scaler = torch.amp.GradScaler("cuda") if dtype == torch.float16 else None
    stepper = _Step(model, device, dtype, scaler, batch_size)
    outcome = Outcome()
    pin = device.type == "cuda"
    seen, step = 0, 0
    model.train()
    started = time.perf_counter()
    try:
        for epoch in range(1, epochs + 1):
            epoch_losses: list[float] = []
            for indices in length_grouped_batches(lengths, batch_size, generator):
                batch = collate(input_ids, indices, pad_id, labels, pin_memory=pin)
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
                step += 1
                seen += len(indices)
                value = float(loss)
                outcome.losses.append(value)
                epoch_losses.append(value)
                speed = seen / max(time.perf_counter() - started, 1e-9)
                recent = float(np.mean(outcome.losses[-10:]))
                on_event(Metric("loss", step, value, total))
                on_event(Progress(
                    step / total,
                    f"epoch {epoch} of {epochs}, step {step} of {total} · loss {recent:.2f} · {speed:.1f} texts a second",
                    done=step, total=total,
                ))
            on_event(Log(
                f"Epoch {epoch} of {epochs} done: mean loss {np.mean(epoch_losses):.3f} "
                f"({len(epoch_losses)} steps, {seen / max(time.perf_counter() - started, 1e-9):.1f} texts per second so far)."
            ))
    finally:
        optimizer.zero_grad(set_to_none=True)
        optimizer.state.clear()
        model.eval()
        free_memory(device)
    outcome.seconds = time.perf_counter() - started
    outcome.samples_per_second = seen / max(outcome.seconds, 1e-9)
    outcome.micro_batch_size = stepper.micro
    return outcome


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


__all__ = ["Outcome", "autocast_dtype", "free_memory", "is_out_of_memory", "linear_schedule", "train"]
