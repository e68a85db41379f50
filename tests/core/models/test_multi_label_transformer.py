"""A fine-tuned Transformer for texts that can have several categories: a 0/1 label matrix makes a
multi-label model (binary cross-entropy per category, a sigmoid probability per category), which
saves and reopens with the same answers and thresholds, and whose faster 16-bit answers are checked
on its sets of categories. A tiny randomly initialised BERT keeps every test to about a second."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from guiapp.core.errors import UserError
from guiapp.core.events import Log
from guiapp.core.models.transformers import fast_inference
from guiapp.core.models.transformers.answer_agreement import MULTI_LABEL_PROBABILITIES, PROBABILITIES, Tally
from guiapp.core.models.transformers.answer_verdicts import read_verdict
from guiapp.core.models.transformers.fine_tuning import (
    decide,
    fine_tune,
    load_fine_tuned,
    predict_proba,
    save_fine_tuned,
)
from guiapp.core.models.transformers.sources.files import LABELS_FILE
from guiapp.core.models.transformers.training.batches import collate
from guiapp.core.models.transformers.training.loop import batch_loss
from guiapp.core.models.transformers.training.settings import FineTuneSettings
from guiapp.core.predict.open_model import open_trained_model
from tests.core.models.test_transformer_training import WORDS
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

KEYWORDS = ["zebra", "piano", "tiger"]
CATEGORIES = ["animals", "music", "cats"]
CPU = FineTuneSettings(device="cpu", max_length=64, learning_rate=1e-2, epochs=2, dropout=0.0)


def label_sets(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Texts of common words; each keyword, present or not on its own, marks its category (so a text
    can have none, one or several categories)."""
    rng = random.Random(seed)
    texts, labels = [], np.zeros((n, len(KEYWORDS)), dtype=np.uint8)
    for i in range(n):
        words = rng.choices(WORDS, k=rng.randint(4, 16))
        for k, keyword in enumerate(KEYWORDS):
            if rng.random() < 0.4:
                words.insert(rng.randrange(len(words) + 1), keyword)
                labels[i, k] = 1
        texts.append(" ".join(words))
    return texts, labels


@pytest.fixture(autouse=True)
def exact_answers(monkeypatch, tmp_path):
    """Exact (32-bit) answers and an empty verdict cache, unless a test asks for the fast way."""
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(fast_inference.VARIABLE, "0")
    fast_inference.forget_checks()
    yield
    fast_inference.forget_checks()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return save_tiny_bert(root / "tiny bert", tiny_tokenizer(root / "vocabulary", [*WORDS, *KEYWORDS]))


@pytest.fixture(scope="module")
def trained(tiny):
    texts, labels = label_sets(48, seed=1)
    return fine_tune(tiny, texts, labels, len(KEYWORDS), CPU)


def test_a_label_matrix_makes_a_multi_label_model_with_sigmoid_probabilities(trained):
    assert trained.multi_label and trained.n_labels == 3
    assert trained.model.config.problem_type == "multi_label_classification"
    texts, _ = label_sets(20, seed=2)
    probabilities = predict_proba(trained, texts)
    assert probabilities.shape == (20, 3) and ((probabilities > 0) & (probabilities < 1)).all()
    assert not np.allclose(probabilities.sum(axis=1), 1.0, atol=1e-3)  # independent per category
    with torch.no_grad():  # each category's own sigmoid of the network's logits, in any batch order
        encoded = trained.tokenizer(texts, padding=True, return_tensors="pt")
        logits = trained.model(**encoded).logits
    np.testing.assert_allclose(probabilities, torch.sigmoid(logits).numpy(), atol=1e-5)
    decisions = decide(trained, probabilities)
    assert decisions.dtype == np.uint8 and np.array_equal(decisions, probabilities >= 0.5)


def test_the_loss_is_binary_cross_entropy_per_category(tiny):
    logits = torch.tensor([[2.0, -1.0, 0.5], [0.0, 3.0, -2.0]])
    matrix = torch.tensor([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    expected = F.binary_cross_entropy_with_logits(logits, matrix)  # the mean over texts and categories
    assert batch_loss(logits, matrix, 2).item() == pytest.approx(expected.item())
    halves = batch_loss(logits[:1], matrix[:1], 2) + batch_loss(logits[1:], matrix[1:], 2)  # micro-batches add up
    assert halves.item() == pytest.approx(expected.item())
    indices = torch.tensor([0, 1])
    assert batch_loss(logits, indices, 2).item() == pytest.approx(F.cross_entropy(logits, indices).item())
    batch = collate([[1, 2], [3]], np.array([0, 1]), 0, np.array([[1, 0, 1], [0, 1, 0]], dtype=np.uint8))
    assert batch.labels.dtype == torch.float32 and batch.labels.tolist() == [[1, 0, 1], [0, 1, 0]]

    # every text has the first two categories and never the third: only a loss per category (not a
    # softmax over the categories, whose probabilities share 1) can give both of them more than 0.5
    texts, _ = label_sets(32, seed=3)
    labels = np.tile(np.array([1, 1, 0], dtype=np.uint8), (32, 1))
    model = fine_tune(tiny, texts, labels, 3, replace(CPU, epochs=4))
    probabilities = predict_proba(model, label_sets(10, seed=4)[0])
    assert (probabilities[:, :2] > 0.6).all() and (probabilities[:, 2] < 0.4).all()
    assert model.losses[-1] < model.losses[0]


def test_labels_that_do_not_fit_are_refused(tiny):
    texts, labels = label_sets(4, seed=5)
    with pytest.raises(ValueError, match="columns"):
        fine_tune(tiny, texts, labels, 4, CPU)
    with pytest.raises(ValueError, match="only 0 and 1"):
        fine_tune(tiny, texts, labels * 2, 3, CPU)


def test_saved_and_reopened_it_gives_the_same_probabilities_and_thresholds(trained, tmp_path):
    texts, _ = label_sets(25, seed=6)
    before = predict_proba(trained, texts)
    folder = tmp_path / "label sets"
    save_fine_tuned(trained, folder, CATEGORIES, thresholds=[0.3, 0.5, 0.7])
    meta = json.loads((folder / LABELS_FILE).read_text(encoding="utf-8"))
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert meta["multi_label"] is True and meta["thresholds"] == [0.3, 0.5, 0.7]
    assert config["problem_type"] == "multi_label_classification"
    reopened, categories = load_fine_tuned(folder)
    assert categories == CATEGORIES and reopened.multi_label and reopened.thresholds == [0.3, 0.5, 0.7]
    after = predict_proba(reopened, texts)
    np.testing.assert_allclose(after, before, atol=1e-5)

    opened = open_trained_model(folder, "label sets")  # as the Predict step opens it
    assert opened.multi_label
    decisions, probabilities = opened.answer(texts)
    np.testing.assert_allclose(probabilities, before, atol=1e-5)
    assert np.array_equal(decisions, (probabilities >= [0.3, 0.5, 0.7]).astype(np.uint8))


def test_a_single_label_model_saves_as_before(tiny, tmp_path):
    texts, labels = label_sets(12, seed=7)
    model = fine_tune(tiny, texts, labels.argmax(axis=1), 3, replace(CPU, epochs=1))
    assert not model.multi_label and model.model.config.problem_type != "multi_label_classification"
    np.testing.assert_allclose(predict_proba(model, texts).sum(axis=1), 1.0, atol=1e-9)
    with pytest.raises(ValueError, match="several categories"):
        save_fine_tuned(model, tmp_path / "one", CATEGORIES, thresholds=[0.5, 0.5, 0.5])
    save_fine_tuned(model, tmp_path / "one", CATEGORIES)
    meta = json.loads((tmp_path / "one" / LABELS_FILE).read_text(encoding="utf-8"))
    assert "multi_label" not in meta and "thresholds" not in meta
    assert load_fine_tuned(tmp_path / "one")[0].thresholds == []


@pytest.mark.parametrize("change", [{"multi_label": "no"}, {"thresholds": [0.5, 2.0, 0.5]}, {"thresholds": [0.5]}])
def test_a_damaged_label_file_is_refused_in_words(trained, tmp_path, change):
    folder = tmp_path / "model"
    save_fine_tuned(trained, folder, CATEGORIES)
    meta = json.loads((folder / LABELS_FILE).read_text(encoding="utf-8"))
    assert meta["thresholds"] == [0.5, 0.5, 0.5]  # none tuned: 0.5 each
    (folder / LABELS_FILE).write_text(json.dumps({**meta, **change}), encoding="utf-8")
    with pytest.raises(UserError, match="cannot use"):
        load_fine_tuned(folder)


def test_faster_answers_are_checked_on_the_sets_of_categories(trained, monkeypatch):
    monkeypatch.setenv(fast_inference.VARIABLE, "1")  # the tiny model gains no speed: ask for it anyway
    monkeypatch.setattr(fast_inference, "CHECK_TEXTS", 64)
    texts, _ = label_sets(80, seed=8)
    with monkeypatch.context() as patch:
        patch.setenv(fast_inference.VARIABLE, "0")
        exact = predict_proba(trained, texts)
    events: list = []
    fast = predict_proba(trained, texts, events.append)
    assert np.abs(fast - exact).max() <= 0.02 and not np.allclose(fast.sum(axis=1), 1.0, atol=1e-3)
    path = fast_inference.fast_path_for(trained.model, MULTI_LABEL_PROBABILITIES, "cpu")
    verdict = read_verdict(path.key)
    assert verdict is not None and verdict.same_answers and "same categories" in verdict.summary
    assert read_verdict(fast_inference.fast_path_for(trained.model, PROBABILITIES, "cpu").key) is None
    assert any(isinstance(e, Log) and "16-bit" in e.message for e in events)


def test_the_tally_of_multi_label_answers_counts_changed_sets_of_categories():
    exact = np.tile([0.505, 0.9, 0.499], (300, 1))
    moved = exact.copy()
    moved[0, 0] = 0.495  # the largest probability stays the same, but one category is no longer decided
    single, multi = Tally(PROBABILITIES), Tally(MULTI_LABEL_PROBABILITIES)
    single.add(exact, moved)
    multi.add(exact, moved)
    assert single.changed == 0 and multi.changed == 1 and multi.problem() is None  # 0.3 %: within the limit
    moved[1, 0], moved[2, 2] = 0.495, 0.501  # a category lost, a category gained
    multi.add(exact[:3], moved[:3])
    assert "4 of 303 texts got another set of categories" in multi.problem()


def test_a_model_saved_before_multi_label_ones_opens_as_one_category_per_text(trained, tmp_path):
    folder = tmp_path / "older"
    save_fine_tuned(trained, folder, CATEGORIES)  # its configuration says multi-label, as a hub model's might
    meta = json.loads((folder / LABELS_FILE).read_text(encoding="utf-8"))
    del meta["multi_label"], meta["thresholds"]  # as every label file written before multi-label models
    (folder / LABELS_FILE).write_text(json.dumps(meta), encoding="utf-8")
    reopened, _ = load_fine_tuned(folder)
    assert not reopened.multi_label and reopened.thresholds == []
    np.testing.assert_allclose(predict_proba(reopened, ["zebra piano"]).sum(axis=1), 1.0, atol=1e-9)


def test_each_category_s_texts_are_weighted_against_those_without_it():
    from guiapp.core.models.transformers.training.loop import MAX_POSITIVE_WEIGHT, batch_loss, positive_weights

    labels = np.array([[1, 0, 1, 0], [0, 0, 1, 0], [0, 0, 1, 0], [0, 0, 1, 1]] * 50, dtype=np.uint8)
    labels[0, 3] = 1
    weights = positive_weights(labels)
    assert weights[0] == pytest.approx(3.0)  # 150 without, 50 with
    assert weights[1] == 1.0 and weights[2] == 1.0  # nobody / everybody has it: nothing to weigh
    assert weights[3] == pytest.approx(149 / 51)
    rare = np.zeros((1000, 1), dtype=np.uint8)
    rare[0] = 1
    assert positive_weights(rare)[0] == MAX_POSITIVE_WEIGHT
    logits = torch.randn(8, 4)
    targets = torch.tensor(labels[:8], dtype=torch.float32)
    weight = torch.tensor(weights, dtype=torch.float32)
    expected = F.binary_cross_entropy_with_logits(logits, targets, pos_weight=weight, reduction="mean")
    assert float(batch_loss(logits, torch.tensor(labels[:8]), 8, weight)) == pytest.approx(float(expected), rel=1e-6)
