"""Batches for fine-tuning and prediction: length-grouped order and dynamic padding.

Padding every text to 512 tokens makes a Transformer spend most of its time on padding when the
texts are short (tweets are about 30 tokens). So texts are padded only to the longest text *in
their batch*, and batches are built from texts of similar length:

- training: shuffle, sort by length within mega-batches of 50 batches, cut into batches, then
  shuffle the order of the batches (as Hugging Face's ``group_by_length``); the batch holding the
  longest text goes first, so a lack of GPU memory shows at once, not after an hour;
- prediction: sort all texts by length, longest first; the caller restores the order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

MEGA_BATCHES = 50


@dataclass
class Batch:
    """Padded tensors of one batch (or micro-batch)."""

    input_ids: torch.Tensor  # (b, longest) int64
    attention_mask: torch.Tensor  # (b, longest) int64, 1 for real tokens
    labels: torch.Tensor | None = None  # (b,) int64 category indices, or (b, K) float32 0/1 (multi-label)

    def to(self, device: torch.device) -> Batch:
        if device.type == "cpu":
            return self
        fast = device.type == "cuda"  # pinned host memory: the copy overlaps with compute
        return Batch(
            self.input_ids.to(device, non_blocking=fast),
            self.attention_mask.to(device, non_blocking=fast),
            None if self.labels is None else self.labels.to(device, non_blocking=fast),
        )


def length_grouped_batches(
    lengths: np.ndarray, batch_size: int, generator: torch.Generator, mega_batches: int = MEGA_BATCHES
) -> list[np.ndarray]:
    """One epoch's batches of text indices: every text exactly once, similar lengths together."""
    n = len(lengths)
    if n == 0:
        return []
    order = torch.randperm(n, generator=generator).numpy()
    mega = max(batch_size * mega_batches, batch_size)
    batches: list[np.ndarray] = []
    for start in range(0, n, mega):
        chunk = order[start:start + mega]
        chunk = chunk[np.argsort(-lengths[chunk], kind="stable")]
        batches.extend(chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size))
    shuffled = torch.randperm(len(batches), generator=generator).tolist()
    batches = [batches[i] for i in shuffled]
    longest = max(range(len(batches)), key=lambda i: int(lengths[batches[i]].max()))
    batches[0], batches[longest] = batches[longest], batches[0]
    return batches


def pad_id(tokenizer: object) -> int:
    """The tokenizer's padding token id (0 when it has none)."""
    pad = getattr(tokenizer, "pad_token_id", None)
    return int(pad) if pad is not None else 0


def sorted_batches(lengths: np.ndarray, batch_size: int) -> list[np.ndarray]:
    """Prediction batches: texts sorted by length, longest first (indices into the input)."""
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]


def collate(
    input_ids: Sequence[Sequence[int]],
    indices: np.ndarray,
    pad_id: int,
    labels: np.ndarray | None = None,
    pin_memory: bool = False,
    multiple: int = 1,
    limit: int | None = None,
) -> Batch:
    """Pad the texts at ``indices`` to the longest of them (not to the model's maximum), or up to
    a ``multiple`` of tokens (GPUs prefer multiples of 8) but never beyond ``limit``. ``labels``
    are category indices, or a 0/1 matrix (text × category) when a text can have several."""
    rows = [input_ids[int(i)] for i in indices]
    longest = padded_length(max(len(row) for row in rows), multiple, limit)
    ids = np.full((len(rows), longest), pad_id, dtype=np.int64)
    mask = np.zeros((len(rows), longest), dtype=np.int64)
    for r, row in enumerate(rows):
        ids[r, :len(row)] = row
        mask[r, :len(row)] = 1
    batch = Batch(
        torch.from_numpy(ids),
        torch.from_numpy(mask),
        None if labels is None else _label_tensor(np.asarray(labels)[indices]),
    )
    if pin_memory:
        batch = Batch(
            batch.input_ids.pin_memory(),
            batch.attention_mask.pin_memory(),
            None if batch.labels is None else batch.labels.pin_memory(),
        )
    return batch


def _label_tensor(labels: np.ndarray) -> torch.Tensor:
    """Category indices as int64; a 0/1 matrix (several categories per text) as float32, the
    targets of a binary cross-entropy per category."""
    return torch.as_tensor(labels, dtype=torch.float32 if labels.ndim == 2 else torch.long)


def padded_length(longest: int, multiple: int = 1, limit: int | None = None) -> int:
    """``longest`` rounded up to a ``multiple``, but not past ``limit`` (nor below ``longest``)."""
    if multiple <= 1:
        return longest
    rounded = -(-longest // multiple) * multiple
    return max(longest, min(rounded, limit)) if limit is not None else rounded


def split(batch: Batch, micro_size: int, multiple: int = 1) -> list[Batch]:
    """Micro-batches of at most ``micro_size`` texts, each trimmed to its own longest text (rounded
    up to a ``multiple`` of tokens, within the batch's width)."""
    if micro_size >= batch.input_ids.shape[0]:
        return [batch]
    parts = []
    width = batch.input_ids.shape[1]
    for start in range(0, batch.input_ids.shape[0], micro_size):
        mask = batch.attention_mask[start:start + micro_size]
        longest = padded_length(int(mask.sum(dim=1).max()), multiple, width)
        parts.append(
            Batch(
                batch.input_ids[start:start + micro_size, :longest],
                mask[:, :longest],
                None if batch.labels is None else batch.labels[start:start + micro_size],
            )
        )
    return parts


__all__ = ["MEGA_BATCHES", "Batch", "collate", "length_grouped_batches", "padded_length", "sorted_batches", "split"]
