"""Which method explains which model, and explaining one document or many."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.explain import transformer_attributions
from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, LINEAR_EXACT, OCCLUSION, TREE_SHAP
from guiapp.core.explain.choose_method import available_methods, explain_document, explain_documents, method_for
from guiapp.core.features import SentenceEmbeddings
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel
from tests.core.explain.conventional_samples import (
    CATEGORIES,
    KEYWORD,
    KeywordModel,
    planted_corpus,
    topic_corpus,
    train,
)

BOW = {"min_df": 0.0, "max_df": 0.9}
VECTORS = {"min_count": 2}


@pytest.fixture(scope="module")
def planted():
    return planted_corpus(60)


@pytest.mark.parametrize(("representation", "options", "classifier", "expected"), [
    ("bow", BOW, "logistic_regression", LINEAR_EXACT),
    ("bow", BOW, "svm", LINEAR_EXACT),
    ("bow", BOW, "naive_bayes", LINEAR_EXACT),
    ("bow", BOW, "xgboost", TREE_SHAP),
    ("bow", BOW, "svm_rbf", OCCLUSION),
    ("word_vectors", VECTORS, "logistic_regression", LINEAR_EXACT),
    ("word_vectors", VECTORS, "svm", LINEAR_EXACT),
    ("word_vectors", VECTORS, "xgboost", OCCLUSION),
    ("word_vectors", VECTORS, "svm_rbf", OCCLUSION),
])
def test_the_exact_method_where_there_is_one(planted, representation, options, classifier, expected):
    model = train(representation, options, classifier, *planted, ["no", KEYWORD])
    assert method_for(model) == expected
    text = "The zebra program for schools."
    attribution = explain_document(model, text)
    assert attribution.method == expected and attribution.method_sentence.startswith("Colours show")
    assert "“zebra”" in attribution.method_sentence  # toward the predicted category
    assert attribution.target == 1 and attribution.probability == pytest.approx(model.answer([text])[1][0, 1])
    assert attribution.words[attribution.top_words(1)[0]].text == KEYWORD


def test_sentence_embeddings_are_explained_by_leaving_words_out():
    model = ConventionalModel("embeddings", SentenceEmbeddings(), object(), ["no", "yes"])
    assert available_methods(model) == [OCCLUSION]


def test_a_method_the_model_cannot_use_is_refused_and_occlusion_may_be_asked_for(planted):
    model = train("bow", BOW, "xgboost", *planted, ["no", KEYWORD])
    with pytest.raises(UserError, match="cannot explain"):
        explain_document(model, "zebra", 1, method=LINEAR_EXACT)
    assert explain_document(model, "The zebra.", 1, method=OCCLUSION).method == OCCLUSION


def test_a_category_the_model_never_saw_falls_back_to_leaving_words_out():
    texts, labels = topic_corpus(60)
    model = train("bow", BOW, "logistic_regression", texts, labels, [*CATEGORIES, "education"])
    attribution = explain_document(model, "Schools and teachers.", 3)
    assert attribution.method == OCCLUSION and attribution.probability == 0.0


class FakeTransformer(TrainedModel):
    family = "transformer"

    def __init__(self) -> None:
        self.name, self.categories, self.keyword = "BERT", ["no", "yes"], KeywordModel()

    def answer(self, texts):
        return self.keyword.answer(texts)


def test_transformers_get_integrated_gradients_or_occlusion(monkeypatch):
    calls = []
    monkeypatch.setattr(transformer_attributions, "explain_transformer",
                        lambda model, text, target, *, steps, on_event: calls.append((model.name, text, target, steps)))
    model = FakeTransformer()
    explain_document(model, "A great bill.", 1, steps=20)
    explain_document(model, "A good bill.", steps=7)
    assert calls == [("BERT", "A great bill.", 1, 20), ("BERT", "A good bill.", None, 7)]
    attribution = explain_document(model, "A great bill.", 1, method=OCCLUSION)
    assert attribution.method == OCCLUSION and max(attribution.scores) == pytest.approx(0.7)
    assert method_for(model) == INTEGRATED_GRADIENTS


def test_explaining_all_documents_with_progress_and_cancel(planted):
    model = train("bow", BOW, "logistic_regression", *planted, ["no", KEYWORD])
    texts = planted[0][:6]
    events = []
    attributions = explain_documents(model, texts, on_event=events.append)
    predicted = model.answer(texts)[0]
    assert [a.target for a in attributions] == predicted.tolist()
    assert all(a.method == LINEAR_EXACT for a in attributions)
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert [a.target for a in explain_documents(model, texts[:2], [0, 0])] == [0, 0]

    occluded = KeywordModel()
    seen = []

    def cancel_at_the_third(event):
        if isinstance(event, Progress) and event.done == 3:
            raise Cancelled
        seen.append(event)

    with pytest.raises(Cancelled):
        explain_documents(occluded, ["A great bill.", "Good.", "Bad.", "Worse."], on_event=cancel_at_the_third)
    # the predictions, then the shortened texts of all four documents in one call (left out together)
    assert len(occluded.calls) == 2 and len(occluded.calls[1]) == 4 + 2 + 2 + 2
    assert np.isclose(max(e.fraction for e in seen if isinstance(e, Progress)), 0.5)
