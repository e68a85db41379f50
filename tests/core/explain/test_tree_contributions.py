"""XGBoost's SHAP values traced back to words: words + absent words + bias = the trees' margin."""

from __future__ import annotations

import pytest

from guiapp.core.explain.attribution import TREE_SHAP
from guiapp.core.explain.tree_contributions import explain_tree, tree_margin
from guiapp.core.explain.words import split_words
from tests.core.explain.conventional_samples import CATEGORIES, KEYWORD, planted_corpus, topic_corpus, train

BOW = {
    "tfidf_bigrams": {"min_df": 0.01, "max_df": 0.9, "weighting": "tfidf", "ngram_max": 2},
    "binary_stems": {"min_df": 0.01, "max_df": 0.9},
    "char_pieces": {"min_df": 0.02, "max_df": 0.9, "analyzer": "char", "char_ngram_min": 2, "char_ngram_max": 3},
}
NEW_TEXTS = ["The army's fuel can't wait; doctors' care won't.", "", "Solar power for the hospital, solar power!",
             "Vaccine clinic nurses and the federal act."]


@pytest.mark.parametrize("n_categories", [2, 3])
@pytest.mark.parametrize("rep", list(BOW))
def test_scores_absent_words_and_base_value_add_up_to_the_margin(rep, n_categories):
    texts, labels = topic_corpus(120, seed=1)
    categories = CATEGORIES if n_categories == 3 else ["other", "health"]
    labels = labels if n_categories == 3 else (labels == 2).astype(int)
    model = train("bow", BOW[rep], "xgboost", texts, labels, categories)
    for text in NEW_TEXTS + texts[:2]:
        for target in range(n_categories):
            attribution = explain_tree(model, text, target)
            absent = attribution.details["absent_words_score"]
            total = sum(attribution.scores) + absent + attribution.base_value
            assert total == pytest.approx(tree_margin(model, text, target), abs=1e-5)  # XGBoost sums in float32
            assert attribution.method == TREE_SHAP and attribution.scale == "margin"
            assert len(attribution.scores) == len(split_words(text))
            assert "unplaced_score" not in attribution.details
            listed = attribution.details["absent_words"]
            assert len(listed) <= 5 and all(term not in text.lower() or rep == "char_pieces" for term, _ in listed)
            assert [abs(v) for _, v in listed] == sorted((abs(v) for _, v in listed), reverse=True)


def test_the_planted_keyword_gets_the_largest_share():
    texts, labels = planted_corpus(80)
    model = train("bow", {"min_df": 0.0, "max_df": 0.9}, "xgboost", texts, labels, ["no", KEYWORD])
    text = "The federal zebra program for schools and hospital care."
    attribution = explain_tree(model, text, 1)
    assert attribution.words[attribution.top_words(1)[0]].text == KEYWORD
    without = explain_tree(model, "The federal program for schools and hospital care.", 1)
    assert any(term == KEYWORD for term, _ in without.details["absent_words"])  # its absence speaks against
    assert without.details["absent_words_score"] < 0
