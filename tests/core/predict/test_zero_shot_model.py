"""A saved zero-shot model opens like any trained model and answers new texts: the most likely
category, or every category at 0.5 or above where a text can have several."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.models.zero_shot import ZERO_SHOT_FILE, ZeroShotNLI, ZeroShotSimilarity
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.stream import predict_in_chunks
from guiapp.core.predict.zero_shot_model import ZeroShotTrainedModel
from tests.tiny_nli import save_tiny_nli

CATEGORIES = ["economy", "health", "sport"]
TEXTS = ["Taxes rise again.", "The hospital has no beds.", "The team won the match.", "Jobs and taxes."]


@pytest.fixture(scope="module")
def nli_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    words = sorted({w.strip(".").lower() for t in TEXTS for w in t.split()} | {"this", "text", "is", "about"})
    return save_tiny_nli(tmp_path_factory.mktemp("tiny-nli"), words)


def test_a_similarity_model_opens_and_answers_with_the_most_likely_category(tmp_path: Path):
    ZeroShotSimilarity(CATEGORIES).save(tmp_path / "similarity")
    model = open_trained_model(tmp_path / "similarity")
    assert isinstance(model, ZeroShotTrainedModel)
    assert (model.family, model.categories, model.multi_label) == ("zero_shot", CATEGORIES, False)
    assert model.name == "similarity"
    decisions, probabilities = model.answer(TEXTS)
    assert decisions.shape == (4,) and probabilities.shape == (4, 3)
    assert (decisions == probabilities.argmax(axis=1)).all()
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    assert model.tokenizer is not None and model.max_tokens == 256


def test_several_categories_per_text_are_those_at_one_half_or_above(nli_folder: Path, tmp_path: Path):
    ZeroShotNLI(CATEGORIES, model=str(nli_folder), multi_label=True).save(tmp_path / "nli")
    model = open_trained_model(tmp_path / "nli", "NLI model")
    assert model.multi_label and model.name == "NLI model"
    decisions, probabilities = model.answer(TEXTS)
    assert decisions.shape == probabilities.shape == (4, 3) and set(np.unique(decisions)) <= {0, 1}
    assert ((probabilities >= 0.5) == decisions.astype(bool)).all()
    limit = model.max_tokens
    assert 8 <= limit < 128 and model.tokenizer is not None  # the pair's 128 tokens less the hypothesis
    # chunk by chunk, as the Predict step asks: the same answers as all at once
    streamed = predict_in_chunks(model.answer, TEXTS, model.categories, chunk_size=3, multi_label=True)
    np.testing.assert_allclose(streamed.probabilities, probabilities, atol=1e-5)


def test_a_damaged_zero_shot_file_is_refused_in_words(tmp_path: Path):
    folder = tmp_path / "damaged"
    ZeroShotSimilarity(CATEGORIES).save(folder)
    record = json.loads((folder / ZERO_SHOT_FILE).read_text(encoding="utf-8"))
    record["categories"] = {"not": "a list"}
    (folder / ZERO_SHOT_FILE).write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(UserError, match="cannot be opened"):
        open_trained_model(folder)


def test_a_saved_model_missing_its_language_model_is_refused_in_words(nli_folder: Path, tmp_path: Path):
    import shutil

    folder = tmp_path / "nli"
    ZeroShotNLI(CATEGORIES, model=str(nli_folder)).save(folder)
    shutil.rmtree(folder / "model")
    with pytest.raises(UserError, match="missing its language model"):
        open_trained_model(folder)
