"""Faster 16-bit answers on the processor: used only after they matched the exact answers, checked
once per model (the verdict is kept, and checked again when its file is broken), switched off by
TEXTLAB_FAST_INFERENCE=0 or a model's mixed_precision = false, and left for exact answers the
moment a check fails."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from guiapp.core.events import Log, Progress
from guiapp.core.models.transformers import fast_inference
from guiapp.core.models.transformers.answer_agreement import EMBEDDINGS, PROBABILITIES, Tally
from guiapp.core.models.transformers.answer_verdicts import Verdict, read_verdict, verdict_path, write_verdict
from guiapp.core.models.transformers.fine_tuning import DeviceInfo, FineTuned, predict_proba
from guiapp.core.models.transformers.training.settings import FineTuneSettings
from tests.core.models.test_transformer_training import KEYWORDS, WORDS, toy_task
from tests.tiny_bert import tiny_bert, tiny_tokenizer

SETTINGS = FineTuneSettings(device="cpu", max_length=64)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Each test starts with an empty cache, nothing remembered, and a check of 64 texts."""
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(fast_inference.VARIABLE, "1")  # the tiny model gains no speed: ask for it anyway
    monkeypatch.setattr(fast_inference, "CHECK_TEXTS", 64)
    fast_inference.forget_checks()
    yield
    fast_inference.forget_checks()


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    tokenizer = tiny_tokenizer(tmp_path_factory.mktemp("vocabulary"), [*WORDS, *KEYWORDS.values()])
    net = tiny_bert(len(tokenizer), num_labels=3, dropout=0.0, seed=3)
    with torch.no_grad():  # clear preferences, as a trained classifier has: categories rarely tie
        net.classifier.weight.mul_(20.0)
    return FineTuned(net, tokenizer, DeviceInfo("cpu", "CPU"), SETTINGS)


@pytest.fixture(scope="module")
def texts():
    return toy_task(150, seed=5)[0]


def exact_answers(model, texts, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setenv(fast_inference.VARIABLE, "0")
        return predict_proba(model, texts)


def verdict_of(model) -> tuple[str, Verdict | None]:
    path = fast_inference.fast_path_for(model.model, PROBABILITIES, "cpu")
    assert path is not None
    return path.key, read_verdict(path.key)


def test_fast_answers_match_the_exact_ones(model, texts, monkeypatch):
    exact = exact_answers(model, texts, monkeypatch)
    events: list = []
    fast = predict_proba(model, texts, events.append)
    assert fast.shape == exact.shape and np.allclose(fast.sum(axis=1), 1.0)
    assert np.abs(fast - exact).max() <= 0.02
    assert (fast.argmax(axis=1) == exact.argmax(axis=1)).mean() >= 0.995
    logs = [e.message for e in events if isinstance(e, Log)]
    assert any("Answering with 16-bit numbers" in m and "64 texts" in m for m in logs), logs
    _, verdict = verdict_of(model)
    assert verdict is not None and verdict.same_answers and verdict.compared == 64
    again = predict_proba(model, texts)  # now the fast way, with a few texts still compared
    assert np.abs(again - exact).max() <= 0.02
    assert not np.array_equal(again, exact)  # 16-bit numbers do round differently


def test_the_verdict_is_kept_and_checked_again_when_its_file_is_broken(model, texts, monkeypatch):
    calls: list[tuple[int, bool]] = []
    original = fast_inference._compare

    def counting(run, sample, lengths, check, *args):
        calls.append((len(sample), check.verdict is None))
        return original(run, sample, lengths, check, *args)

    monkeypatch.setattr(fast_inference, "_compare", counting)
    predict_proba(model, texts)
    assert calls == [(64, True)]  # the first call checks 64 texts
    key, verdict = verdict_of(model)
    stored = verdict_path(key).read_text(encoding="utf-8")
    fast_inference.forget_checks()  # a new session: the stored verdict is used, only a few texts compared
    calls.clear()
    predict_proba(model, texts)
    assert calls == [(math.ceil(150 * fast_inference.SPOT_SHARE), False)]
    verdict_path(key).write_text('{"format": 1, "same_answers": "yes"', encoding="utf-8")  # broken
    fast_inference.forget_checks()
    calls.clear()
    predict_proba(model, texts)
    assert calls == [(64, True)]  # checked afresh …
    again = read_verdict(key)  # … and stored again
    assert again is not None and (again.same_answers, again.compared) == (verdict.same_answers, verdict.compared)
    assert stored != '{"format": 1, "same_answers": "yes"'


def test_a_small_first_call_is_checked_with_texts_shipped_with_textlab(model, texts):
    """Explaining one document can be a model's first use: its check still compares 64 texts (the
    bundled example's bill titles), so the verdict holds from the first answer on."""
    assert len(fast_inference.reference_texts(200)) == 200
    events: list = []
    answers = predict_proba(model, texts[:3], events.append)
    assert answers.shape == (3, 3)
    _, verdict = verdict_of(model)
    assert verdict is not None and verdict.same_answers and verdict.compared == 64
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress[-1].done == 3 and progress[-1].total == 3 and progress[-1].fraction == 1.0  # only the user's
    assert fast_inference.extra_texts(fast_inference.fast_path_for(model.model, PROBABILITIES, "cpu"), 3) == []


def test_the_switch_and_the_model_setting_keep_answers_exact(model, texts, monkeypatch, tmp_path):
    exact = exact_answers(model, texts, monkeypatch)
    monkeypatch.setenv(fast_inference.VARIABLE, "0")
    assert fast_inference.fast_path_for(model.model, PROBABILITIES, "cpu") is None
    events: list = []
    assert np.array_equal(predict_proba(model, texts, events.append), exact)
    assert not [e for e in events if isinstance(e, Log)]
    monkeypatch.setenv(fast_inference.VARIABLE, "1")
    precise = replace(model, settings=replace(SETTINGS, mixed_precision=False))
    assert np.array_equal(predict_proba(precise, texts), exact)
    assert not (tmp_path / "cache" / "fast-answers").exists()  # nothing was even checked
    assert fast_inference.fast_path_for(model.model, PROBABILITIES, "cuda") is None  # a GPU has its own way


def test_automatic_mode_leaves_small_models_and_missing_bfloat16_alone(model, monkeypatch):
    monkeypatch.setenv(fast_inference.VARIABLE, "auto")
    assert fast_inference.switch() == "auto"
    assert fast_inference.fast_path_for(model.model, PROBABILITIES, "cpu") is None  # hidden size 32
    monkeypatch.setattr(model.model.config, "hidden_size", 384)
    monkeypatch.setattr(fast_inference, "native_bfloat16", lambda: False)
    assert fast_inference.fast_path_for(model.model, PROBABILITIES, "cpu") is None
    monkeypatch.setattr(fast_inference, "native_bfloat16", lambda: True)
    path = fast_inference.fast_path_for(model.model, PROBABILITIES, "cpu")
    assert path is not None and not path.forced
    assert not path.uses_fast(Verdict(True, 1.1, 256, "")) and path.uses_fast(Verdict(True, 1.9, 256, ""))
    assert not path.uses_fast(Verdict(False, 3.0, 256, ""))


def test_a_failed_check_gives_exact_answers_and_says_why(model, texts, monkeypatch):
    exact = exact_answers(model, texts, monkeypatch)
    monkeypatch.setattr(Tally, "problem", lambda self: "a probability differed by 0.300 from the exact one")
    events: list = []
    answers = predict_proba(model, texts, events.append)
    np.testing.assert_allclose(answers, exact, rtol=0, atol=1e-6)  # exact (other batches: the last bits differ)
    warnings = [e.message for e in events if isinstance(e, Log) and e.level == "warning"]
    assert len(warnings) == 1 and "not the same as exact ones" in warnings[0] and "0.300" in warnings[0]
    _, verdict = verdict_of(model)
    assert verdict is not None and not verdict.same_answers
    calls: list = []
    monkeypatch.setattr(fast_inference, "_compare", lambda *args: calls.append(args))
    assert np.array_equal(predict_proba(model, texts), exact)  # exact from then on, nothing compared
    assert calls == []


def test_answers_are_computed_again_exactly_when_a_later_check_fails():
    """With a stored verdict the answers come the fast way; when the few compared texts break a
    limit, the whole call is answered again exactly and the verdict changes."""
    n, exact = 200, np.tile([0.7, 0.2, 0.1], (200, 1))
    drifted = exact + np.array([-0.05, 0.05, 0.0])  # the fast way drifts by 0.05: beyond 0.02
    runs: list[tuple[int, bool]] = []

    def run(indices, use_fast, counted):
        runs.append((len(indices), use_fast))
        return (drifted if use_fast else exact)[indices]

    path = fast_inference.FastPath("drift", PROBABILITIES, forced=True)
    write_verdict(path.key, Verdict(True, 2.0, 256, "matched before"))
    events: list = []
    answers = fast_inference.answer(run, n, path, events.append)
    assert np.array_equal(answers, exact)
    k = math.ceil(n * fast_inference.SPOT_SHARE)
    assert runs == [(n - k, True), (k, False), (k, True), (n - k, False)]  # fast, compare k, then exact again
    assert any(isinstance(e, Log) and e.level == "warning" and "computed again" in e.message for e in events)
    assert read_verdict(path.key).same_answers is False
    runs.clear()
    assert np.array_equal(fast_inference.answer(run, n, path, events.append), exact)
    assert runs == [(200, False)]


def test_small_calls_add_up_to_one_check_then_every_text_gets_its_fast_answer():
    exact = np.tile([0.6, 0.4], (64, 1))
    fast = exact + [0.001, -0.001]  # within the limits
    path = fast_inference.FastPath("small calls", PROBABILITIES, forced=True)

    def run(indices, use_fast, counted):
        return (fast if use_fast else exact)[indices]

    for _ in range(3):  # 20 texts a call: compared, answered exactly, no verdict yet
        assert np.array_equal(fast_inference.answer(run, 20, path, lambda e: None), exact[:20])
        assert read_verdict(path.key) is None
    # 4 more texts complete the 64: from now on every text gets its fast answer, the compared ones too
    assert np.array_equal(fast_inference.answer(run, 20, path, lambda e: None), fast[:20])
    verdict = read_verdict(path.key)
    assert verdict is not None and verdict.same_answers and verdict.compared == 64
    assert np.array_equal(fast_inference.answer(run, 64, path, lambda e: None), fast)


def test_not_faster_is_kept_for_this_session_only():
    """In automatic mode, 16-bit answers that match but are not faster are not used; as a busy
    moment can cause that, it is not stored, and the next session measures again."""
    import time

    exact = np.tile([0.6, 0.4], (64, 1))
    path = fast_inference.FastPath("not faster", PROBABILITIES, forced=False)
    runs: list[bool] = []

    def run(indices, use_fast, counted):
        runs.append(use_fast)
        if use_fast:
            time.sleep(0.01)
        return exact[indices]

    events: list = []
    assert np.array_equal(fast_inference.answer(run, 64, path, events.append), exact)
    assert any("not faster" in e.message for e in events if isinstance(e, Log))
    assert read_verdict(path.key) is None
    runs.clear()
    fast_inference.answer(run, 64, path, events.append)
    assert runs == [False]  # exact at once for the rest of this session


def test_tally_limits():
    tally = Tally(PROBABILITIES)
    exact = np.tile([0.5, 0.3, 0.2], (300, 1))
    tally.add(exact, exact + [0.01, -0.01, 0.0])
    assert tally.problem() is None and tally.compared == 300
    flipped = exact.copy()
    flipped[:2] = [0.3, 0.5, 0.2]  # 2 of 300 change category: 0.7 %, but also 0.2 apart
    tally.add(exact, flipped)
    assert "differed by 0.200" in tally.problem()
    rate = Tally(PROBABILITIES)
    close = np.tile([0.501, 0.499], (300, 1))
    swapped = close.copy()
    swapped[:2] = [0.499, 0.501]
    rate.add(close[:200], swapped[:200])
    assert rate.changed == 2 and rate.problem() is None  # 1 % of 200 texts: too few texts to judge a share …
    rate.add(close, close)
    assert rate.problem() is None  # … 2 of 500 = 0.4 % is within the limit
    rate.add(close[:1], swapped[:1])
    assert "3 of 501 texts got another category" in rate.problem()
    nan = Tally(PROBABILITIES)
    nan.add(close[:2], np.full((2, 2), np.nan))
    assert nan.problem() is not None
    vectors = Tally(EMBEDDINGS)
    base = np.random.default_rng(0).standard_normal((20, 8))
    vectors.add(base, base * 3.0)  # the same direction: the same embedding
    assert vectors.problem() is None and vectors.lowest_cosine == pytest.approx(1.0)
    vectors.add(base, base + 0.2)
    assert "cosine similarity" in vectors.problem()
    with pytest.raises(ValueError):
        Tally("logits")


def test_embeddings_are_checked_the_same_way(tmp_path, monkeypatch):
    from guiapp.core.features.sentence_embeddings import SentenceEmbeddings
    from tests.tiny_bert import save_tiny_bert

    folder = save_tiny_bert(tmp_path / "model", tiny_tokenizer(tmp_path / "vocabulary", [*WORDS, *KEYWORDS.values()]))
    texts = toy_task(80, seed=2)[0]
    representation = SentenceEmbeddings(model=str(folder), max_length=32)
    events: list = []
    fast = representation.prepare(texts, events.append, cache=False).matrix
    assert any(isinstance(e, Log) and "Answering with 16-bit numbers" in e.message and "cosine" in e.message
               for e in events)
    monkeypatch.setenv(fast_inference.VARIABLE, "0")
    exact = representation.prepare(texts, cache=False).matrix
    cosine = (fast * exact).sum(axis=1) / np.linalg.norm(fast, axis=1) / np.linalg.norm(exact, axis=1)
    assert cosine.min() >= 0.999
    exact_key = representation._cache_key("id", texts)  # switched off, cached vectors are exact ones only
    monkeypatch.setenv(fast_inference.VARIABLE, "auto")
    assert representation._cache_key("id", texts) != exact_key
