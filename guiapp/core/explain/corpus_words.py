"""The words a model relies on per category, summed up over many explained documents.

One explanation shows why one text got its category; over a whole test set the researcher wants
the words that carry each category. Words are grouped case-folded (and, optionally, by their
stem, so that "taxes" and "taxed" are one row); a row shows the form written most often. Per
document, a word's score is the sum over its occurrences; the row's mean is taken over the
documents that contain the word. Rows are ranked by the mean times log₂(1 + documents), and only
words found in a minimum number of documents are listed (:mod:`.corpus_table`). Punctuation and
symbols are left out unless the model reads them (:func:`reads_punctuation`). For linear
bag-of-words models :func:`linear_coefficients` gives the model's own weight per term, shown
beside the mean.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from guiapp.core.explain.attribution import Attribution
from guiapp.core.explain.corpus_table import (
    DEFAULT_MIN_DOCUMENTS,
    MAX_MIN_DOCUMENTS,
    CorpusWord,
    CorpusWords,
    weighted_score,
)
from guiapp.core.explain.category_parts import category_classifier, learnt
from guiapp.core.explain.few_shot_families import is_few_shot
from guiapp.core.explain.linear_contributions import is_linear, target_weights
from guiapp.core.explain.words import PUNCT, SYMBOL
from guiapp.core.features.bow import BagOfWords
from guiapp.core.features.stemming import get_stemmer
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel


def word_key(word: str, stem_language: str | None = None) -> str:
    """How words are grouped: case-folded, and stemmed when a language is given."""
    folded = word.casefold()
    return get_stemmer(stem_language).stemWord(folded) if stem_language else folded


def reads_punctuation(model: TrainedModel) -> bool:
    """Whether ``model`` reads punctuation and symbols, so that they belong among its words.

    A bag of words reads them when its vocabulary holds a term without a letter or digit ("!",
    "?", "! !"); word vectors when punctuation is not removed before the vectors are looked up;
    a Transformer, sentence embeddings, zero-shot and SetFit models read every character; a
    combined model when one of its parts does; other models are taken not to.
    """
    family = getattr(model, "family", "")
    if family == "transformer" or is_few_shot(model):  # a language model reads the text as written
        return True
    if family == "combined":
        return any(reads_punctuation(part) for part in getattr(model, "parts", []))
    representation = getattr(model, "representation", None)
    if isinstance(representation, BagOfWords):
        if representation.analyzer != "word":
            return not representation.remove_punctuation  # character pieces of the text as written
        return any(not any(ch.isalnum() for ch in term) for term in representation.feature_names())
    name = type(representation).__name__
    if name == "SentenceEmbeddings":
        return True
    if name == "AveragedWordVectors":
        return not getattr(representation, "remove_punctuation", True)
    return False


def _listed(span, punctuation: bool) -> bool:
    if span.is_word:
        return True
    return punctuation and span.kind in (PUNCT, SYMBOL)


def corpus_words(
    attributions: Sequence[Attribution],
    categories: Sequence[str],
    model_name: str,
    method: str,
    top: int | None = 20,
    coefficients: dict[str, dict[str, float]] | None = None,
    *,
    stem_language: str | None = None,
    min_documents: int = DEFAULT_MIN_DOCUMENTS,
    punctuation: bool = False,
    n_documents: int | None = None,
) -> CorpusWords:
    """Per category, the ``top`` best-ranked words (mean attribution toward it × log₂(1 + documents))
    among those found in at least ``min_documents`` documents (the minimum shown first) — kept for
    every minimum from 1 to ``MAX_MIN_DOCUMENTS`` so the researcher can change it (:class:`CorpusWords`).

    ``coefficients`` (category → term → weight, from :func:`linear_coefficients`) fills each
    row's ``coefficient`` where the word's key is one of the model's terms. ``punctuation``: list
    punctuation and symbols too (:func:`reads_punctuation` of the model). ``n_documents``: how many
    documents were explained (default: one per attribution; a document with several categories may
    be explained toward each).
    """
    # category → key → per-document scores, occurrences, written forms
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    occurrences: dict[str, Counter[str]] = defaultdict(Counter)
    forms: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for attribution in attributions:
        category = attribution.target_name
        in_document: dict[str, float] = defaultdict(float)
        for span, score in zip(attribution.words, attribution.scores, strict=True):
            if not _listed(span, punctuation):
                continue
            key = word_key(span.text, stem_language)
            in_document[key] += score
            occurrences[category][key] += 1
            forms[category][key][span.text] += 1
        for key, total in in_document.items():
            scores[category][key].append(total)
    rows: list[CorpusWord] = []
    for category in categories:
        found = [(key, float(np.mean(values)), len(values)) for key, values in scores[category].items()]
        weights = (coefficients or {}).get(category, {})
        for key, mean, documents in _kept(found, top):  # for every minimum, so the researcher may lower it
            shown = forms[category][key].most_common(1)[0][0]
            rows.append(CorpusWord(category, shown, mean, occurrences[category][key], documents, weights.get(key)))
    return CorpusWords(model=model_name, method=method,
                       n_documents=len(attributions) if n_documents is None else int(n_documents),
                       categories=list(categories), rows=rows, min_documents=max(int(min_documents), 1), top=top,
                       punctuation=punctuation)


def _kept(found: list[tuple[str, float, int]], top: int | None) -> list[tuple[str, float, int]]:
    """The best-ranked ``top`` words for every minimum of documents from 1 to ``MAX_MIN_DOCUMENTS``
    (their union, best-ranked first); all of them with ``top`` None."""
    order = sorted(found, key=lambda item: (-weighted_score(item[1], item[2]), item[0]))
    if top is None:
        return order
    documents = np.array([item[2] for item in order], dtype=np.int64)
    keep = np.zeros(len(order), dtype=bool)
    for minimum in range(1, MAX_MIN_DOCUMENTS + 1):
        keep[np.flatnonzero(documents >= minimum)[:top]] = True
    return [item for item, kept in zip(order, keep, strict=True) if kept]


def linear_coefficients(model: ConventionalModel, top: int | None = None) -> dict[str, dict[str, float]]:
    """Per category, the model's weight of each bag-of-words term toward it, largest first.

    The weights are those :mod:`~guiapp.core.explain.linear_contributions` multiplies with the
    features, so a row's coefficient and its words' contributions tell the same story. Empty for
    models that are not linear on a bag of words.
    """
    if not isinstance(model.representation, BagOfWords) or not is_linear(model):
        return {}
    terms = model.representation.feature_names()
    out: dict[str, dict[str, float]] = {}
    for target, category in enumerate(model.categories):
        if not learnt(model.classifier, target):  # a category the model never saw (or always) has no weights
            continue
        estimator, position = category_classifier(model.classifier, target)  # its own classifier, if one per category
        weights = target_weights(estimator, position)[0]
        order = np.argsort(-weights, kind="stable")[:top]
        out[category] = {terms[j]: float(weights[j]) for j in order}
    return out
