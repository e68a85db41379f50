"""Where the features of a bag of words or of averaged word vectors stand in the written text.

The representations see lowercased tokens, stems, n-grams, character pieces or vector rows;
explanations colour the words the researcher wrote (:func:`~guiapp.core.explain.words.split_words`).
This module repeats the representations' own analysis span by span, so that every term
occurrence knows the spans it came from:

- a word term (a stem, too) is one occurrence per word that yields it;
- an n-gram is one occurrence shared equally by its n words;
- a character piece is shared equally by the words it overlaps.

Exact decompositions (linear models, XGBoost's SHAP values) then hand each feature's share to
these spans; a term the trace cannot find (a corner of Unicode lowercasing) is reported apart
rather than guessed.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict

import numpy as np

from guiapp.core.explain.words import SYMBOL, WORD, WordSpan
from guiapp.core.features.bow import BagOfWords
from guiapp.core.features.stemming import stem_map
from guiapp.core.features.stop_words import stop_word_set
from guiapp.core.features.tokens import removed_kinds
from guiapp.core.features.word_vectors import AveragedWordVectors, vector_rows

Occurrence = dict[int, float]  # span index → its share of one occurrence (shares sum to 1)
_CHUNK = re.compile(r"\S+")


def _tokens(spans: list[WordSpan], lowercase: bool, drop: frozenset[int],
            stop: frozenset[str] | set[str] | None = None) -> list[tuple[int, str, int]]:
    """(span index, token as the tokenizer gives it, kind) for the spans a representation keeps."""
    kept = []
    for index, span in enumerate(spans):
        if span.kind == SYMBOL and unicodedata.category(span.text[0])[0] != "S":
            continue  # the tokenizer drops characters that are neither punctuation nor symbols
        token = span.text.lower() if lowercase else span.text
        if span.kind in drop or (span.kind == WORD and stop and token.lower() in stop):
            continue
        kept.append((index, token, span.kind))
    return kept


def bow_term_occurrences(representation: BagOfWords, text: str, spans: list[WordSpan]) -> dict[str, list[Occurrence]]:
    """Every term the bag of words counts in ``text``, with the spans of each of its occurrences."""
    drop = removed_kinds(remove_punctuation=representation.remove_punctuation,
                         remove_numbers=representation.remove_numbers,
                         remove_symbols=representation.remove_symbols)
    stop = stop_word_set(representation.stop_words)
    tokens = _tokens(spans, representation.lowercase, drop, stop)
    if representation.analyzer == "char":
        return _char_occurrences(representation, text, spans, tokens)
    if representation.stem_language:
        stems = stem_map((token for _, token, kind in tokens if kind == WORD), representation.stem_language)
        terms = [stems[token] if kind == WORD else token for _, token, kind in tokens]
    else:
        terms = [token for _, token, _ in tokens]
    occurrences: dict[str, list[Occurrence]] = defaultdict(list)
    for n in range(1, int(representation.ngram_max) + 1):
        for start in range(len(terms) - n + 1):
            term = " ".join(terms[start:start + n])
            occurrences[term].append({tokens[start + k][0]: 1.0 / n for k in range(n)})
    return dict(occurrences)


def _char_occurrences(representation: BagOfWords, text: str, spans: list[WordSpan],
                      tokens: list[tuple[int, str, int]]) -> dict[str, list[Occurrence]]:
    """Character pieces inside whitespace-separated chunks (``char_wb``), shared by the spans they overlap."""
    occurrences: dict[str, list[Occurrence]] = defaultdict(list)
    low, high = int(representation.char_ngram_min), int(representation.char_ngram_max)
    rep = representation
    if rep.remove_punctuation or rep.remove_numbers or rep.remove_symbols or rep.stop_words:
        # the analysis joins the kept tokens by spaces: each token is a chunk of its own
        for index, token, _ in tokens:
            for piece, _ in _pieces(token, low, high):
                occurrences[piece].append({index: 1.0})
        return dict(occurrences)
    for match in _CHUNK.finditer(text):
        chunk = match.group(0)
        shown = chunk.lower() if rep.lowercase else chunk
        inside = [i for i, span in enumerate(spans) if span.start >= match.start() and span.end <= match.end()]
        for piece, offset in _pieces(shown, low, high):
            first, last = max(offset - 1, 0), min(offset - 1 + len(piece), len(chunk))
            if len(shown) == len(chunk):  # offsets of the lowercased chunk are those of the text
                overlap = [i for i in inside
                           if spans[i].start - match.start() < last and spans[i].end - match.start() > first]
            else:
                overlap = []
            owners = overlap or inside  # a lone padding space belongs to the whole chunk
            if owners:
                occurrences[piece].append({i: 1.0 / len(owners) for i in owners})
    return dict(occurrences)


def _pieces(word: str, low: int, high: int) -> list[tuple[str, int]]:
    """scikit-learn's ``char_wb`` pieces of one word, with their offset in ``" word "``."""
    padded = f" {word} "
    length = len(padded)
    out = []
    for n in range(low, high + 1):
        offset = 0
        out.append((padded[:n], 0))
        while offset + n < length:
            offset += 1
            out.append((padded[offset:offset + n], offset))
        if offset == 0:  # a short word counts only once
            break
    return out


def spread_terms(term_values: dict[str, float], occurrences: dict[str, list[Occurrence]],
                 n_spans: int) -> tuple[np.ndarray, float]:
    """Each term's value split equally over its occurrences and, within one, over its spans.

    Returns (score per span, the total of terms that were not found in the text's spans).
    """
    scores = np.zeros(n_spans, dtype=np.float64)
    unplaced = 0.0
    for term, value in term_values.items():
        found = occurrences.get(term)
        if not found:
            unplaced += value
            continue
        share = value / len(found)
        for occurrence in found:
            for index, part in occurrence.items():
                scores[index] += share * part
    return scores, unplaced


def vector_span_rows(representation: AveragedWordVectors, spans: list[WordSpan]) -> list[tuple[int, list[int]]]:
    """Per kept span, the rows of the word vectors it adds to the average (none, one or two parts)."""
    vectors = representation._vectors()
    kept = set(np.asarray(representation.kept_vector_ids_).tolist())
    drop = removed_kinds(remove_punctuation=representation.remove_punctuation,
                         remove_numbers=representation.remove_numbers, remove_symbols=False)
    out = []
    for index, token, kind in _tokens(spans, representation.lowercase, drop):
        rows = [row for row in vector_rows(token, kind, vectors.index) if row in kept]
        if rows:
            out.append((index, rows))
    return out


def word_vector_table(representation: AveragedWordVectors) -> np.ndarray:
    """The word vectors the representation averages over (rows as in :func:`vector_span_rows`)."""
    return representation._vectors().matrix
