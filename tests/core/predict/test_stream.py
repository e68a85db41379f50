"""Predicting in chunks: the same answers as all at once, empty texts, progress and Cancel."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.events import Cancelled, Progress
from guiapp.core.predict.stream import NO_PREDICTION, predict_in_chunks

CATEGORIES = ["economy", "health", "defence"]


def _answer_by_words(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """A deterministic stand-in for a model: probabilities from letter counts; the decision is
    deliberately not always the most probable category (as with an SVM's calibrated probabilities)."""
    counts = np.array([[t.count("a") + 1, t.count("e") + 1, t.count("o") + 1] for t in texts], dtype=float)
    probabilities = counts / counts.sum(axis=1, keepdims=True)
    decisions = np.array([len(t) % 3 for t in texts])
    return decisions, probabilities


def _texts(n: int) -> list[str]:
    rng = np.random.default_rng(3)
    words = ["tax", "care", "army", "road", "hospital", "navy", "budget", ""]
    return [" ".join(rng.choice(words, size=rng.integers(0, 6))) for _ in range(n)]


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 10_000])
def test_chunks_equal_all_at_once(chunk_size):
    texts = _texts(500)
    seen: list[int] = []

    def answer(batch):
        seen.append(len(batch))
        return _answer_by_words(batch)

    chunked = predict_in_chunks(answer, texts, CATEGORIES, chunk_size=chunk_size)
    filled = [t for t in texts if t.strip()]
    decisions, probabilities = _answer_by_words(filled)
    rows = [i for i, t in enumerate(texts) if t.strip()]
    assert np.array_equal(chunked.predicted[rows], decisions)
    assert np.allclose(chunked.probabilities[rows], probabilities.astype(np.float32))
    assert max(seen) <= chunk_size  # never more model inputs at once than one chunk
    assert chunked.probabilities.dtype == np.float32 and chunked.predicted.dtype == np.int32


def test_empty_texts_get_no_prediction_and_are_counted():
    result = predict_in_chunks(_answer_by_words, ["tax", "", "   ", None, "army"], CATEGORIES, chunk_size=2)
    assert result.predicted.tolist()[1:4] == [NO_PREDICTION] * 3
    assert result.n_empty == 3
    assert np.isnan(result.probabilities[1:4]).all()
    assert result.labels()[1] == "" and result.labels()[0] in CATEGORIES


def test_progress_counts_texts_and_cancel_stops_between_chunks():
    events: list[Progress] = []
    calls = []

    def on_event(event):
        if isinstance(event, Progress):
            events.append(event)
            if event.done and event.done >= 20:
                raise Cancelled()

    def answer(batch):
        calls.append(len(batch))
        return _answer_by_words(batch)

    with pytest.raises(Cancelled):
        predict_in_chunks(answer, ["tax"] * 100, CATEGORIES, chunk_size=10, on_event=on_event)
    assert len(calls) == 2  # stopped after the second chunk, not at the end
    assert events[0].message == "Predicting: 0 of 100 texts"
    assert events[-1].done == 20 and events[-1].total == 100


def test_a_model_giving_the_wrong_shape_is_caught():
    with pytest.raises(ValueError, match="answered"):
        predict_in_chunks(lambda batch: (np.zeros(len(batch)), np.zeros((len(batch), 2))), ["tax"], CATEGORIES)
