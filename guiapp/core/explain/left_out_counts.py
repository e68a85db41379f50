"""The features of a text without one word, from word counts instead of reading the text again.

Leaving words out asks a model about every text without each of its words: a text of ``n`` words
makes ``n`` texts of about ``n`` words, so reading them costs ``n²`` — most of the time for a bag of
words or word vectors, whose classifier is quick. Both representations count the tokens of a text
(:func:`~guiapp.core.features.tokens.tokenize`), and a token never reaches across white space, so a
text's counts are the sum of the counts of its white-space-separated chunks. A word is cut out of
one chunk (:func:`~guiapp.core.explain.words.text_without` changes nothing else), hence

    counts(text without the word) = counts(text) − counts(its chunk) + counts(the chunk without it)

exactly; the representation then weighs and averages these counts itself
(``transform_prepared``), so the features are those of the shortened text. This holds for word
terms of one word (no word pairs: a pair reaches across chunks) and for averaged word vectors.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from guiapp.core.explain.words import WordSpan
from guiapp.core.features.bow import BagOfWords
from guiapp.core.features.word_vectors import AveragedWordVectors
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel

_CHUNK = re.compile(r"\S+")  # what ``str.split()`` keeps: the white-space-separated runs


def counts_apply(model: TrainedModel) -> bool:
    """Whether the features of shortened texts can be had from counts (see the module docstring)."""
    if not isinstance(model, ConventionalModel):
        return False
    representation = model.representation
    if isinstance(representation, BagOfWords):
        return representation.analyzer == "word" and representation.ngram_max == 1
    return isinstance(representation, AveragedWordVectors)


def _without(chunk: str, start: int, end: int) -> str:
    """``chunk`` without ``chunk[start:end]``, as :func:`~guiapp.core.explain.words.text_without` cuts."""
    before, after = chunk[start - 1:start], chunk[end:end + 1]
    return chunk[:start] + (" " if before.isalnum() and after.isalnum() else "") + chunk[end:]


def probabilities_without_each_word(model: ConventionalModel, texts: Sequence[str],
                                    spans: Sequence[list[WordSpan]]) -> list[np.ndarray]:
    """For each text, the model's probabilities without each of its words: (words, categories)."""
    from guiapp.core.experiment.protocol.fitting import predict, predict_proba

    strings: dict[str, int] = {}

    def row(string: str) -> int:
        return strings.setdefault(string, len(strings))

    whole, taken, given = [], [], []
    for text, words in zip(texts, spans, strict=True):
        chunks = [(match.start(), match.end()) for match in _CHUNK.finditer(text)]
        starts = [start for start, _ in chunks]
        text_row = row(text)
        for word in words:
            a, b = chunks[int(np.searchsorted(starts, word.start, side="right")) - 1]
            chunk = text[a:b]
            whole.append(text_row)
            taken.append(row(chunk))
            given.append(row(_without(chunk, word.start - a, word.end - a)))
    if not whole:
        return [np.zeros((0, len(model.categories))) for _ in texts]
    representation = model.representation
    prepared = representation.prepare(list(strings))
    counts = prepared.counts
    variants = (counts[whole] - counts[taken] + counts[given]).tocsr()
    variants.eliminate_zeros()
    variants.sort_indices()
    features = representation.transform_prepared(dataclasses.replace(prepared, counts=variants))
    probabilities = predict_proba(model.classifier, features, len(model.categories))
    if probabilities is None:  # a classifier without probabilities: all weight on its decision
        decisions = predict(model.classifier, features)
        if decisions.ndim == 2:  # one yes/no per category: the decisions count as certain, as in answer()
            probabilities = decisions.astype(np.float64)
        else:
            probabilities = np.zeros((len(whole), len(model.categories)))
            probabilities[np.arange(len(whole)), decisions] = 1.0
    out, start = [], 0
    for words in spans:
        out.append(np.asarray(probabilities[start:start + len(words)], dtype=np.float64))
        start += len(words)
    return out
