"""Words per category over many explanations, and a linear model's own weights beside them."""

from __future__ import annotations

import pytest

from guiapp.core.explain.attribution import LINEAR_EXACT, Attribution
from guiapp.core.explain.corpus_words import corpus_words, linear_coefficients
from guiapp.core.explain.linear_contributions import explain_linear
from guiapp.core.explain.words import split_words
from tests.core.explain.conventional_samples import KEYWORD, planted_corpus, train


def explained(text: str, scores: dict[str, float], target_name: str) -> Attribution:
    words = split_words(text)
    return Attribution(model="m", method=LINEAR_EXACT, method_sentence="", target=0, target_name=target_name,
                       words=words, scores=[scores.get(w.text.lower(), 0.0) for w in words], probability=0.8,
                       scale="margin")


def test_mean_per_document_occurrences_and_the_form_written_most():
    attributions = [
        explained("Tax cuts, tax cuts!", {"tax": 0.5, "cuts": 0.25}, "against"),
        explained("tax the rich", {"tax": 1.0, "rich": -0.5}, "against"),
        explained("Taxes help schools", {"taxes": 0.3, "schools": 0.9}, "for"),
    ]
    table = corpus_words(attributions, ["against", "for"], "m", LINEAR_EXACT, top=3, min_documents=1)
    against = table.for_category("against")
    assert [row.word for row in against] == ["tax", "cuts", "the"]  # "tax" written twice, "Tax" once
    tax = against[0]
    assert tax.mean_score == pytest.approx((0.5 + 0.5 + 1.0) / 2)  # summed per document, mean over documents
    assert (tax.occurrences, tax.documents) == (3, 2)
    assert against[1].mean_score == pytest.approx(0.5) and against[1].documents == 1
    assert "!" not in [row.word for row in table.rows]  # punctuation is not a word to list
    assert table.n_documents == 3 and table.categories == ["against", "for"]
    assert [row.word for row in table.for_category("for")] == ["schools", "Taxes", "help"]


def test_stems_group_word_forms():
    attributions = [explained("Taxes and tax", {"taxes": 0.2, "tax": 0.4}, "against"),
                    explained("taxed", {"taxed": 0.6}, "against")]
    rows = corpus_words(attributions, ["against"], "m", LINEAR_EXACT, stem_language="english", min_documents=1).rows
    assert (rows[0].word, rows[0].occurrences, rows[0].documents) in {("Taxes", 3, 2), ("tax", 3, 2), ("taxed", 3, 2)}
    assert rows[0].mean_score == pytest.approx(0.6)


def test_coefficients_of_a_linear_bag_of_words_model():
    texts, labels = planted_corpus(80)
    model = train("bow", {"min_df": 0.0, "max_df": 0.9}, "logistic_regression", texts, labels, ["no", KEYWORD])
    coefficients = linear_coefficients(model)
    assert next(iter(coefficients[KEYWORD])) == KEYWORD  # the largest weight toward the category
    assert coefficients["no"][KEYWORD] == pytest.approx(-coefficients[KEYWORD][KEYWORD])
    assert list(linear_coefficients(model, top=3)[KEYWORD]) == list(coefficients[KEYWORD])[:3]
    attributions = [explain_linear(model, text, 1) for text in texts[1:20:2]]
    table = corpus_words(attributions, ["no", KEYWORD], model.name, LINEAR_EXACT, top=5, coefficients=coefficients)
    top = table.for_category(KEYWORD)[0]
    assert top.word == KEYWORD and top.coefficient == pytest.approx(coefficients[KEYWORD][KEYWORD])
    assert top.documents == 10


def test_no_coefficients_for_models_that_are_not_linear_on_words():
    texts, labels = planted_corpus(40)
    model = train("bow", {"min_df": 0.0, "max_df": 0.9}, "xgboost", texts, labels, ["no", KEYWORD])
    assert linear_coefficients(model) == {}
