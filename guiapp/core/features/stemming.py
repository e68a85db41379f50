"""Snowball stemming ("taxes", "taxed", "taxing" → "tax") through PyStemmer, safe for processes.

PyStemmer's ``Stemmer.Stemmer`` objects cannot be pickled and are not thread-safe, so nothing
here keeps one on an estimator: each thread gets its own stemmer per language on first use,
and estimators only store the language's name.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import Stemmer

from guiapp.core.errors import UserError

#: Languages the GUI offers. "porter" (the original English Porter stemmer) and "dutch_porter"
#: are kept for reproducing older studies; "english" is Porter2, what quanteda uses.
STEM_LANGUAGES: list[str] = sorted(Stemmer.algorithms())

_LOCAL = threading.local()


def check_stem_language(language: object) -> None:
    """UserError unless ``language`` is None or one of :data:`STEM_LANGUAGES`."""
    if language is None:
        return
    if not isinstance(language, str) or language not in STEM_LANGUAGES:
        raise UserError(
            f"TextLab cannot stem words in “{language}”.",
            f"Choose one of: {', '.join(STEM_LANGUAGES)}; or switch stemming off.",
        )


def get_stemmer(language: str) -> Stemmer.Stemmer:
    """This thread's stemmer for ``language`` (created on first use)."""
    cache: dict[str, Stemmer.Stemmer] | None = getattr(_LOCAL, "stemmers", None)
    if cache is None:
        cache = _LOCAL.stemmers = {}
    stemmer = cache.get(language)
    if stemmer is None:
        check_stem_language(language)
        stemmer = cache[language] = Stemmer.Stemmer(language)
    return stemmer


def stem_map(words: Iterable[str], language: str) -> dict[str, str]:
    """Each distinct word mapped to its stem (one ``stemWords`` call: the fastest way)."""
    unique = list(dict.fromkeys(words))
    return dict(zip(unique, get_stemmer(language).stemWords(unique), strict=True))
