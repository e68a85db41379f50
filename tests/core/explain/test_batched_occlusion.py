"""Leaving words out of many documents at once gives the numbers of leaving them out one document
at a time, in fewer model calls, with progress per document and Cancel between calls."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.events import Cancelled, Progress
from guiapp.core.explain.batched_occlusion import explain_many_by_occlusion, leave_words_out
from guiapp.core.explain.occlusion import explain_by_occlusion
from tests.core.explain.conventional_samples import KeywordModel, planted_corpus, train

TEXTS = ["A great and good bill, truly great.", "", "Good.", "A bill for schools and a great park.", "   "]


@pytest.mark.parametrize("per_call", [1, 4, 7, 512])
def test_batched_scores_equal_one_document_at_a_time(per_call):
    model = KeywordModel()
    targets = [1, 0, 1, 0, 1]
    batched = explain_many_by_occlusion(model, TEXTS, targets, variants_per_call=per_call)
    for text, target, found in zip(TEXTS, targets, batched, strict=True):
        alone = explain_by_occlusion(KeywordModel(), text, target)
        assert found.scores == alone.scores and found.words == alone.words
        assert found.probability == alone.probability and found.method == alone.method


def test_a_trained_model_gives_the_same_numbers_batched_or_not():
    texts, labels = planted_corpus(60)
    model = train("bow", {"min_df": 0.0, "max_df": 0.9}, "svm_rbf", texts, labels, ["no", "yes"])
    sample = texts[:6]
    predicted, probabilities = model.answer(sample)
    batched = explain_many_by_occlusion(model, sample, predicted.tolist(), probabilities, variants_per_call=9)
    for text, target, found in zip(sample, predicted, batched, strict=True):
        alone = explain_by_occlusion(model, text, int(target))
        assert found.scores == pytest.approx(alone.scores, abs=1e-12)
        assert found.probability == pytest.approx(alone.probability, abs=1e-12)


def test_fewer_calls_with_all_categories_and_known_answers():
    model = KeywordModel()
    whole = model.answer(TEXTS)[1]
    model.calls.clear()
    found = leave_words_out(model, TEXTS, whole, variants_per_call=100)
    assert len(model.calls) == 1 and not set(TEXTS) & set(model.calls[0])  # the whole texts are not asked again
    for result, probabilities in zip(found, whole, strict=True):
        assert result.whole.tolist() == probabilities.tolist()
        assert result.drops().shape == (len(result.words), 2)
        assert np.allclose(result.drops().sum(axis=1), 0.0)  # two categories: one's drop is the other's rise


def test_progress_per_document_and_cancel_between_calls():
    model, events = KeywordModel(), []
    leave_words_out(model, TEXTS, variants_per_call=3, on_event=events.append)
    done = [event.done for event in events if isinstance(event, Progress)]
    assert done == sorted(done) and done[-1] == len(TEXTS) and set(range(len(TEXTS) + 1)) <= set(done)

    def cancel_at_the_second(event):
        if isinstance(event, Progress) and event.done == 2:
            raise Cancelled

    model = KeywordModel()
    with pytest.raises(Cancelled):
        leave_words_out(model, TEXTS, variants_per_call=3, on_event=cancel_at_the_second)
    assert len(model.calls) < 1 + sum(len(t.split()) + 2 for t in TEXTS) // 3


def test_wrong_inputs_are_refused():
    with pytest.raises(ValueError):
        leave_words_out(KeywordModel(), TEXTS, np.zeros((2, 2)))
    with pytest.raises(ValueError):
        explain_many_by_occlusion(KeywordModel(), TEXTS, [1])


TRICKY = ["Go #win!now (good) yes!no, don't stop: e-mail @user's 3.5% of   the\tbill\nhttp://x.com/a. İstanbul ☺ tax.",
          "The army,the navy and the #Military budget!!! 1,000.50 soldiers' pay...",
          "zebra", "", "  ", "Vote #(yes) now or @(no)!",
          "Schools: teachers & students (and books) - learning, reading; exams?"]


@pytest.mark.parametrize(("kind", "options"), [
    ("bow", {"min_df": 0.0, "max_df": 0.9}),
    ("bow", {"min_df": 0.0, "max_df": 0.9, "weighting": "tfidf", "stop_words": "english",
             "remove_punctuation": True, "stem_language": None}),
    ("bow", {"min_df": 0.0, "max_df": 1.0, "weighting": "counts", "lowercase": False, "remove_numbers": True}),
    ("word_vectors", {"min_count": 1}),
    ("word_vectors", {"min_count": 1, "remove_punctuation": False}),
])
def test_shortened_texts_from_counts_are_the_shortened_texts_read_again(kind, options):
    """A bag of words or word vectors gets the features of each shortened text from counts
    (no text is read again): the probabilities are those of reading the shortened texts."""
    from guiapp.core.explain.left_out_counts import counts_apply
    from tests.core.explain.conventional_samples import topic_corpus

    texts, labels = topic_corpus(120)
    texts = texts + TRICKY
    labels = np.concatenate([labels, np.arange(len(TRICKY)) % 3])
    model = train(kind, options, "svm_rbf", texts, labels, ["defence", "energy", "health"])
    assert counts_apply(model)
    sample = TRICKY + texts[:3]
    found = leave_words_out(model, sample, variants_per_call=2)  # several groups of documents
    for text, result in zip(sample, found, strict=True):
        assert result.whole == pytest.approx(model.answer([text])[1][0], abs=1e-12)
        for target in range(3):
            alone = explain_by_occlusion(model, text, target)
            assert result.drops()[:, target] == pytest.approx(alone.scores, abs=1e-9)


def test_word_pairs_are_read_again():
    from guiapp.core.explain.left_out_counts import counts_apply

    texts, labels = planted_corpus(40)
    model = train("bow", {"min_df": 0.0, "max_df": 0.9, "ngram_max": 2}, "svm_rbf", texts, labels, ["no", "yes"])
    assert not counts_apply(model)  # a pair reaches across white space: counts do not add up by chunks
    found = leave_words_out(model, texts[:2])
    assert found[0].drops()[:, 1] == pytest.approx(explain_by_occlusion(model, texts[0], 1).scores, abs=1e-12)
