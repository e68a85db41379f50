"""Embedding reports progress from a small first batch on, by tokens processed (not texts)."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.events import Progress
from guiapp.core.features.sentence_embeddings import FIRST_BATCH, SentenceEmbeddings, _batches


def test_batches_start_small_and_cover_every_text():
    spans = _batches(70, 32)
    assert spans[0] == slice(0, FIRST_BATCH)
    assert [s.stop - s.start for s in spans] == [4, 32, 32, 2]
    assert _batches(0, 32) == [] and _batches(3, 32) == [slice(0, 3)]


@pytest.mark.slow
def test_progress_comes_after_the_first_small_batch_and_counts_tokens():
    long = "word " * 200
    texts = [long] * 4 + ["short text"] * 60
    events: list[Progress] = []
    matrix = SentenceEmbeddings(batch_size=32).prepare(texts, on_event=events.append, cache=False).matrix
    assert matrix.shape == (64, 384) and np.isfinite(matrix).all()
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress[0].fraction == 0.0 and progress[0].message == "Embedding texts: 0 of 64"
    assert progress[1].done == FIRST_BATCH  # the first report after only 4 texts
    # the 4 long texts are most of the work: the fraction says so, not 4/64
    assert progress[1].fraction > 0.5
    fractions = [e.fraction for e in progress]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert progress[-1].done == 64
