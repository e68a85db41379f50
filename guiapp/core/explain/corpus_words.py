"""The words a model relies on per category, summed up over many explained documents.

One explanation shows why one text got its category; over a whole test set the researcher wants
the words that carry each category. Words are grouped case-folded (and, optionally, by their
stem, so that "taxes" and "taxed" are one row); a row shows the form written most often. Per
document, a word's score is the sum over its occurrences; the row's mean is taken over the
documents that contain the word. For linear bag-of-words models :func:`linear_coefficients`
gives the model's own weight per term, shown beside the mean.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from guiapp.core.explain.attribution import Attribution
from guiapp.core.explain.corpus_table import CorpusWord, CorpusWords
from guiapp.core.explain.linear_contributions import class_position, is_linear, target_weights
from guiapp.core.features.bow import BagOfWords
from guiapp.core.features.stemming import get_stemmer
from guiapp.core.predict.trained_model import ConventionalModel


def word_key(word: str, stem_language: str | None = None) -> str:
    """How words are grouped: case-folded, and stemmed when a language is given."""
    folded = word.casefold()
    return get_stemmer(stem_language).stemWord(folded) if stem_language else folded


def corpus_words(
    attributions: Sequence[Attribution],
    categories: Sequence[str],
    model_name: str,
    method: str,
    top: int = 20,
    coefficients: dict[str, dict[str, float]] | None = None,
    *,
    stem_language: str | None = None,
    min_documents: int = 1,
) -> CorpusWords:
    """Per category, the ``top`` words with the largest mean attribution toward it.

    ``coefficients`` (category → term → weight, from :func:`linear_coefficients`) fills each
    row's ``coefficient`` where the word's key is one of the model's terms.
    """
    # category → key → per-document scores, occurrences, written forms
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    occurrences: dict[str, Counter[str]] = defaultdict(Counter)
    forms: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for attribution in attributions:
        category = attribution.target_name
        in_document: dict[str, float] = defaultdict(float)
        for span, score in zip(attribution.words, attribution.scores, strict=True):
            if not span.is_word:
                continue
            key = word_key(span.text, stem_language)
            in_document[key] += score
            occurrences[category][key] += 1
            forms[category][key][span.text] += 1
        for key, total in in_document.items():
            scores[category][key].append(total)
    rows: list[CorpusWord] = []
    for category in categories:
        ranked = sorted(((float(np.mean(values)), key, len(values)) for key, values in scores[category].items()
                         if len(values) >= min_documents), key=lambda item: (-item[0], item[1]))
        weights = (coefficients or {}).get(category, {})
        for mean, key, documents in ranked[:top]:
            shown = forms[category][key].most_common(1)[0][0]
            rows.append(CorpusWord(category, shown, mean, occurrences[category][key], documents, weights.get(key)))
    return CorpusWords(model=model_name, method=method, n_documents=len(attributions),
                       categories=list(categories), rows=rows)


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
    seen = np.asarray(model.classifier.textlab_classes_).tolist()
    for target, category in enumerate(model.categories):
        if target not in seen:  # a category the model never saw has no weights
            continue
        position = class_position(model.classifier, target)
        weights = target_weights(model.classifier, position)[0]
        order = np.argsort(-weights, kind="stable")[:top]
        out[category] = {terms[j]: float(weights[j]) for j in order}
    return out
