"""Leaving words out: the drop in probability per word, in batched model calls, with progress and cancel."""

from __future__ import annotations

import math

import pytest

from guiapp.core.events import Cancelled, Progress
from guiapp.core.explain.attribution import OCCLUSION
from guiapp.core.explain.occlusion import explain_by_occlusion
from guiapp.core.explain.words import text_without
from tests.core.explain.conventional_samples import KEYWORD, KeywordModel, planted_corpus, train

TEXT = "A great and good bill, truly great."


def test_scores_are_the_drop_in_probability_without_each_word():
    model = KeywordModel()
    attribution = explain_by_occlusion(model, TEXT, 1, batch_size=4)
    by_word = list(zip((w.text for w in attribution.words), attribution.scores, strict=True))
    # "great" occurs twice: leaving one out keeps the other, so neither alone changes anything
    assert all(score == pytest.approx(0.0) for _, score in by_word)
    attribution = explain_by_occlusion(model, "A great and good bill.", 1, batch_size=4)
    scores = dict(zip((w.text for w in attribution.words), attribution.scores, strict=True))
    assert scores["great"] == pytest.approx(0.9 - 0.6) and scores["good"] == pytest.approx(0.0)
    assert scores["bill"] == 0.0 and attribution.probability == pytest.approx(0.9)
    assert attribution.method == OCCLUSION and attribution.scale == "probability"


def test_words_are_left_out_in_batches_with_progress():
    model, events = KeywordModel(), []
    attribution = explain_by_occlusion(model, TEXT, 1, batch_size=3, on_event=events.append)
    n_words = len(attribution.words)
    assert len(model.calls) == 1 + math.ceil(n_words / 3)  # the whole text, then one call per batch
    assert model.calls[0] == [TEXT] and all(len(batch) <= 3 for batch in model.calls[1:])
    left_out = [text_without(TEXT, attribution.words, {i}) for i in range(n_words)]
    assert [text for batch in model.calls[1:] for text in batch] == left_out
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_cancel_stops_between_batches():
    model = KeywordModel()

    def cancel_after_two(event):
        if isinstance(event, Progress) and event.done == 2:
            raise Cancelled

    with pytest.raises(Cancelled):
        explain_by_occlusion(model, TEXT, 1, batch_size=2, on_event=cancel_after_two)
    assert len(model.calls) == 2


def test_an_empty_text_has_no_words_to_leave_out():
    attribution = explain_by_occlusion(KeywordModel(), "", 1)
    assert attribution.words == [] and attribution.probability == pytest.approx(0.2)


def test_sentence_embeddings_model_relies_on_the_planted_keyword(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path))
    texts, labels = planted_corpus(40)
    model = train("sentence_embeddings", {"max_length": 32}, "logistic_regression", texts, labels, ["no", KEYWORD])
    attribution = explain_by_occlusion(model, "The federal zebra program for schools.", 1)
    assert attribution.words[attribution.top_words(1)[0]].text == KEYWORD
