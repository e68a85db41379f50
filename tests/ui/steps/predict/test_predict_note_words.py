"""The Predict step's note on slow top words names the quick models truly: the models the note
calls quick are those whose words are calculated exactly, and an SVM with another kernel on a bag
of words — slow — is not said to be quick."""

from __future__ import annotations

import pytest

from guiapp.core.explain.top_words import quick_in_result
from guiapp.ui.steps.predict.predict_page import QUICK_TOP_WORDS


@pytest.mark.parametrize(("representation", "classifier", "params", "quick"), [
    ("bow", "logistic_regression", {}, True),
    ("bow", "svm", {"kernel": "linear"}, True),
    ("word_vectors", "logistic_regression", {}, True),
    ("word_vectors", "svm", {"kernel": "linear"}, True),
    ("bow", "naive_bayes", {}, True),
    ("bow", "xgboost", {}, True),
    ("bow", "svm", {"kernel": "rbf"}, False),
    ("word_vectors", "svm", {"kernel": "rbf"}, False),
])
def test_the_note_names_the_quick_models_as_the_rule_does(representation, classifier, params, quick):
    assert quick_in_result(representation, classifier, params) is quick
    assert "Bag-of-words models are quick" not in QUICK_TOP_WORDS
    assert "an SVM with another kernel is not" in QUICK_TOP_WORDS
    assert "linear kernel on a bag of words or on word vectors" in QUICK_TOP_WORDS
