"""Models that need no coded texts: a text is put in the category whose description it is most
alike (:class:`ZeroShotSimilarity`, a sentence model) or that an NLI model says it is about
(:class:`ZeroShotNLI`). Both answer ``predict_proba(texts, on_event)`` (texts × categories), save
to a folder (``zero_shot.json``) and open again with :func:`load_zero_shot`.

The names are imported on first use, so that asking whether a folder holds a zero-shot model does
not load torch or scipy (the window opens without them).
"""

from __future__ import annotations

from guiapp.core.models.lazy_names import names_on_first_use

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

__getattr__ = names_on_first_use(__name__, _WHERE)

__all__ = sorted(_WHERE)
