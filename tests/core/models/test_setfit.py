"""SetFit: SetFit's pair sampling, contrastive fine-tuning of a sentence model, the logistic-regression
head, saving and opening — on a tiny randomly initialised BERT saved to a temporary folder (a
training run takes about a second), for one category per text and for several."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import replace

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Log, Metric, Progress
from guiapp.core.models.setfit import SETFIT_FILE, SetFitSettings, load_setfit, train_setfit
from guiapp.core.models.setfit import pairs as pair_sampling
from guiapp.core.models.setfit.head import fit_head
from guiapp.core.models.setfit.pairs import sample_pairs, similar
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

FILLER = ["the", "a", "of", "and", "on", "today", "news", "report"]
KEYWORDS = [["economy", "tax", "market"], ["sport", "goal", "football"], ["health", "doctor", "hospital"]]
NAMES = ["Economy", "Sport", "Health"]
TINY = SetFitSettings(epochs=2, pairs_per_text=4, learning_rate=1e-3, max_length=32, device="cpu", seed=3)


def toy_task(n: int = 30, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """Short texts: each holds two keywords of its category among filler words."""
    rng = random.Random(seed)
    texts, labels = [], []
    for i in range(n):
        label = i % 3
        words = rng.choices(FILLER, k=rng.randint(2, 5)) + rng.sample(KEYWORDS[label], 2)
        rng.shuffle(words)
        texts.append(" ".join(words))
        labels.append(label)
    return texts, np.array(labels)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("setfit")
    tokenizer = tiny_tokenizer(root / "vocabulary", FILLER + [w for words in KEYWORDS for w in words])
    return save_tiny_bert(root / "tiny sentence model", tokenizer)


@pytest.fixture(scope="module")
def trained(tiny):
    texts, labels = toy_task()
    events: list = []
    model = train_setfit(texts, labels, 3, TINY, tiny, events.append, categories=NAMES)
    return model, events


# ------------------------------------------------------------------------------------ pairs
def test_pairs_follow_setfit_sampling():
    labels = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 1])
    pairs = sample_pairs(labels, 3, np.random.default_rng(0))
    assert len(pairs) == 2 * 3 * len(labels) and pairs.n_similar == 3 * len(labels)
    assert set(np.unique(pairs.target)) == {0.0, 1.0}
    same = labels[pairs.first] == labels[pairs.second]
    assert np.array_equal(same, pairs.target == 1.0)
    assert (pairs.first <= pairs.second).all()
    # no dissimilar combination comes twice while others are left (33 of them, 30 wanted)
    negatives = {(a, b) for a, b, t in zip(pairs.first, pairs.second, pairs.target, strict=True) if t == 0}
    assert len(negatives) == 30
    # similar combinations (a text with itself too: 6 + 6 + 10 = 22) are all used, then again
    positives = [(a, b) for a, b, t in zip(pairs.first, pairs.second, pairs.target, strict=True) if t == 1]
    assert len(set(positives)) == 22 and (5, 5) in positives
    again = sample_pairs(labels, 3, np.random.default_rng(0))
    assert np.array_equal(again.first, pairs.first) and np.array_equal(again.second, pairs.second)
    other = sample_pairs(labels, 3, np.random.default_rng(1))
    assert not np.array_equal(other.first, pairs.first)


def test_pairs_of_many_texts_are_drawn_at_random(monkeypatch):
    monkeypatch.setattr(pair_sampling, "MAX_COMBINATIONS", 10)
    labels = np.arange(40) % 4
    pairs = sample_pairs(labels, 5, np.random.default_rng(2))
    assert len(pairs) == 400 and pairs.n_similar == 200
    assert np.array_equal(labels[pairs.first] == labels[pairs.second], pairs.target == 1.0)


def test_an_epoch_takes_at_most_max_pairs_drawn_at_random():
    labels = np.arange(30) % 3
    full = sample_pairs(labels, 20, np.random.default_rng(4))
    capped = sample_pairs(labels, 20, np.random.default_rng(4), max_pairs=101)
    assert len(full) == 1200 and len(capped) == 100 and capped.n_similar == 50
    assert np.array_equal(labels[capped.first] == labels[capped.second], capped.target == 1.0)
    # a random sample of SetFit's pairs: no combination twice, and from all over the texts
    combinations = set(zip(capped.first.tolist(), capped.second.tolist(), strict=True))
    assert len(combinations) == 100 and len(set(capped.first.tolist()) | set(capped.second.tolist())) > 20
    assert len(sample_pairs(labels, 1, np.random.default_rng(4), max_pairs=1000)) == 60  # below the cap: as SetFit


def test_several_categories_are_similar_when_they_overlap_by_half():
    y = np.array([[1, 0, 0], [1, 1, 0], [1, 0, 1], [0, 0, 0], [0, 0, 0], [0, 1, 0]])
    first, second = np.array([0, 1, 3, 0, 5, 0]), np.array([1, 2, 4, 3, 1, 5])
    assert similar(y, first, second).tolist() == [True, False, True, False, True, False]
    pairs = sample_pairs(y, 2, np.random.default_rng(0))
    assert len(pairs) == 24 and pairs.n_similar == 12


def test_texts_all_in_one_category_give_only_similar_pairs():
    pairs = sample_pairs(np.zeros(5, dtype=int), 2, np.random.default_rng(0))
    assert len(pairs) == 10 and pairs.n_similar == 10


# ------------------------------------------------------------------------------------ head
def test_the_head_answers_as_scikit_learns_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 8))
    for y in (np.repeat([0, 2], 30), np.repeat([0, 1, 3], 20)):
        head = fit_head(X, y, 4, seed=0)
        reference = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000).fit(X, y)
        probabilities = head.predict_proba(X)
        assert np.allclose(probabilities[:, np.unique(y)], reference.predict_proba(X), atol=1e-10)
        absent = np.setdiff1d(np.arange(4), y)
        assert (probabilities[:, absent] == 0).all() and np.allclose(probabilities.sum(axis=1), 1)


def test_a_multi_label_head_answers_each_category_on_its_own():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    y = np.column_stack([np.ones(40), np.zeros(40), X[:, 0] > 0]).astype(np.uint8)
    probabilities = fit_head(X, y, 3, seed=0).predict_proba(X)
    assert (probabilities[:, 0] == 1).all() and (probabilities[:, 1] == 0).all()
    assert ((probabilities[:, 2] > 0.5) == y[:, 2].astype(bool)).mean() > 0.9


# ------------------------------------------------------------------------------------ training
def test_training_reports_every_step_and_the_loss_falls(trained):
    model, events = trained
    steps = 2 * 2 * 4 * 30 // 16  # epochs × 2 × pairs per text × texts / batch
    assert len(model.losses) == steps and model.n_pairs == 240
    assert np.mean(model.losses[-5:]) < 0.6 * np.mean(model.losses[:5])
    metrics = [e for e in events if isinstance(e, Metric)]
    assert [m.step for m in metrics] == list(range(1, steps + 1)) and [m.value for m in metrics] == model.losses
    progress = [e for e in events if isinstance(e, Progress)]
    fractions = [p.fraction for p in progress]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(p.message.startswith("SetFit: epoch 2 of 2, step 30 of 30 · loss ") for p in progress)
    logs = [e.message for e in events if isinstance(e, Log)]
    assert "240 pairs of the 30 coded texts (120 similar, 120 not)" in logs[0]
    assert sum(m.startswith("Epoch ") for m in logs) == 2
    assert model.device == "cpu" and model.categories == NAMES and not model.multi_label


def test_probabilities_of_one_category_per_text(trained):
    model, _ = trained
    texts, labels = toy_task(24, seed=5)
    probabilities = model.predict_proba(texts)
    assert probabilities.shape == (24, 3) and np.allclose(probabilities.sum(axis=1), 1.0)
    assert (model.decide(probabilities) == labels).mean() >= 0.8  # keywords it was trained on
    assert model.predict_proba([]).shape == (0, 3)


def test_same_seed_same_model_and_another_seed_another(tiny):
    texts, labels = toy_task(18)
    settings = replace(TINY, epochs=1, pairs_per_text=2)
    first = train_setfit(texts, labels, 3, settings, tiny)
    second = train_setfit(texts, labels, 3, settings, tiny)
    assert first.losses == second.losses
    assert np.array_equal(first.predict_proba(texts), second.predict_proba(texts))
    other = train_setfit(texts, labels, 3, replace(settings, seed=4), tiny)
    assert other.losses != first.losses


def test_save_and_load_give_the_same_probabilities(trained, tmp_path):
    model, _ = trained
    folder = tmp_path / "setfit model"
    model.save(folder)
    assert (folder / "model.safetensors").is_file() and (folder / "config.json").is_file()
    assert not list(folder.glob("*.bin")) and not list(folder.glob("*.pkl"))
    record = json.loads((folder / SETFIT_FILE).read_text(encoding="utf-8"))
    assert record["categories"] == NAMES and record["multi_label"] is False
    assert all(isinstance(x, float) for x in record["head"]["weights"][0])
    texts, _ = toy_task(12, seed=7)
    loaded = load_setfit(folder)
    assert np.allclose(loaded.predict_proba(texts), model.predict_proba(texts), atol=1e-5, rtol=0)
    assert loaded.settings == model.settings and loaded.losses == model.losses
    model.save(folder, categories=["a", "b", "c"])  # an older model in the folder is replaced whole
    assert load_setfit(folder).categories == ["a", "b", "c"]
    assert [p.name for p in tmp_path.iterdir()] == ["setfit model"]


@pytest.mark.parametrize("damage, reason", [
    ("not json", "not valid JSON"), ("newer format", "newer version of TextLab"),
    ("weights of another size", "weights are not 3 rows of 32"), ("categories missing", "categories do not fit"),
    ("a changed weights file", "model.safetensors: the checksum"), ("a missing file", "“config.json” is missing"),
    ("settings of the wrong kind", "epochs (passes over the pairs of texts) must be a whole number"),
    ("thresholds for one category per text", "thresholds for a model of one category per text"),
])
def test_a_damaged_folder_is_refused_in_words(trained, tmp_path, damage, reason):
    model, _ = trained
    folder = tmp_path / "model"
    model.save(folder)
    path = folder / SETFIT_FILE
    record = json.loads(path.read_text(encoding="utf-8"))
    if damage == "not json":
        path.write_text("{ this is not json", encoding="utf-8")
    elif damage == "a changed weights file":
        with open(folder / "model.safetensors", "r+b") as handle:
            handle.seek(-4, 2)
            handle.write(b"\0\0\0\0")
    elif damage == "a missing file":
        (folder / "config.json").unlink()
    else:
        if damage == "newer format":
            record["format_version"] = 99
        elif damage == "weights of another size":
            record["head"]["weights"][0] = record["head"]["weights"][0][:-1]
        elif damage == "categories missing":
            record["categories"] = record["categories"][:2]
        elif damage == "settings of the wrong kind":
            record["settings"]["epochs"] = "two"
        else:
            record["thresholds"] = [0.5, 0.5, 0.5]
        path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(UserError) as caught:
        load_setfit(folder)
    assert "SetFit model" in caught.value.message and caught.value.hint
    assert reason in caught.value.message + caught.value.details


def test_several_categories_per_text(tiny, tmp_path):
    texts, labels = toy_task(24, seed=2)
    y = np.zeros((24, 4), dtype=np.uint8)
    y[np.arange(24), labels] = 1
    y[::4, 1] = 1  # some texts have two categories
    y[:, 3] = 1  # every text has the last category
    model = train_setfit(texts, y, 4, replace(TINY, epochs=1), tiny)
    assert model.multi_label
    probabilities = model.predict_proba(texts)
    assert probabilities.shape == (24, 4) and not np.allclose(probabilities.sum(axis=1), 1.0)
    assert (probabilities[:, 3] == 1.0).all()
    decisions = model.decide(probabilities)
    assert decisions.shape == (24, 4) and set(np.unique(decisions)) <= {0, 1}
    model.save(tmp_path / "m", thresholds=[0.3, 0.4, 0.5, 0.6])
    loaded = load_setfit(tmp_path / "m")
    assert loaded.thresholds == [0.3, 0.4, 0.5, 0.6]
    assert np.allclose(loaded.predict_proba(texts), probabilities, atol=1e-5, rtol=0)


def test_a_category_no_training_text_has_gets_probability_zero(tiny):
    texts, labels = toy_task(12)
    model = train_setfit(texts, np.where(labels == 2, 3, labels), 4, replace(TINY, epochs=1, pairs_per_text=2), tiny)
    probabilities = model.predict_proba(texts)
    assert (probabilities[:, 2] == 0).all() and np.allclose(probabilities.sum(axis=1), 1.0)


def test_texts_all_in_one_category_are_not_fine_tuned(tiny):
    texts, _ = toy_task(6)
    events: list = []
    model = train_setfit(texts, np.ones(6, dtype=int), 3, TINY, tiny, events.append)
    assert model.losses == [] and model.notes and "no dissimilar pairs" in model.notes[0]
    assert any(isinstance(e, Log) and e.level == "warning" for e in events)
    assert (model.predict_proba(texts) == [0.0, 1.0, 0.0]).all()


def test_a_capped_epoch_trains_on_fewer_pairs_and_says_so(tiny):
    texts, labels = toy_task(18)
    events: list = []
    model = train_setfit(texts, labels, 3, replace(TINY, epochs=1, max_pairs=32), tiny, events.append)
    assert model.n_pairs == 32 and len(model.losses) == 2  # two steps of 16 pairs instead of nine
    said = [note for note in model.notes if "drawn at random" in note]
    assert said and "144 pairs of the 18 texts" in said[0] and "every coded text" in said[0]
    assert any(isinstance(e, Log) and "drawn at random" in e.message and e.level == "info" for e in events)
    assert SetFitSettings.from_saved({"max_pairs": 32}).max_pairs == 32


def test_cancel_stops_after_a_step(tiny):
    texts, labels = toy_task(18)
    seen: list = []

    def cancel_at_third_step(event):
        seen.append(event)
        if isinstance(event, Metric) and event.step == 3:
            raise Cancelled

    with pytest.raises(Cancelled):
        train_setfit(texts, labels, 3, TINY, tiny, cancel_at_third_step)
    assert max(e.step for e in seen if isinstance(e, Metric)) == 3


@pytest.mark.parametrize("change, words", [
    ({"epochs": 0}, "number of epochs"), ({"pairs_per_text": 1.5}, "pairs per text"),
    ({"learning_rate": 0}, "learning rate"), ({"batch_size": True}, "batch size"),
    ({"max_length": 4}, "maximum text length"), ({"device": "tpu"}, "device"),
    ({"max_pairs": 1}, "most pairs per epoch"),
])
def test_unusable_settings_are_refused_in_words(tiny, change, words):
    texts, labels = toy_task(6)
    with pytest.raises(UserError) as caught:
        train_setfit(texts, labels, 3, replace(TINY, **change), tiny)
    assert words in caught.value.message
    with pytest.raises(UserError):
        SetFitSettings.from_saved({"epochs": 1, **change})


def test_no_coded_texts_and_a_missing_model_are_user_errors(tiny, tmp_path):
    with pytest.raises(UserError, match="coded texts"):
        train_setfit([], np.array([], dtype=int), 3, TINY, tiny)
    with pytest.raises(UserError):
        train_setfit(["a b"] * 4, np.array([0, 1, 0, 1]), 2, TINY, tmp_path / "no such model")
    folder = tmp_path / "copy"
    shutil.copytree(tiny, folder)
    (folder / "model.safetensors").unlink()
    with pytest.raises(UserError, match="weights"):
        train_setfit(["a b"] * 4, np.array([0, 1, 0, 1]), 2, TINY, folder)
