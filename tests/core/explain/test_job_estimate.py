"""The time an explanation job will take, measured on a few documents before it starts, and the
question the Documents and Predict steps ask before a long one."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, LINEAR_EXACT, OCCLUSION
from guiapp.core.explain.cache import ExplanationCache
from guiapp.core.explain.choose_method import explain_document
from guiapp.core.explain.job_estimate import (
    LONG_JOB_SECONDS,
    JobEstimate,
    _sample,
    estimate_explaining,
    estimate_top_words,
    work_units,
)
from tests.core.explain.combined_samples import CountingModel, topic_parts, vote
from tests.core.explain.conventional_samples import KeywordModel

TEXTS = ["A great bill.", "A good and fine bill for the schools of the state.", "Bad.", "", "A good day, a great day."]


@pytest.mark.parametrize(("seconds", "words"), [
    (20, "less than a minute"), (61, "about 1 minute"), (170, "about 3 minutes"),
    (4800, "about 1 hour 20 minutes"), (7920, "about 2 hours 10 minutes"), (3590, "about 1 hour"),
])
def test_durations_in_words(seconds, words):
    estimate = JobEstimate(seconds, 10)
    assert estimate.duration_text() == words
    assert estimate.question() == f"This will take {words}. Continue?"
    assert estimate.is_long() == (seconds > LONG_JOB_SECONDS)


def test_costs_grow_as_each_method_grows():
    model = KeywordModel()
    assert work_units(model, OCCLUSION, 20) == 21 and work_units(model, LINEAR_EXACT, 500) == 1.0
    assert work_units(model, INTEGRATED_GRADIENTS, 40) == 42 and work_units(model, INTEGRATED_GRADIENTS, 9000) == 512
    assert _sample(np.array([5, 1, 9, 3, 7, 2, 8, 4, 6, 10])) == [8, 6, 2]  # 6, 8 and 9 words: median, 75th, 90th
    assert _sample(np.array([3])) == [0] and _sample(np.array([], dtype=int)) == []


def test_an_estimate_times_a_few_documents_and_counts_the_rest():
    model = CountingModel(KeywordModel())
    estimate = estimate_explaining(model, TEXTS * 20)
    assert estimate.documents == 80 and estimate.seconds > 0
    # only a few documents were explained: all 80 would ask about some 600 shortened texts
    assert len(model.asked) < 150


def test_documents_in_the_cache_cost_nothing():
    model, cache = KeywordModel(), ExplanationCache()
    texts = [text for text in TEXTS if text]
    for text in texts:
        cache.put_attribution(text, explain_document(model, text))
    assert estimate_explaining(model, TEXTS, cache=cache) == JobEstimate(0.0, 0)
    assert estimate_explaining(model, TEXTS + ["A new text."], cache=cache).documents == 1


def test_exact_models_are_not_timed_for_top_words_and_combined_models_are():
    parts, _, _ = topic_parts(90)
    assert estimate_top_words([parts[0]], TEXTS) == JobEstimate(0.0, 0)
    combined = vote(parts, [0.25] * 4)
    estimate = estimate_top_words([parts[0], combined], TEXTS * 4)
    assert estimate.documents == 16 and estimate.seconds > 0
