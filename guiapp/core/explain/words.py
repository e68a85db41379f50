"""The words of a text as the researcher wrote them, with where each one stands in the text.

Every explanation colours these spans, whatever the model saw underneath (subword pieces, stems,
n-grams, vectors): Transformer pieces are merged back into them, bag-of-words terms and word
vectors are traced back to them. The split is the one the bag of words uses
(:func:`guiapp.core.features.tokens.tokenize`), applied to the original text so that case,
accents and offsets are kept.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from guiapp.core.features.tokens import _NUMBER, NUMBER, PUNCT, SYMBOL, TAG, URL, WORD, _token_pattern

__all__ = ["WordSpan", "split_words", "NUMBER", "PUNCT", "SYMBOL", "TAG", "URL", "WORD"]


@dataclass(frozen=True)
class WordSpan:
    """One word (or number, punctuation mark, symbol, URL, @/# tag) at ``text[start:end]``."""

    start: int
    end: int
    text: str
    kind: int  # WORD, NUMBER, PUNCT, SYMBOL, URL or TAG (constants of features.tokens)

    @property
    def is_word(self) -> bool:
        return self.kind in (WORD, NUMBER, URL, TAG)


def split_words(text: str) -> list[WordSpan]:
    """The words of ``text`` in order, with character offsets into ``text`` itself.

    Whitespace is never part of a span. Punctuation and symbols are spans of their own, so
    that an explanation can colour them too (a Transformer does look at "!").
    """
    spans: list[WordSpan] = []
    for match in _token_pattern().finditer(text):
        url, tag, word, other = match.groups()
        if word:
            kind = NUMBER if _NUMBER.fullmatch(word) else WORD
        elif url:
            kind = URL
        elif tag:
            kind = TAG
        else:
            category = unicodedata.category(other)[0]
            kind = PUNCT if category == "P" else SYMBOL
        spans.append(WordSpan(match.start(), match.end(), match.group(0), kind))
    return spans


def text_without(text: str, spans: list[WordSpan], drop: set[int]) -> str:
    """``text`` with the spans whose index is in ``drop`` cut out (the rest stays as written)."""
    if not drop:
        return text
    out, cursor = [], 0
    for index in sorted(drop):
        span = spans[index]
        out.append(text[cursor:span.start])
        cursor = span.end
        before, after = text[span.start - 1:span.start], text[span.end:span.end + 1]
        if before.isalnum() and after.isalnum():
            out.append(" ")  # "yes!no" without "!" is "yes no", not one new word
    out.append(text[cursor:])
    return " ".join("".join(out).split())


def text_with_only(text: str, spans: list[WordSpan], keep: set[int]) -> str:
    """Only the spans whose index is in ``keep``, in their order, separated by spaces."""
    return " ".join(spans[index].text for index in sorted(keep))
