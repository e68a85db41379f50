"""Answering texts (a fine-tuned Transformer) and text–category pairs (an NLI model) share one way
of meeting an accelerator that runs out of memory: the batch is halved and its halves answered in
its place. Simulated here on tiny randomly initialised models: a network that refuses batches of
more than two inputs gives the same answers as one that takes them all."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from guiapp.core.models.transformers.fine_tuning import DeviceInfo, FineTuned, predict_proba
from guiapp.core.models.transformers.training.settings import FineTuneSettings
from guiapp.core.models.zero_shot.nli_scoring import load_nli_model, pair_logits
from tests.tiny_bert import tiny_bert, tiny_tokenizer
from tests.tiny_nli import save_tiny_nli

WORDS = ["the", "bill", "tax", "hospital", "doctors", "school", "teachers", "this", "text", "is", "about"]
TEXTS = ["the tax bill", "doctors at the hospital", "teachers at the school", "the bill", "hospital",
         "the school bill is about tax and teachers", "tax"]
HYPOTHESES = ["this text is about tax.", "this text is about the hospital.", "this text is about school."]
MOST = 2  # inputs a batch may hold before the simulated accelerator runs out of memory


def short_of_memory(net: torch.nn.Module, monkeypatch: pytest.MonkeyPatch, most: int = MOST) -> list[int]:
    """Make ``net`` raise CUDA's out-of-memory error for a batch of more than ``most`` inputs; the
    sizes of the batches it was given, in order."""
    sizes: list[int] = []
    forward = net.forward

    def refusing(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        size = int(kwargs["input_ids"].shape[0])
        sizes.append(size)
        if size > most:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return forward(*args, **kwargs)

    monkeypatch.setattr(net, "forward", refusing)
    return sizes


def test_a_fine_tuned_model_answers_the_same_in_halved_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TEXTLAB_FAST_INFERENCE", "0")
    tokenizer = tiny_tokenizer(tmp_path / "vocabulary", WORDS)
    model = FineTuned(tiny_bert(len(tokenizer), 3), tokenizer, DeviceInfo("cpu", "CPU"),
                      FineTuneSettings(device="cpu", max_length=32))
    expected = predict_proba(model, TEXTS, batch_size=8)
    sizes = short_of_memory(model.model, monkeypatch)
    answered = predict_proba(model, TEXTS, batch_size=8)
    np.testing.assert_allclose(answered, expected, atol=1e-6)
    assert sizes[0] == len(TEXTS) and sizes[1] == len(TEXTS) // 2  # the whole batch, then its first half
    assert max(size for size in sizes if size <= MOST) == MOST
    assert sum(size for size in sizes if size <= MOST) == len(TEXTS)  # every text answered once


def test_an_nli_model_answers_the_same_in_halved_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    tokenizer, model = load_nli_model(save_tiny_nli(tmp_path / "nli", WORDS))
    expected = pair_logits(tokenizer, model, TEXTS, HYPOTHESES, [0, 2], batch_size=16, limit=64)
    sizes = short_of_memory(model, monkeypatch)
    events: list = []
    answered = pair_logits(tokenizer, model, TEXTS, HYPOTHESES, [0, 2], batch_size=16, limit=64,
                           on_event=events.append)
    np.testing.assert_allclose(answered, expected, atol=1e-5)
    pairs = len(TEXTS) * len(HYPOTHESES)
    assert sizes[0] == 16 and sizes[1] == 8  # the first batch, then its first half
    assert sum(size for size in sizes if size <= MOST) == pairs  # every pair answered once
    assert events[-1].done == events[-1].total == pairs  # progress counts each pair once


def test_a_single_input_that_does_not_fit_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    tokenizer, model = load_nli_model(save_tiny_nli(tmp_path / "nli", WORDS))
    short_of_memory(model, monkeypatch, most=0)
    with pytest.raises(torch.cuda.OutOfMemoryError):
        pair_logits(tokenizer, model, TEXTS[:2], HYPOTHESES[:1], [0], batch_size=4, limit=64)
