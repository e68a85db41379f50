"""Train only the rows of the word-embedding table that the texts use.

A Transformer's vocabulary is large (30,522 word pieces for BERT, 250,002 for XLM-RoBERTa), and a
study's texts use a fraction of it: 2,000 tweets use about a fifth of BERT's. The rows of words
the texts never use get a gradient of zero at every step, and AdamW never moves a weight whose
gradient has always been zero (its running averages stay zero, and so does its step) as long as
the weight decay is zero, which it is by default. Yet every step would still build, clip and
update the whole table: 11.7 million of the small MiniLM's 22.7 million weights.

:class:`UsedVocabulary` gives the model a table of the used rows only for the time of training
(token ids are renumbered to match) and writes the trained rows back afterwards. The trained
weights are those of training the whole table, to floating-point rounding (the gradient's norm for
clipping sums the same numbers in another order). With a weight decay above zero, or a table
shared with another layer, the whole table is trained as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

WORTH_IT = 0.8  # compact only when the texts use less than this share of the vocabulary


class UsedVocabulary:
    """Swap ``model``'s word embeddings for the rows the texts use; :meth:`restore` writes them back.

    ``active`` says whether the swap happened; :meth:`renumber` maps token ids to the compact table
    (and leaves them alone when it did not)."""

    def __init__(self, model: nn.Module, input_ids: Sequence[Sequence[int]], pad_id: int,
                 weight_decay: float, enabled: bool = True) -> None:
        self.model = model
        self.active = False
        self.original: nn.Embedding | None = None
        self.compact: nn.Embedding | None = None
        self.lookup: np.ndarray | None = None
        self.used: torch.Tensor | None = None
        embedding = _plain_embedding(model) if enabled and weight_decay == 0 else None
        if embedding is None or not len(input_ids):
            return
        extra = [pad_id] + ([embedding.padding_idx] if embedding.padding_idx is not None else [])
        used = np.unique(np.concatenate([np.asarray(ids, dtype=np.int64).ravel() for ids in input_ids]
                                        + [np.asarray(extra, dtype=np.int64)]))
        rows = embedding.num_embeddings
        if used.min() < 0 or used.max() >= rows or len(used) >= WORTH_IT * rows:
            return
        lookup = np.zeros(rows, dtype=np.int64)
        lookup[used] = np.arange(len(used))
        self.used = torch.as_tensor(used, device=embedding.weight.device)
        with torch.no_grad():
            weight = embedding.weight.detach().index_select(0, self.used).clone()
        padding = int(lookup[embedding.padding_idx]) if embedding.padding_idx is not None else None
        # from_pretrained draws no random numbers, so seeded runs stay as they were
        compact = nn.Embedding.from_pretrained(weight, freeze=False, padding_idx=padding)
        model.set_input_embeddings(compact)
        if model.get_input_embeddings() is not compact:  # a model that ignores the setter
            model.set_input_embeddings(embedding)
            return
        self.original, self.compact, self.lookup, self.active = embedding, compact, lookup, True

    @property
    def rows(self) -> int:
        """Rows trained: the used ones, or the whole table."""
        if self.compact is not None:
            return self.compact.num_embeddings
        embedding = self.model.get_input_embeddings()
        return int(getattr(embedding, "num_embeddings", 0))

    def renumber(self, input_ids: Sequence[Sequence[int]]) -> list[Any]:
        """Token ids as rows of the compact table (unchanged when the whole table is trained)."""
        if self.lookup is None:
            return list(input_ids)
        lookup = self.lookup
        return [lookup[np.asarray(ids, dtype=np.int64)] for ids in input_ids]

    def pad_id(self, pad_id: int) -> int:
        return int(self.lookup[pad_id]) if self.lookup is not None else pad_id

    def restore(self) -> None:
        """Write the trained rows into the full table and give the model its table back."""
        if not self.active or self.original is None or self.compact is None or self.used is None:
            return
        with torch.no_grad():
            self.original.weight.index_copy_(0, self.used, self.compact.weight.detach().to(self.original.weight.dtype))
        self.model.set_input_embeddings(self.original)
        self.active = False


def _plain_embedding(model: nn.Module) -> nn.Embedding | None:
    """The model's word embeddings, if a plain trainable table that no other layer shares."""
    try:
        embedding = model.get_input_embeddings()
    except (AttributeError, NotImplementedError):
        return None
    if type(embedding) is not nn.Embedding or not embedding.weight.requires_grad:
        return None
    if embedding.sparse or embedding.max_norm is not None:
        return None
    shared = [name for name, p in model.named_parameters(remove_duplicate=False) if p is embedding.weight]
    if len(shared) != 1:  # tied to an output layer
        return None
    output = getattr(model, "get_output_embeddings", lambda: None)()
    if output is not None and getattr(output, "weight", None) is embedding.weight:
        return None
    return embedding


__all__ = ["UsedVocabulary"]
