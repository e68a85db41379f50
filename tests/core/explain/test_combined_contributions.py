"""Combined models explained through their parts: the vote is exactly the weighted sum of its
parts' explanations, stacking is the chain rule through its regression, and the note says so."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.experiment.combined.combining import Stacking, WeightedVote
from guiapp.core.explain.attribution import (
    COMBINED_PARTS,
    INTEGRATED_GRADIENTS,
    LINEAR_EXACT,
    OCCLUSION,
    TREE_SHAP,
)
from guiapp.core.explain.choose_method import available_methods, explain_document, explain_documents
from guiapp.core.explain.combined_contributions import explain_combined, part_directions, stacking_slopes
from guiapp.core.explain.explain_jobs import explain_all
from guiapp.core.explain.occlusion import explain_by_occlusion
from guiapp.core.explain.part_contributions import part_method, part_scores, score_slopes
from guiapp.core.explain.top_words import top_words_for
from guiapp.core.predict.combined_model import CombinedModel
from tests.core.explain.combined_samples import (
    CountingModel,
    WordCountModel,
    stacking,
    topic_parts,
    vote,
)
from tests.core.explain.conventional_samples import CATEGORIES, KeywordModel, planted_corpus, train

TEXTS = ["The army and navy need more soldiers and weapons.", "Solar and wind power for the national grid.",
         "Patients in the clinic need nurses, doctors and medicine."]


@pytest.fixture(scope="module")
def trained():
    return topic_parts()


def test_each_part_is_explained_its_own_best_way(trained):
    parts, _, _ = trained
    assert [part_method(part) for part in parts] == [LINEAR_EXACT, LINEAR_EXACT, TREE_SHAP, OCCLUSION]
    assert available_methods(vote(parts, [0.25] * 4)) == [COMBINED_PARTS, OCCLUSION]


def test_the_vote_is_exactly_the_weighted_sum_of_the_parts_explanations(trained):
    parts, _, _ = trained
    weights = [0.2, 0.3, 0.1, 0.4]
    model = vote(parts, weights)
    found = explain_combined(model, TEXTS)
    targets = model.answer(TEXTS)[0]
    for document, text in enumerate(TEXTS):
        toward = np.zeros((1, len(CATEGORIES)))
        toward[0, targets[document]] = 1.0
        per_part = [part_scores(part, [text], toward, part.answer([text])[1])[0].scores for part in parts]
        expected = sum(weight * scores for weight, scores in zip(weights, per_part, strict=True))
        assert found[document].scores == pytest.approx(expected.tolist(), abs=1e-12)
        assert found[document].target == targets[document] and found[document].scale == "probability"
        assert found[document].probability == pytest.approx(model.answer([text])[1][0, targets[document]])
        parts_details = found[document].details["parts"]
        assert [entry["weight"] for entry in parts_details] == weights
        assert sum(entry["score_sum"] for entry in parts_details) == pytest.approx(sum(found[document].scores))


def test_a_vote_of_parts_left_out_word_by_word_is_the_occlusion_of_the_vote():
    """The vote is linear in its parts' probabilities, so with parts explained by leaving words out
    the combined scores are exactly the drops of the combined model's own probability."""
    model = CombinedModel("vote", [KeywordModel(), WordCountModel()], WeightedVote([0.3, 0.7]), ["no", "yes"])
    text = "A great and good bill, a good one."
    combined = explain_document(model, text, 1)
    whole = explain_by_occlusion(model, text, 1)
    assert combined.method == COMBINED_PARTS
    assert combined.scores == pytest.approx(whole.scores, abs=1e-12)


@pytest.mark.parametrize("n_categories", [2, 3])
def test_stacking_slopes_match_finite_differences(n_categories):
    rng = np.random.default_rng(n_categories)
    n_parts = 3
    parts = [rng.dirichlet(np.ones(n_categories), size=4) for _ in range(n_parts)]
    rows = 1 if n_categories == 2 else n_categories
    combiner = Stacking(coefficients=rng.normal(0, 2, (rows, n_parts * n_categories)).tolist(),
                        intercepts=rng.normal(0, 1, rows).tolist(), classes=list(range(n_categories)),
                        n_categories=n_categories, C=1.0)
    targets = rng.integers(0, n_categories, size=4)
    slopes = stacking_slopes(combiner, parts, targets)
    step = 1e-6
    for k in range(n_parts):
        for c in range(n_categories):
            up = [part.copy() for part in parts]
            down = [part.copy() for part in parts]
            up[k][:, c] += step
            down[k][:, c] -= step
            rows_ = np.arange(4)
            numeric = (combiner.combine(up)[rows_, targets] - combiner.combine(down)[rows_, targets]) / (2 * step)
            assert slopes[:, k, c] == pytest.approx(numeric, abs=1e-7)


def test_stacking_scores_are_the_chain_rule_through_the_regression():
    """Each word's score is the first-order change of the combined probability when the parts'
    probabilities move by the word's push on them: checked by finite differences of the stacking."""
    occluded = [KeywordModel(), WordCountModel()]
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(["great", "good", "bill", "law", "tax"], size=6)) for _ in range(120)]
    answers = [part.answer(texts)[1][:, 1] for part in occluded]
    labels = (rng.random(len(texts)) < 0.8 * answers[0] * answers[1] + 0.1).astype(int)
    model = stacking(occluded, texts, labels)
    text = "A great and good bill, a good one."
    found = explain_document(model, text)
    probabilities = model.part_answers([text])
    drops = [explain_by_occlusion(part, text, 0).scores for part in occluded]  # toward "no": minus for "yes"
    target = found.target
    step = 1e-6
    for word in range(len(found.words)):
        moved = []
        for part_probabilities, drop in zip(probabilities, drops, strict=True):
            change = np.array([drop[word], -drop[word]])  # a part's drop of "no" is a rise of "yes"
            moved.append(part_probabilities - step * change)
        numeric = (model.combiner.combine(probabilities)[0, target] - model.combiner.combine(moved)[0, target]) / step
        assert found.scores[word] == pytest.approx(numeric, rel=1e-4, abs=1e-8)
    # first order: close to (not equal to) what leaving the word out of the combined model does
    exact = explain_by_occlusion(model, text, target).scores
    assert np.corrcoef(found.scores, exact)[0, 1] > 0.9
    assert found.details["first_order"] is True


def test_stacking_over_exact_parts_is_the_sum_of_their_weighed_scores(trained):
    parts, texts, labels = trained
    model = stacking(parts, texts, labels)
    found = explain_documents(model, TEXTS)
    assert all(attribution.method == COMBINED_PARTS for attribution in found)
    directions = part_directions(model, model.part_answers(TEXTS), np.array([a.target for a in found]))
    for document, attribution in enumerate(found):
        per_part = [part_scores(part, [TEXTS[document]], directions[document:document + 1, k],
                                part.answer([TEXTS[document]])[1])[0].scores for k, part in enumerate(parts)]
        assert attribution.scores == pytest.approx(np.sum(per_part, axis=0).tolist(), abs=1e-12)


def test_the_parts_are_not_asked_again_for_texts_just_answered(trained):
    parts, texts, labels = trained
    counting = [CountingModel(part) for part in parts]
    model = stacking(counting, texts, labels)
    model.answer(TEXTS)
    asked = [len(part.asked) for part in counting]
    explain_documents(model, TEXTS)
    for part, before in zip(counting, asked, strict=True):
        assert not set(TEXTS) & set(part.asked[before:])  # only shortened texts: the whole ones were kept


@pytest.mark.parametrize("which", ["logistic regression", "naive Bayes", "logistic regression, two categories"])
def test_a_linear_part_is_turned_into_probability_by_its_own_slope(trained, which):
    """``score_slopes`` · weights is the gradient of the weighed probabilities in the features:
    finite differences of the classifier's own probabilities agree."""
    from guiapp.core.explain.part_contributions import _score_weights

    parts, _, _ = trained
    if which.endswith("two categories"):
        texts, labels = planted_corpus(60)
        part = train("bow", {"min_df": 0.0, "max_df": 0.9}, "logistic_regression", texts, labels, ["no", "yes"])
        direction, text = np.array([-0.4, 1.3]), texts[1]
    else:
        part = parts[0 if which == "logistic regression" else 1]
        direction, text = np.array([0.3, -1.0, 0.5]), TEXTS[0]
    x = part.representation.transform([text]).toarray()
    p = part.answer([text])[1][0]
    gradient = score_slopes(part, direction, p) @ _score_weights(part)
    for feature in np.flatnonzero(x[0])[:5].tolist() + [0, 1]:
        up, down = x.copy(), x.copy()
        up[0, feature] += 1e-5
        down[0, feature] -= 1e-5
        predicted = part.classifier.predict_proba
        numeric = direction @ predicted(up)[0] - direction @ predicted(down)[0]
        assert gradient[feature] == pytest.approx(numeric / 2e-5, rel=1e-4, abs=1e-9)


def test_the_method_note_says_how_the_parts_were_combined(trained):
    parts, texts, labels = trained
    voted = explain_document(vote(parts, [0.2, 0.3, 0.1, 0.4]), TEXTS[0])
    note = voted.method_sentence
    assert "weighted vote" in note and "weight 0.40" in note and "SVM (RBF) · BOW" in note
    assert "first order" in note  # linear parts are turned into probability by their slope
    assert voted.details["how_combined"] in note and voted.details["combination"] == "weighted_vote"
    stacked = explain_document(stacking(parts, texts, labels), TEXTS[0])
    assert "logistic regression" in stacked.method_sentence and "first-order approximation" in stacked.method_sentence
    assert "slope" in stacked.method_sentence and stacked.details["first_order"] is True
    for part in parts:
        assert part.name in stacked.method_sentence


def test_a_part_with_weight_zero_is_not_explained(trained):
    parts, _, _ = trained
    counting = CountingModel(parts[3])
    model = vote([parts[0], counting], [1.0, 0.0])
    model.answer(TEXTS)
    before = len(counting.asked)
    found = explain_combined(model, TEXTS)
    assert len(counting.asked) == before  # no texts left out for the unused SVM
    assert all(not a.details["parts"][1]["used"] for a in found)
    assert "weight 0.00, not used" in found[0].method_sentence


def test_explaining_all_documents_and_top_words_of_a_combined_model(trained):
    parts, texts, labels = trained
    model = stacking(parts, texts, labels)
    found = explain_all(model, TEXTS + [""], CATEGORIES)
    assert len(found.documents) == 3 and all(a.method == COMBINED_PARTS for _, a, _ in found.documents)
    assert found.words is not None
    predicted, probabilities = model.answer(TEXTS)
    cells = top_words_for(model, TEXTS, predicted, probabilities, k=3)
    assert cells == [explain_document(model, text, int(t)).top_words_text(3) for text, t in zip(TEXTS, predicted,
                                                                                                 strict=True)]


def test_part_answers_are_kept_for_the_texts_asked_last(trained, monkeypatch):
    parts, _, _ = trained
    counting = CountingModel(parts[0])
    model = vote([counting], [1.0])
    model.answer(TEXTS)
    model.answer(TEXTS[:2] + TEXTS[:1])
    assert counting.asked == TEXTS  # asked once per text
    monkeypatch.setattr("guiapp.core.predict.combined_model.REMEMBERED_TEXTS", 2)
    model.answer(["one text", "another text", "a third text"])
    model.answer(TEXTS[:1])
    assert counting.asked[-1] == TEXTS[0]  # forgotten: asked again
    assert model.part_answers([])[0].shape == (0, len(CATEGORIES))


def test_unknown_methods_are_refused_in_words(trained):
    from guiapp.core.errors import UserError

    parts, _, _ = trained
    with pytest.raises(UserError):
        explain_document(vote(parts, [0.25] * 4), TEXTS[0], method=INTEGRATED_GRADIENTS)


def test_a_stacking_shrunk_towards_the_vote_is_explained_by_the_mixture_of_both():
    rng = np.random.default_rng(7)
    n_parts, n_categories = 2, 3
    parts = [rng.dirichlet(np.ones(n_categories), size=5) for _ in range(n_parts)]
    combiner = Stacking(coefficients=rng.normal(0, 2, (n_categories, n_parts * n_categories)).tolist(),
                        intercepts=rng.normal(0, 1, n_categories).tolist(), classes=list(range(n_categories)),
                        n_categories=n_categories, C=1.0, regression_share=0.4, vote_weights=[0.25, 0.75])
    model = CombinedModel("stack", [KeywordModel(), WordCountModel()], combiner, ["a", "b", "c"])
    targets = rng.integers(0, n_categories, size=5)
    directions = part_directions(model, parts, targets)
    step, rows = 1e-6, np.arange(5)
    for k in range(n_parts):
        for c in range(n_categories):
            up, down = [part.copy() for part in parts], [part.copy() for part in parts]
            up[k][:, c] += step
            down[k][:, c] -= step
            numeric = (combiner.combine(up)[rows, targets] - combiner.combine(down)[rows, targets]) / (2 * step)
            assert directions[:, k, c] == pytest.approx(numeric, abs=1e-7)
    plain = Stacking(**{**combiner.__dict__, "regression_share": 1.0})
    assert not np.allclose(combiner.combine(parts), plain.combine(parts))  # the vote does count
