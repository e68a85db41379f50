"""Turning texts into a Transformer's token ids, cutting texts that are too long.

A Transformer reads at most ``max_length`` tokens of a text, its special tokens included
([CLS] … [SEP] for BERT, <s> … </s> for RoBERTa). Longer texts are cut by one of three
strategies, counted in content tokens (the budget is ``max_length`` minus the special tokens):

- ``"head"``: keep the first tokens.
- ``"head_tail"`` (Sun et al. 2019, the reference paper's choice for 512 tokens): keep the first
  128 and the last ``budget - 128`` tokens — for BERT at 512, the first 128 and the last 382.
  With a budget below 510 the head shrinks in proportion (128/510 of the budget).
- ``"middle"``: remove tokens from the middle: keep the first half and the last half of the
  budget (the paper's way for Longformer at 1,024 tokens).

All texts are tokenized in one batched call of the fast tokenizer; nothing is padded here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

STRATEGIES = ("head", "head_tail", "middle")
HEAD_TOKENS = 128  # Sun et al. 2019: the first 128 tokens …
REFERENCE_BUDGET = 510  # … of 510 content tokens (512 minus [CLS] and [SEP])
_SENSIBLE_LIMIT = 1_000_000  # tokenizers without a known limit report about 1e30
_TOO_LONG_WARNING = "sequence-length-is-longer-than-the-specified-maximum"


@dataclass(frozen=True)
class Encoded:
    """Token ids per text with the tokenizer's special tokens, unpadded."""

    input_ids: list[list[int]]
    n_truncated: int  # how many texts were cut
    lengths: np.ndarray  # tokens per text after cutting, special tokens included
    max_length: int = 512  # the limit that was applied (after capping by the model's own)
    kept: str = ""  # in words, e.g. "first 128 + last 382 tokens kept"


def split_budget(budget: int, strategy: str, head: int = HEAD_TOKENS) -> tuple[int, int]:
    """How many content tokens to keep from the start and from the end of a long text."""
    budget = max(0, budget)
    if strategy == "head":
        return budget, 0
    if strategy == "head_tail":
        first = min(head, budget * head // REFERENCE_BUDGET)
        return first, budget - first
    if strategy == "middle":
        first = budget - budget // 2
        return first, budget // 2
    raise ValueError(f"unknown truncation strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")


def describe(strategy: str, max_length: int, n_special: int = 2) -> str:
    """What a strategy keeps, in words: "first 128 + last 382 tokens kept"."""
    first, last = split_budget(max_length - n_special, strategy)
    if last == 0:
        return f"first {first} tokens kept"
    return f"first {first} + last {last} tokens kept"


def model_limit(tokenizer: Any) -> int | None:
    """The longest input the tokenizer's model accepts, or None when it does not say."""
    limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(limit, int) and 0 < limit < _SENSIBLE_LIMIT:
        return limit
    return None


_TWO_POSITIONS_RESERVED = ("roberta", "xlm-roberta", "camembert", "longformer", "mpnet")


def position_limit(max_length: int, config: Any) -> int:
    """``max_length`` capped by the model's positions (RoBERTa-like models reserve two)."""
    positions = getattr(config, "max_position_embeddings", None)
    if not isinstance(positions, int) or positions <= 0:
        return max_length
    if getattr(config, "model_type", "") in _TWO_POSITIONS_RESERVED:
        positions -= 2
    return min(max_length, positions)


def token_limit(tokenizer: Any, config: Any, max_length: int) -> int:
    """The most tokens that are read: ``max_length``, or less where the model or its tokenizer reads less."""
    limit = position_limit(max_length, config)
    return min(limit, model_limit(tokenizer) or limit)


def special_tokens(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The special token ids the tokenizer puts before and after a single text."""
    build = getattr(tokenizer, "build_inputs_with_special_tokens", None)
    probe_text = "hello world"
    content = tokenizer(probe_text, add_special_tokens=False)["input_ids"]
    if callable(build):  # transformers 4.x
        full = list(build(list(content)))
    else:  # transformers 5.x: the post-processor adds them
        full = list(tokenizer(probe_text, add_special_tokens=True)["input_ids"])
    for start in range(len(full) - len(content) + 1):
        if full[start:start + len(content)] == list(content):
            return full[:start], full[start + len(content):]
    raise ValueError("cannot tell the tokenizer's special tokens apart from the text")


def encode_texts(
    tokenizer: Any,
    texts: Sequence[str],
    max_length: int = 512,
    strategy: str = "head_tail",
) -> Encoded:
    """Token ids of ``texts`` with special tokens, each cut to at most ``max_length`` tokens."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown truncation strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    limit = model_limit(tokenizer)
    if limit is not None:
        max_length = min(max_length, limit)
    prefix, suffix = special_tokens(tokenizer)
    n_special = len(prefix) + len(suffix)
    if max_length <= n_special:
        raise ValueError(f"max_length {max_length} leaves no room for text after {n_special} special tokens")
    first, last = split_budget(max_length - n_special, strategy)
    warnings = getattr(tokenizer, "deprecation_warnings", None)
    if isinstance(warnings, dict):  # we cut long texts ourselves: no "longer than …" warning
        warnings[_TOO_LONG_WARNING] = True
    batch = [text if isinstance(text, str) else "" for text in texts]
    content = (
        tokenizer(batch, add_special_tokens=False, truncation=False, padding=False)["input_ids"]
        if batch else []
    )
    budget = first + last
    input_ids: list[list[int]] = []
    n_truncated = 0
    for ids in content:
        if len(ids) > budget:
            n_truncated += 1
            ids = ids[:first] + (ids[len(ids) - last:] if last else [])
        input_ids.append(prefix + list(ids) + suffix)
    lengths = np.fromiter((len(ids) for ids in input_ids), dtype=np.int64, count=len(input_ids))
    return Encoded(input_ids, n_truncated, lengths, max_length, describe(strategy, max_length, n_special))


__all__ = ["STRATEGIES", "Encoded", "describe", "encode_texts", "model_limit", "special_tokens", "split_budget"]
