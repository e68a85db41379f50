"""Exact linear contributions: they add up to the model's own margin, and land on the right words."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from guiapp.core.explain.attribution import LINEAR_EXACT
from guiapp.core.explain.linear_contributions import explain_linear, model_margin
from guiapp.core.explain.term_spans import bow_term_occurrences
from guiapp.core.explain.words import split_words
from tests.core.explain.conventional_samples import (
    CATEGORIES,
    KEYWORD,
    planted_corpus,
    topic_corpus,
    train,
)

REPRESENTATIONS = {
    "tfidf_bigrams": ("bow", {"min_df": 0.01, "max_df": 0.9, "weighting": "tfidf", "ngram_max": 2}),
    "binary_stop_words": ("bow", {"min_df": 0.02, "max_df": 0.5, "stop_words": "english"}),
    "counts_no_stems": ("bow", {"min_df": 0.01, "max_df": 0.9, "weighting": "counts", "stem_language": None}),
    "char_pieces": ("bow", {"min_df": 0.01, "max_df": 0.9, "analyzer": "char", "weighting": "tfidf",
                            "char_ngram_min": 1, "char_ngram_max": 4}),
    "word_vectors": ("word_vectors", {"min_count": 2}),
}
NEW_TEXTS = [
    "The army's fuel can't wait; doctors' care won't.",
    "Taxes, taxed and TAXING: the schools tax bill!!",
    "#war and #oil don't matter, it's the #health bill",
    "",
    "zzzq qqq",
    "Solar power for the hospital, solar power for the army.",
]
CASES = [(rep, clf, n) for rep in REPRESENTATIONS for clf in ("logistic_regression", "svm", "naive_bayes")
         for n in (2, 3) if not (clf == "naive_bayes" and rep == "word_vectors")]


@pytest.fixture(scope="module")
def corpus():
    return topic_corpus(120, seed=1)


@pytest.mark.parametrize(("rep", "classifier", "n_categories"), CASES,
                         ids=[f"{rep}-{clf}-{n}" for rep, clf, n in CASES])
def test_scores_and_base_value_add_up_to_the_models_margin(corpus, rep, classifier, n_categories):
    texts, labels = corpus
    categories = CATEGORIES if n_categories == 3 else ["other", "health"]
    labels = labels if n_categories == 3 else (labels == 2).astype(int)
    kind, options = REPRESENTATIONS[rep]
    model = train(kind, options, classifier, texts, labels, categories)
    for text in NEW_TEXTS + texts[:3]:
        for target in range(n_categories):
            attribution = explain_linear(model, text, target)
            total = sum(attribution.scores) + attribution.base_value
            assert total == pytest.approx(model_margin(model, text, target), abs=1e-9)
            assert "unplaced_score" not in attribution.details
            assert attribution.scale == "margin" and attribution.method == LINEAR_EXACT
            assert len(attribution.scores) == len(split_words(text))
            assert attribution.probability == pytest.approx(model.answer([text])[1][0, target])
            assert categories[target] in attribution.method_sentence


@pytest.mark.parametrize("rep", [r for r in REPRESENTATIONS if r != "word_vectors"])
def test_traced_terms_are_the_terms_the_bag_of_words_counts(corpus, rep):
    kind, options = REPRESENTATIONS[rep]
    model = train(kind, options, "logistic_regression", corpus[0], corpus[1], CATEGORIES)
    analyze = model.representation.build_analyzer()
    for text in NEW_TEXTS:
        occurrences = bow_term_occurrences(model.representation, text, split_words(text))
        assert Counter({term: len(found) for term, found in occurrences.items()}) == Counter(analyze(text))
        for found in occurrences.values():
            assert all(sum(occurrence.values()) == pytest.approx(1.0) for occurrence in found)


def test_a_stem_reaches_every_word_with_it_and_a_pair_shares_equally(corpus):
    extra = ["tax taxes taxed", "taxes schools", "school tax"]
    model = train("bow", {"min_df": 0.0, "max_df": 1.0, "ngram_max": 2}, "logistic_regression",
                  corpus[0] + extra, np.r_[corpus[1], [0, 0, 0]], CATEGORIES)
    text = "Taxes taxed schools"
    occurrences = bow_term_occurrences(model.representation, text, split_words(text))
    assert occurrences["tax"] == [{0: 1.0}, {1: 1.0}]
    assert occurrences["tax tax"] == [{0: 0.5, 1: 0.5}]
    terms = model.representation.feature_names()
    x = dict(zip(terms, model.representation.transform([text]).toarray()[0], strict=True))
    part = {term: model.classifier.coef_[0][i] * x[term] for i, term in enumerate(terms)}
    scores = explain_linear(model, text, 0).scores
    assert scores[0] == pytest.approx(part["tax"] / 2 + part["tax tax"] / 2)
    assert scores[1] == pytest.approx(part["tax"] / 2 + part["tax tax"] / 2 + part["tax school"] / 2)
    assert scores[2] == pytest.approx(part["school"] + part["tax school"] / 2)


def test_word_vector_shares_follow_the_average():
    texts, labels = planted_corpus(80)
    model = train("word_vectors", {"min_count": 2}, "logistic_regression", texts, labels, ["no", KEYWORD])
    text = "The zebra and the state."
    attribution = explain_linear(model, text, 1)
    spans = split_words(text)
    by_word = dict(zip((s.text for s in spans), attribution.scores, strict=True))
    assert by_word["."] == 0.0  # punctuation is left out of the average
    assert attribution.scores[0] == pytest.approx(attribution.scores[3])  # "The" and "the": one vector, 1/n each


@pytest.mark.parametrize("classifier", ["logistic_regression", "svm", "naive_bayes"])
def test_the_planted_keyword_gets_the_largest_share(classifier):
    texts, labels = planted_corpus(80)
    model = train("bow", {"min_df": 0.0, "max_df": 0.9, "weighting": "tfidf"}, classifier, texts, labels,
                  ["no", KEYWORD])
    text = "The federal zebra program for schools and hospital care."
    attribution = explain_linear(model, text, 1)
    assert attribution.words[attribution.top_words(1)[0]].text == KEYWORD
