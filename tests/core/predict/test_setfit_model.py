"""A saved SetFit model opens from its folder like every trained model (``open_trained_model``) and
answers new texts: the most probable category, or — where a text can have several — every category
at or above its saved threshold. Trained on a tiny randomly initialised BERT (about a second)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.models.setfit import SETFIT_FILE, SetFitSettings, train_setfit
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.setfit_model import SetFitTrainedModel
from guiapp.core.predict.stream import predict_in_chunks
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

WORDS = ["rain", "snow", "storm", "vote", "party", "law", "the", "today"]
TEXTS = ["rain today", "snow storm", "the rain", "vote today", "party law", "the vote", "storm rain", "law vote"]
LABELS = np.array([0, 0, 0, 1, 1, 1, 0, 1])
SETTINGS = SetFitSettings(pairs_per_text=2, learning_rate=1e-3, max_length=500, device="cpu")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("setfit-predict")
    tokenizer = tiny_tokenizer(root / "vocabulary", WORDS)
    return save_tiny_bert(root / "sentence model", tokenizer, max_positions=64)


def test_a_saved_setfit_model_opens_and_answers(tiny, tmp_path):
    model = train_setfit(TEXTS, LABELS, 2, SETTINGS, tiny)
    model.save(tmp_path / "weather or politics", categories=["Weather", "Politics"])
    opened = open_trained_model(tmp_path / "weather or politics")
    assert isinstance(opened, SetFitTrainedModel)
    assert (opened.family, opened.name, opened.categories) == ("setfit", "weather or politics", ["Weather", "Politics"])
    assert not opened.multi_label and opened.tokenizer is not None
    assert opened.max_tokens == 64  # the 500 tokens asked for, capped at what the model reads
    new = ["snow today", "party vote", "the law"]
    decisions, probabilities = opened.answer(new)
    assert probabilities.shape == (3, 2) and np.allclose(probabilities.sum(axis=1), 1.0)
    assert np.array_equal(decisions, probabilities.argmax(axis=1))
    assert np.allclose(probabilities, model.predict_proba(new), atol=1e-5, rtol=0)


def test_several_categories_per_text_use_the_saved_thresholds(tiny, tmp_path):
    y = np.column_stack([LABELS == 0, LABELS == 1, [1, 0, 1, 0, 1, 0, 1, 0]]).astype(np.uint8)
    model = train_setfit(TEXTS, y, 3, SETTINGS, tiny)
    model.save(tmp_path / "m", categories=["Weather", "Politics", "Short"], thresholds=[0.0, 1.0, 0.5])
    opened = open_trained_model(tmp_path / "m", "my model")
    assert opened.multi_label and opened.name == "my model"
    decisions, probabilities = opened.answer(TEXTS)
    assert decisions.shape == probabilities.shape == (8, 3)
    assert (decisions[:, 0] == 1).all()  # threshold 0: always
    assert np.array_equal(decisions[:, 1], (probabilities[:, 1] >= 1.0).astype(np.uint8))
    assert np.array_equal(decisions[:, 2], (probabilities[:, 2] >= 0.5).astype(np.uint8))


def test_new_texts_are_answered_in_chunks(tiny, tmp_path):
    train_setfit(TEXTS, LABELS, 2, SETTINGS, tiny).save(tmp_path / "m", categories=["Weather", "Politics"])
    opened = open_trained_model(tmp_path / "m")
    texts = [f"{word} today" for word in WORDS] * 3 + ["  "]
    predictions = predict_in_chunks(opened.answer, texts, opened.categories, chunk_size=5)
    decisions, probabilities = opened.answer(texts[:-1])
    assert np.array_equal(predictions.predicted[:-1], decisions) and predictions.predicted[-1] == -1
    assert np.allclose(predictions.probabilities[:-1], probabilities, atol=1e-6)
    assert predictions.labels()[:2] == [opened.categories[d] for d in decisions[:2]]


def test_a_damaged_setfit_folder_is_refused_in_words(tiny, tmp_path):
    train_setfit(TEXTS, LABELS, 2, SETTINGS, tiny).save(tmp_path / "m", categories=["Weather", "Politics"])
    record = json.loads((tmp_path / "m" / SETFIT_FILE).read_text(encoding="utf-8"))
    record["head"]["intercepts"] = ["not a number"]
    (tmp_path / "m" / SETFIT_FILE).write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(UserError, match="SetFit model"):
        open_trained_model(tmp_path / "m")
