"""Do the new texts look like the coded texts a model learnt from? Warnings in plain words.

Two things make a model's predictions for new texts less trustworthy and can be seen before
predicting: texts much longer than the coded ones (a Transformer reads at most its limit, 512
tokens by default, and cuts the rest), and texts in another language. The language is guessed
from the share of each language's stop words ("the", "und", "les" …); lengths are compared on
words and, for Transformers, on the share of texts the model will cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guiapp.core.features.stop_words import stop_word_set

LANGUAGES = ("english", "german", "french", "spanish", "italian", "dutch")
SAMPLE = 2_000  # texts looked at per side; enough for shares, fast on a million rows
_WORD = re.compile(r"\w+", re.UNICODE)
_MIN_STOP_SHARE = 0.08  # below this share of stop words no language is named (lists, tags, codes)


@dataclass(frozen=True)
class TextProfile:
    """What a set of texts looks like, measured on a seeded sample."""

    n_texts: int
    median_words: float
    p90_words: float
    language: str | None  # one of LANGUAGES, or None when no language stands out
    share_over_limit: float | None = None  # of texts longer than the model reads (Transformers)
    limit: int | None = None


def profile_texts(texts: Sequence[str], *, tokenizer: Any = None, limit: int | None = None,
                  seed: int = 0) -> TextProfile:
    """Measure ``texts`` (a sample of at most ``SAMPLE``); with a tokenizer, also the share over ``limit``."""
    sample = _sample([str(t) for t in texts if t is not None and str(t).strip()], seed)
    words = [_WORD.findall(text.lower()) for text in sample]
    lengths = np.array([len(w) for w in words], dtype=float) if words else np.zeros(0)
    share = None
    if tokenizer is not None and limit and sample:
        encoded = tokenizer(sample, add_special_tokens=True, truncation=False)["input_ids"]
        share = float(np.mean([len(ids) > limit for ids in encoded]))
    return TextProfile(
        n_texts=len(texts),
        median_words=float(np.median(lengths)) if lengths.size else 0.0,
        p90_words=float(np.percentile(lengths, 90)) if lengths.size else 0.0,
        language=guess_language(words),
        share_over_limit=share,
        limit=limit if share is not None else None,
    )


def guess_language(tokenised: Sequence[Sequence[str]]) -> str | None:
    """The language whose stop words make up the largest share of the words, if clear enough."""
    flat = [word for words in tokenised for word in words]
    if not flat:
        return None
    stops = {language: stop_word_set(language) for language in LANGUAGES}
    counts = {language: sum(word in words for word in flat) for language, words in stops.items()}
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] / len(flat) >= _MIN_STOP_SHARE else None


def compare_profiles(coded: TextProfile, new: TextProfile) -> list[str]:
    """Warnings about the new texts, each one sentence of what and one of why (empty when all is well)."""
    warnings = []
    if coded.language and new.language and coded.language != new.language:
        warnings.append(
            f"The new texts look like {new.language.title()}, the coded texts like {coded.language.title()}. "
            "A model predicts poorly on texts in a language it did not learn from — check that this is the right file."
        )
    if new.share_over_limit is not None and new.limit:
        before = coded.share_over_limit or 0.0
        if new.share_over_limit >= 0.10 and new.share_over_limit >= 2 * before:
            warnings.append(
                f"{new.share_over_limit:.0%} of the new texts are longer than the {new.limit} tokens the model reads "
                f"(of the coded texts: {before:.0%}). The model sees only part of those texts, so its "
                "predictions for them may be less reliable."
            )
            return warnings
    if coded.median_words > 0 and new.median_words >= 3 * coded.median_words and new.median_words - coded.median_words >= 20:
        warnings.append(
            f"The new texts are much longer than the coded texts (typically {new.median_words:,.0f} words "
            f"against {coded.median_words:,.0f}). A model may judge long texts differently from the short ones "
            "it learnt from; check a few predictions by hand."
        )
    return warnings


def _sample(texts: list[str], seed: int) -> list[str]:
    if len(texts) <= SAMPLE:
        return texts
    picked = np.random.default_rng(seed).choice(len(texts), SAMPLE, replace=False)
    return [texts[i] for i in np.sort(picked)]
