"""Split texts into tokens the way quanteda's ``tokens()`` does, and build count matrices.

A token is one of:

- ``URL``: ``http://…``, ``https://…`` or ``www.…`` as one token (trailing punctuation excluded);
- ``TAG``: a Twitter-like ``@user`` or ``#hashtag``;
- ``WORD``: letters/digits (with combining marks) joined by inner apostrophes or hyphens, so
  "don't", "e-mail" and "3rd" are single words;
- ``NUMBER``: digits with optional inner ``.``/``,`` separators ("1,000.50");
- ``PUNCT``: one punctuation character (Unicode category P*);
- ``SYMBOL``: one symbol character (Unicode category S*: emoji, currency, math signs).

Other characters (spaces, control and formatting characters, stray combining marks) are dropped.
The module also forms word n-grams and character n-grams, and turns lists of per-document
terms into a CSR count matrix over a sorted vocabulary (what a bag of words builds on).
"""

from __future__ import annotations

import functools
import math
import re
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

WORD, NUMBER, PUNCT, SYMBOL, URL, TAG = range(6)
KIND_NAMES = ("word", "number", "punctuation", "symbol", "url", "tag")

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WHITE_SPACES = re.compile(r"\s\s+")


def _ranges_class(codepoints: Iterable[int]) -> str:
    """A regex character-class body for the given code points, compressed into ranges."""
    parts: list[str] = []
    start = prev = -2
    for cp in codepoints:
        if cp == prev + 1:
            prev = cp
            continue
        if start >= 0:
            parts.append(_range(start, prev))
        start = prev = cp
    if start >= 0:
        parts.append(_range(start, prev))
    return "".join(parts)


def _range(start: int, end: int) -> str:
    if start == end:
        return re.escape(chr(start))
    return f"{re.escape(chr(start))}-{re.escape(chr(end))}"


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    """The tokeniser regex (built once: it needs the Unicode table of combining marks)."""
    marks = _ranges_class(
        cp for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp))[0] == "M"
    )
    alnum = r"[^\W_]"
    part = rf"{alnum}(?:{alnum}|[{marks}])*"  # a letter/digit, then letters/digits/marks
    joiner = r"(?:['’\-]|(?<=\d)[.,](?=\d))"
    url = r"(?i:https?://|www\.)[^\s<>\"]*[^\s<>\"'.,;:!?)\]}]"
    tag = rf"(?<![\w@#])[@#][\w{marks}]+"
    word = rf"{part}(?:{joiner}{part})*"
    return re.compile(rf"({url})|({tag})|({word})|(\S)")


def tokenize(text: str, *, lowercase: bool = True) -> list[tuple[str, int]]:
    """All tokens of ``text`` with their kind (``WORD``, ``NUMBER``, … constants of this module)."""
    if lowercase:
        text = text.lower()
    out: list[tuple[str, int]] = []
    append = out.append
    for url, tag, word, other in _token_pattern().findall(text):
        if word:
            append((word, NUMBER if _NUMBER.fullmatch(word) else WORD))
        elif other:
            category = unicodedata.category(other)[0]
            if category == "P":
                append((other, PUNCT))
            elif category == "S":
                append((other, SYMBOL))
        elif url:
            append((url, URL))
        else:
            append((tag, TAG))
    return out


def removed_kinds(
    *, remove_punctuation: bool, remove_numbers: bool, remove_symbols: bool
) -> frozenset[int]:
    """The token kinds that the three "remove …" options drop."""
    kinds = set()
    if remove_punctuation:
        kinds.add(PUNCT)
    if remove_numbers:
        kinds.add(NUMBER)
    if remove_symbols:
        kinds.add(SYMBOL)
    return frozenset(kinds)


def as_text_list(texts: object) -> list[str]:
    """Any sequence of texts (list, numpy array, pandas Series) as a list of str.

    Missing values (None, NaN) become empty texts; other non-text values are converted with
    ``str`` (a number in a text column is still text to a coder).
    """
    if isinstance(texts, str):
        raise TypeError("expected a sequence of texts, got a single str")
    values = texts.tolist() if hasattr(texts, "tolist") else list(texts)  # type: ignore[union-attr]
    out: list[str] = []
    for value in values:
        if isinstance(value, str):
            out.append(value)
        elif value is None or _is_missing(value):
            out.append("")
        else:
            out.append(str(value))
    return out


def _is_missing(value: object) -> bool:
    """NaN, pandas' NA and NaT: the empty cells of a table."""
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ in {"NAType", "NaTType"}


def word_ngrams(tokens: list[str], ngram_max: int) -> list[str]:
    """Unigrams up to ``ngram_max``-grams joined by a space (like ``CountVectorizer``)."""
    if ngram_max == 1:
        return tokens
    grams = list(tokens)
    for n in range(2, ngram_max + 1):
        grams.extend(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return grams


def char_wb_ngrams(text: str, low: int, high: int) -> list[str]:
    """Character n-grams inside word boundaries, exactly as scikit-learn's ``char_wb``."""
    grams: list[str] = []
    append = grams.append
    for word in _WHITE_SPACES.sub(" ", text).split():
        word = f" {word} "
        length = len(word)
        for n in range(low, high + 1):
            offset = 0
            append(word[offset : offset + n])
            while offset + n < length:
                offset += 1
                append(word[offset : offset + n])
            if offset == 0:  # a short word counts only once
                break
    return grams


def count_matrix(docs: Sequence[Sequence[str]]) -> tuple[sp.csr_matrix, list[str]]:
    """Count terms per document: a CSR matrix (int32) whose columns are the sorted vocabulary.

    Column order is Python's string order, the same as scikit-learn's ``CountVectorizer``.
    Indices are sorted within each row and duplicates are summed (canonical CSR).
    """
    import scipy.sparse as sp

    vocabulary: dict[str, int] = {}
    indices: list[int] = []
    indptr = [0]
    setdefault = vocabulary.setdefault
    for terms in docs:
        indices.extend(setdefault(term, len(vocabulary)) for term in terms)
        indptr.append(len(indices))
    terms_in_order = list(vocabulary)
    order = sorted(range(len(terms_in_order)), key=terms_in_order.__getitem__)
    rank = np.empty(len(order), dtype=np.int32)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order), dtype=np.int32)
    index_array = rank[np.asarray(indices, dtype=np.int64)] if indices else np.zeros(0, np.int32)
    counts = sp.csr_matrix(
        (np.ones(len(index_array), dtype=np.int32), index_array, np.asarray(indptr, dtype=np.int64)),
        shape=(len(docs), len(order)),
    )
    counts.sum_duplicates()  # also sorts the indices of every row
    return counts, [terms_in_order[i] for i in order]


def select_columns(matrix: sp.csr_matrix, columns: np.ndarray, n_columns: int) -> sp.csr_matrix:
    """Keep the given columns of ``matrix`` in order; ``-1`` entries become empty columns.

    ``columns`` must be increasing apart from the ``-1`` entries (true when both vocabularies
    are sorted), so the result keeps sorted indices without a sort.
    """
    import scipy.sparse as sp

    remap = np.full(matrix.shape[1], -1, dtype=np.int64)
    present = columns >= 0
    remap[columns[present]] = np.flatnonzero(present)
    new_index = remap[matrix.indices]
    keep = new_index >= 0
    cumulative = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
    result = sp.csr_matrix(
        (
            matrix.data[keep].astype(np.float64),
            new_index[keep].astype(np.int32),
            cumulative[matrix.indptr],
        ),
        shape=(matrix.shape[0], n_columns),
    )
    result.has_sorted_indices = True
    return result
