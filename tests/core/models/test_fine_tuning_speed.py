"""The fine-tuning speed-ups change how fast, not what is learned: first-token last layer, used
vocabulary, CPU threads from the free cores, lagged loss reading, padding to multiples of 8."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from guiapp.core.events import Log, Metric, Progress
from guiapp.core.models.transformers.fine_tuning import fine_tune, predict_proba
from guiapp.core.models.transformers.training import cpu_threads
from guiapp.core.models.transformers.training.batches import (
    collate,
    padded_length,
    split,
)
from guiapp.core.models.transformers.training.cpu_threads import (
    CpuThreads,
    Sample,
    choose,
    others_busy,
    quota_cores,
)
from guiapp.core.models.transformers.training.first_token import (
    first_token_only,
    supports_first_token,
)
from guiapp.core.models.transformers.training.loop import Outcome, _Reporter
from guiapp.core.models.transformers.training.speed_switches import SpeedSwitches
from guiapp.core.models.transformers.training.used_vocabulary import UsedVocabulary
from tests.core.models.test_transformer_training import CPU, KEYWORDS, WORDS, toy_task
from tests.tiny_bert import save_tiny_bert, tiny_bert, tiny_tokenizer


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    tokenizer = tiny_tokenizer(root / "vocabulary", [*WORDS, *KEYWORDS.values()])
    return save_tiny_bert(root / "tiny bert", tokenizer)


def padded_batch(vocab: int = 60, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, vocab, (4, 11), generator=generator)
    mask = torch.ones_like(ids)
    mask[1, 7:] = 0  # texts of different lengths: padding the first token must not see
    mask[3, 3:] = 0
    ids[mask == 0] = 0
    return ids, mask, torch.tensor([0, 1, 2, 1])


def tiny_roberta(vocab: int = 60):
    from transformers import RobertaConfig, RobertaForSequenceClassification

    config = RobertaConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                           intermediate_size=64, max_position_embeddings=40, num_labels=3, pad_token_id=1,
                           hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    torch.manual_seed(3)
    return RobertaForSequenceClassification(config)


def gradients(model, parameters, ids, mask, labels) -> dict[str, torch.Tensor]:
    """Each weight's gradient, by its name outside the first-token block."""
    model.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(input_ids=ids, attention_mask=mask).logits, labels)
    loss.backward()
    return {name: p.grad.clone() for name, p in parameters.items() if p.grad is not None}


@pytest.mark.parametrize("build", [lambda: tiny_bert(60, 3, dropout=0.0), tiny_roberta], ids=["bert", "roberta"])
def test_first_token_layer_gives_the_same_logits_and_gradients(build):
    model = build()
    ids, mask, labels = padded_batch()
    names = list(model.state_dict())
    model.eval()
    with torch.no_grad():
        full = model(input_ids=ids, attention_mask=mask).logits
        with first_token_only(model) as used:
            short = model(input_ids=ids, attention_mask=mask).logits
            unmasked = model(input_ids=ids).logits  # no mask at all is handled too
    assert used
    torch.testing.assert_close(short, full, rtol=1e-5, atol=1e-6)
    with torch.no_grad():
        torch.testing.assert_close(unmasked, model(input_ids=ids).logits, rtol=1e-5, atol=1e-6)
    model.train()  # dropout is 0: training gives the same gradients, for every weight
    parameters = dict(model.named_parameters())
    expected = gradients(model, parameters, ids, mask, labels)
    with first_token_only(model):
        got = gradients(model, parameters, ids, mask, labels)
    assert got.keys() == expected.keys()
    for name in expected:
        torch.testing.assert_close(got[name], expected[name], rtol=1e-4, atol=1e-6, msg=name)
    assert list(model.state_dict()) == names  # the original layer is back: the model saves as before


def test_first_token_layer_is_not_used_where_it_would_change_the_result():
    model = tiny_bert(60, 3)
    model.config.position_embedding_type = "relative_key"  # positions enter the attention scores
    assert not supports_first_token(model)
    from transformers import BertConfig, BertForTokenClassification

    tagger = BertForTokenClassification(BertConfig(vocab_size=60, hidden_size=32, num_hidden_layers=1,
                                                   num_attention_heads=2, intermediate_size=64))
    with first_token_only(tagger) as used:  # reads every token
        assert not used
    with first_token_only(tiny_bert(60, 3), enabled=False) as used:
        assert not used


def test_first_token_layer_keeps_dropout_in_training_and_not_in_prediction():
    model = tiny_bert(60, 3, dropout=0.5)
    ids, mask, _ = padded_batch()
    model.eval()
    with torch.no_grad(), first_token_only(model):
        assert torch.equal(model(input_ids=ids, attention_mask=mask).logits,
                           model(input_ids=ids, attention_mask=mask).logits)
    model.train()
    with torch.no_grad(), first_token_only(model):
        assert not torch.equal(model(input_ids=ids, attention_mask=mask).logits,
                               model(input_ids=ids, attention_mask=mask).logits)


def test_used_vocabulary_trains_only_used_rows_and_writes_them_back(tiny, monkeypatch):
    texts, labels = toy_task(48, seed=5)
    settings = replace(CPU, epochs=2, dropout=0.0)
    monkeypatch.setenv("TEXTLAB_FINE_TUNING_OFF", "first_token")  # this speed-up alone
    used = fine_tune(tiny, texts, labels, 3, settings)
    monkeypatch.setenv("TEXTLAB_FINE_TUNING_OFF", "first_token,vocabulary")
    full = fine_tune(tiny, texts, labels, 3, settings)
    np.testing.assert_allclose(used.losses, full.losses, rtol=1e-5)
    a = used.model.get_input_embeddings().weight
    b = full.model.get_input_embeddings().weight
    assert a.shape == b.shape  # the whole table is back in the model
    torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def test_used_vocabulary_leaves_unused_rows_and_restores_the_table():
    model = tiny_bert(60, 3, dropout=0.0)
    original = model.get_input_embeddings()
    before = original.weight.detach().clone()
    texts = [[2, 7, 9, 3], [2, 9, 11, 12, 3]]
    vocabulary = UsedVocabulary(model, texts, pad_id=0, weight_decay=0.0)
    assert vocabulary.active and vocabulary.rows == 7  # 2, 3, 7, 9, 11, 12 and the padding token 0
    renumbered = vocabulary.renumber(texts)
    assert [list(row) for row in renumbered] == [[1, 3, 4, 2], [1, 4, 5, 6, 2]] and vocabulary.pad_id(0) == 0
    with torch.no_grad():
        model.get_input_embeddings().weight.add_(1.0)  # "training" moves the used rows
    vocabulary.restore()
    assert model.get_input_embeddings() is original
    rows = [0, 2, 3, 7, 9, 11, 12]
    unused = [i for i in range(60) if i not in rows]
    assert torch.equal(original.weight[unused], before[unused])
    torch.testing.assert_close(original.weight[rows], before[rows] + 1.0)


def test_used_vocabulary_is_not_used_with_weight_decay_or_a_shared_table():
    texts = [[2, 7, 3]]
    assert not UsedVocabulary(tiny_bert(60, 3), texts, 0, weight_decay=0.01).active
    assert not UsedVocabulary(tiny_bert(60, 3), texts, 0, weight_decay=0.0, enabled=False).active
    model = tiny_bert(60, 3)
    model.classifier.weight = model.bert.embeddings.word_embeddings.weight  # (60, 32): shapes fit a head of 60
    vocabulary = UsedVocabulary(model, texts, 0, weight_decay=0.0)
    assert not vocabulary.active and vocabulary.renumber(texts) == texts and vocabulary.pad_id(0) == 0


def test_speed_switches_come_from_the_environment(monkeypatch):
    monkeypatch.delenv("TEXTLAB_FINE_TUNING_OFF", raising=False)
    assert SpeedSwitches.from_environment() == SpeedSwitches()
    monkeypatch.setenv("TEXTLAB_FINE_TUNING_OFF", " first_token, LAG ,unknown")
    switches = SpeedSwitches.from_environment()
    assert not switches.first_token and not switches.lag and switches.vocabulary and switches.threads
    monkeypatch.setenv("TEXTLAB_FINE_TUNING_OFF", "all")
    assert not any(vars(SpeedSwitches.from_environment()).values())
    assert SpeedSwitches().pad_multiple("cuda") == 8 and SpeedSwitches().pad_multiple("cpu") == 1
    assert SpeedSwitches(pad8=False).pad_multiple("cuda") == 1


def test_padding_to_a_multiple_stays_within_the_limit():
    assert [padded_length(n, 8, 30) for n in (1, 8, 9, 25, 30)] == [8, 8, 16, 30, 30]
    assert padded_length(13, 1, None) == 13 and padded_length(13, 8, None) == 16
    rows = [[2, 5, 3], [2, 5, 6, 7, 8, 9, 10, 11, 12, 3]]
    batch = collate(rows, np.array([0, 1]), 0, np.array([0, 1]), multiple=8, limit=12)
    assert tuple(batch.input_ids.shape) == (2, 12)  # 10 tokens → 16, but no text is longer than 12
    assert batch.attention_mask.sum().item() == 13 and batch.input_ids[0, 3:].eq(0).all()
    parts = split(batch, 1, multiple=8)
    assert [tuple(p.input_ids.shape) for p in parts] == [(1, 8), (1, 12)]


def test_lagged_reporting_reads_each_loss_one_step_later_in_order():
    events: list = []
    reporter = _Reporter(Outcome(), total=3, epochs=1, on_event=events.append)
    reporter.queue(torch.tensor(1.5), 1, 16)
    assert events == []  # on a GPU, step 1's loss waits until step 2 is queued
    reporter.queue(torch.tensor(1.0), 1, 16)
    reporter.queue(torch.tensor(0.5), 1, 8)
    assert [e.value for e in events if isinstance(e, Metric)] == [1.5, 1.0]
    reporter.flush()
    reporter.epoch_done(1)
    assert [e.step for e in events if isinstance(e, Metric)] == [1, 2, 3]
    assert reporter.outcome.losses == [1.5, 1.0, 0.5] and reporter.seen == 40
    assert [e.done for e in events if isinstance(e, Progress)] == [1, 2, 3]
    assert isinstance(events[-1], Log) and "mean loss 1.000 (3 steps" in events[-1].message


def test_predictions_are_the_same_with_and_without_the_speed_ups(tiny, monkeypatch):
    texts, labels = toy_task(32, seed=2)
    model = fine_tune(tiny, texts, labels, 3, replace(CPU, epochs=1))
    fast = predict_proba(model, texts)
    monkeypatch.setenv("TEXTLAB_FINE_TUNING_OFF", "all")
    np.testing.assert_allclose(predict_proba(model, texts), fast, rtol=1e-5, atol=1e-7)


# -- threads from the free cores -----------------------------------------------------------------
def test_threads_are_the_cores_others_leave_free():
    assert choose(2, 0.0, 2) == 2
    assert choose(2, 0.4, 2) == 2  # a little background work
    assert choose(2, 0.67, 2) == 1  # one busy neighbour, measured while we use both cores
    assert choose(2, 3.5, 2) == 1  # never below one
    assert choose(8, 2.0, 4) == 4  # never above torch's own count
    assert choose(8, 5.2, 8) == 3


def test_others_busy_time_is_the_cores_busy_time_less_our_own():
    before = Sample(at=10.0, cores_busy=100.0, own=20.0)
    assert others_busy(before, Sample(at=14.0, cores_busy=108.0, own=24.0)) == pytest.approx(1.0)
    assert others_busy(before, Sample(at=14.0, cores_busy=108.0, own=28.0)) == 0.0  # never below 0
    assert others_busy(before, Sample(at=10.1, cores_busy=100.2, own=20.0)) is None  # too short to tell
    assert others_busy(before, Sample(at=14.0, cores_busy=None, own=24.0)) is None


def test_container_quota_caps_the_cores(tmp_path):
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert quota_cores(tmp_path) == 1.5
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert quota_cores(tmp_path) is None
    assert quota_cores(tmp_path / "missing") is None


class FakeCores:
    """Two cores; ``others`` is how many other programs keep busy, this process uses none."""

    def __init__(self) -> None:
        self.at, self.busy, self.others = 0.0, 0.0, 0.0

    def advance(self, seconds: float) -> None:
        self.at += seconds
        self.busy += self.others * seconds

    def sample(self, cpus) -> Sample:
        return Sample(self.at, self.busy, 0.0)


def test_threads_follow_the_free_cores_during_a_job_and_are_restored(monkeypatch):
    cores = FakeCores()
    monkeypatch.setattr(cpu_threads, "take_sample", cores.sample)
    monkeypatch.setattr(cpu_threads, "usable_cores", lambda: 2)
    monkeypatch.setattr(cpu_threads.time, "monotonic", lambda: cores.at)
    monkeypatch.setattr(cpu_threads, "_last_seen", None)
    monkeypatch.delenv("TEXTLAB_CPU_THREADS", raising=False)
    monkeypatch.setattr(torch, "get_num_threads", lambda: state["threads"])
    monkeypatch.setattr(torch, "set_num_threads", lambda n: state.update(threads=n))
    state = {"threads": 2}
    governor = CpuThreads(recheck_seconds=4.0)
    cores.others = 1.0
    cores.advance(1.0)  # the model loads while one neighbour keeps a core busy
    with governor:
        assert state["threads"] == 1
        cores.others = 0.0
        cores.advance(2.0)
        assert governor.tick() == 1  # not yet time to look again
        cores.advance(3.0)
        assert governor.tick() == 2  # the neighbour has gone
        cores.others = 3.0
        cores.advance(5.0)
        assert governor.tick() == 1
        assert governor.describe() == "1 to 2 threads on 2 cores (fewer while other programs kept cores busy)"
        assert governor.slowed
    assert state["threads"] == 2  # torch's own count again after the job
    assert [threads for _, _, threads in governor.history] == [1, 2, 1]


def test_pinned_threads_are_used_as_they_are(monkeypatch):
    monkeypatch.setenv("TEXTLAB_CPU_THREADS", "3")
    monkeypatch.setattr(torch, "get_num_threads", lambda: state["threads"])
    monkeypatch.setattr(torch, "set_num_threads", lambda n: state.update(threads=n))
    state = {"threads": 2}
    with CpuThreads() as governor:
        assert state["threads"] == 3 and governor.tick(force=True) == 3
        assert "TEXTLAB_CPU_THREADS" in governor.describe() and not governor.slowed
    assert state["threads"] == 2


def test_fine_tuning_logs_its_threads(tiny):
    texts, labels = toy_task(16, seed=3)
    events: list = []
    fine_tune(tiny, texts, labels, 3, replace(CPU, epochs=1), on_event=events.append)
    logs = [e.message for e in events if isinstance(e, Log)]
    assert any(m.startswith("Computing with ") and " thread" in m for m in logs)
    assert torch.get_num_threads() >= 1
