"""Models that need no coded texts: a text is put in the category whose description it is most
alike (:class:`ZeroShotSimilarity`, a sentence model) or that an NLI model says it is about
(:class:`ZeroShotNLI`). Both answer ``predict_proba(texts, on_event)`` (texts × categories), save
to a folder (``zero_shot.json``) and open again with :func:`load_zero_shot`.

The names are imported on first use, so that asking whether a folder holds a zero-shot model does
not load torch or scipy (the window opens without them).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {
    "DEFAULT_TEMPLATE": "descriptions",
    "is_zero_shot_folder": "loading",
    "load_zero_shot": "loading",
    "ZeroShotNLI": "nli",
    "nli_label_ids": "nli_labels",
    "nli_pairs": "nli_labels",
    "nli_probabilities": "nli_labels",
    "ZERO_SHOT_FILE": "record_file",
    "DEFAULT_TEMPERATURE": "similarity",
    "ZeroShotSimilarity": "similarity",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)


__all__ = sorted(_WHERE)
