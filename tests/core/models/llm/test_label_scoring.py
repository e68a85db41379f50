"""A causal language model's answer as a probability per category, scored on a tiny random model built here."""

from __future__ import annotations

import copy
import dataclasses
import hashlib

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.models.llm.causal_model import (
    is_causal_model_folder,
    open_causal_model,
)
from guiapp.core.models.llm.label_scoring import (
    batch_log_likelihoods,
    encode,
    label_log_likelihoods,
    label_probabilities,
    score_prompts,
    yes_no_probabilities,
)
from tests.core.models.llm.tiny_causal_lm import tiny_causal_lm, tiny_tokenizer

CATEGORIES = ["Economy", "public health", "Sport"]
TEXTS = ["taxes rose", "the team won the match", "doctors policy", "prices rose", "goal"]


def prompt(text: str) -> str:
    return f"Text: {text}. Category: Economy, public health, Sport. Answer:"


@pytest.fixture(scope="module", params=["gpt2", "llama"])
def lm(request, tmp_path_factory):
    folder = tiny_causal_lm(tmp_path_factory.mktemp(request.param), request.param)
    return open_causal_model(folder)


def biased(lm, word: str, amount: float = 30.0):
    """A copy of ``lm`` whose output layer raises the logit of ``word``'s token by ``amount``."""
    import torch

    model = copy.deepcopy(lm.model)
    head = model.get_output_embeddings()
    new = torch.nn.Linear(head.in_features, head.out_features, bias=True)
    with torch.no_grad():
        new.weight.copy_(head.weight)
        new.bias.zero_()
        new.bias[lm.tokenizer.convert_tokens_to_ids(word)] = amount
    model.set_output_embeddings(new)
    model.eval()
    return dataclasses.replace(lm, model=model)


def one_pass(lm, text_prompt: str, labels: list[str]) -> list[list[float]]:
    """Each label token's log-probability from one pass over prompt + label (no cache)."""
    import torch

    prompt_ids, label_ids = encode(lm.tokenizer, text_prompt, labels)
    out = []
    with torch.inference_mode():
        for ids in label_ids:
            logits = lm.model(input_ids=torch.tensor([prompt_ids + ids]), use_cache=False).logits[0]
            scores = torch.log_softmax(logits.float(), dim=-1)
            out.append([float(scores[len(prompt_ids) - 1 + position, token]) for position, token in enumerate(ids)])
    return out


def test_probabilities_sum_to_one_and_cover_exactly_the_categories(lm):
    probabilities = score_prompts(lm, [prompt(text) for text in TEXTS], CATEGORIES, batch_size=2)
    assert probabilities.shape == (len(TEXTS), len(CATEGORIES))
    assert np.all(probabilities > 0)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-12)
    with pytest.raises(UserError, match="named twice"):
        score_prompts(lm, [prompt("goal")], ["Sport", "Sport"])


def test_the_prompts_cache_gives_the_numbers_of_one_pass(lm):
    labels = CATEGORIES + ["the team won", "doctors"]
    reference = [np.mean(scores) for scores in one_pass(lm, prompt("taxes rose"), labels)]
    for label_batch in (1, 2, 32):
        cached = label_log_likelihoods(lm, prompt("taxes rose"), labels, label_batch=label_batch)
        np.testing.assert_allclose(cached, reference, atol=1e-5)


def test_a_label_of_several_tokens_is_length_normalised(lm):
    tokens = one_pass(lm, prompt("goal"), ["the team won"])[0]
    assert len(tokens) == 3
    score = label_log_likelihoods(lm, prompt("goal"), ["the team won"])[0]
    assert score == pytest.approx(sum(tokens) / 3, abs=1e-5)
    assert score != pytest.approx(sum(tokens), abs=1e-3)


@pytest.mark.parametrize(("word", "winner"), [("Sport", "Sport"), ("public", "public health"), ("Economy", "Economy")])
def test_a_biased_output_layer_makes_the_expected_category_win(lm, word, winner):
    probabilities = score_prompts(biased(lm, word), [prompt(text) for text in TEXTS], CATEGORIES)
    assert [CATEGORIES[index] for index in probabilities.argmax(axis=1)] == [winner] * len(TEXTS)
    assert probabilities[:, CATEGORIES.index(winner)].min() > 0.9


def test_same_input_same_answer_in_any_batch(lm):
    prompts = [prompt(text) for text in TEXTS]
    first = score_prompts(lm, prompts, CATEGORIES, batch_size=2)
    again = score_prompts(lm, prompts, CATEGORIES, batch_size=5)
    reversed_order = score_prompts(lm, prompts[::-1], CATEGORIES, batch_size=3)[::-1]
    np.testing.assert_array_equal(first, score_prompts(lm, prompts, CATEGORIES, batch_size=2))
    np.testing.assert_allclose(first, again, atol=1e-6)
    np.testing.assert_allclose(first, reversed_order, atol=1e-6)
    single = label_probabilities(lm, prompts[1], CATEGORIES)
    np.testing.assert_allclose(single, first[1], atol=1e-6)


def test_prompts_of_different_lengths_scored_together_give_each_prompts_own_numbers(lm):
    prompts = [prompt(text) for text in TEXTS] + ["Answer:"]
    labels = CATEGORIES + ["the team won"]
    together = batch_log_likelihoods(lm, prompts, labels, label_batch=3)
    assert together.shape == (len(prompts), len(labels))
    for row, text_prompt in enumerate(prompts):
        alone = [np.mean(scores) for scores in one_pass(lm, text_prompt, labels)]
        np.testing.assert_allclose(together[row], alone, atol=1e-5)


def test_several_categories_per_text_ask_yes_or_no_for_each(lm):
    def question(text: str, category: str) -> str:
        return f"Text: {text}. Does this belong to {category}? Answer:"

    templates = {name: f"Text: {{text}}. Does this belong to {name}? Answer:" for name in CATEGORIES}
    plain = yes_no_probabilities(lm, TEXTS, CATEGORIES, question, batch_size=2)
    assert plain.shape == (len(TEXTS), len(CATEGORIES))
    assert np.all((plain > 0) & (plain < 1))
    np.testing.assert_allclose(yes_no_probabilities(lm, TEXTS, CATEGORIES, templates), plain, atol=1e-12)
    # P(yes) to each question is the yes/no softmax of that question's prompt
    expected = label_probabilities(lm, question(TEXTS[2], "Sport"), ["Yes", "No"])[0]
    assert plain[2, 2] == pytest.approx(expected, abs=1e-12)
    assert np.all(yes_no_probabilities(biased(lm, "Yes"), TEXTS, CATEGORIES, question) > 0.99)
    assert np.all(yes_no_probabilities(biased(lm, "No"), TEXTS, CATEGORIES, question) < 0.01)
    with pytest.raises(UserError, match="no place for the text"):
        yes_no_probabilities(lm, TEXTS, CATEGORIES, {name: "Is it?" for name in CATEGORIES})


def test_cancel_stops_between_batches(lm):
    passes = []
    handle = lm.model.register_forward_hook(lambda *_: passes.append(1))
    seen = []

    def on_event(event):
        if isinstance(event, Progress):
            seen.append(event.done)
            if event.done == 2:
                raise Cancelled

    try:
        with pytest.raises(Cancelled):
            score_prompts(lm, [prompt(text) for text in TEXTS], ["Economy", "Sport"], on_event, batch_size=2)
    finally:
        handle.remove()
    assert seen == [0, 2]
    assert len(passes) == 1  # one pass over the first batch's prompts (one-token labels need no more), then none


def test_a_prompt_longer_than_the_model_reads_is_refused_in_words(lm):
    with pytest.raises(UserError, match="reads at most 64"):
        label_probabilities(lm, prompt("goal " * 80), CATEGORIES)


def test_the_record_names_the_weights_by_their_sha256(lm):
    record = lm.record()
    digest = hashlib.sha256((lm.folder / "model.safetensors").read_bytes()).hexdigest()
    assert record["weights_sha256"] == digest
    assert record["dtype"] == "float32" and record["model_type"] in ("gpt2", "llama")
    assert lm.model.training is False


def test_a_folder_that_is_not_a_causal_language_model_is_refused_in_words(tmp_path):
    from transformers import BertConfig, BertForMaskedLM

    bert = tmp_path / "bert"
    config = BertConfig(vocab_size=len(tiny_tokenizer()), hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=16, max_position_embeddings=32)
    BertForMaskedLM(config).save_pretrained(bert)
    tiny_tokenizer().save_pretrained(bert)
    assert not is_causal_model_folder(bert)
    with pytest.raises(UserError, match="not a language model that writes text"):
        open_causal_model(bert)

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match="no config.json"):
        open_causal_model(empty)

    no_tokenizer = tiny_causal_lm(tmp_path / "gpt2")
    assert is_causal_model_folder(no_tokenizer)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (no_tokenizer / name).unlink()
    with pytest.raises(UserError, match="no tokenizer files"):
        open_causal_model(no_tokenizer)
    with pytest.raises(UserError, match="No language model was chosen"):
        open_causal_model("  ")
    with pytest.raises(UserError):
        open_causal_model(tmp_path / "missing")


def test_a_named_model_not_on_this_computer_is_not_downloaded_without_consent(monkeypatch):
    import huggingface_hub

    def no_download(*args, **kwargs):
        raise AssertionError("downloaded without consent")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", no_download)
    with pytest.raises(UserError, match="someone/tiny-writer"):
        open_causal_model("someone/tiny-writer")
