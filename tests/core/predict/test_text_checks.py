"""Warnings before predicting: another language, much longer texts, texts the Transformer cuts."""

from __future__ import annotations

from guiapp.core.predict.text_checks import compare_profiles, guess_language, profile_texts

ENGLISH = ["The government cut the tax on fuel and the opposition was not happy about it."] * 30
GERMAN = ["Die Regierung hat die Steuer auf Benzin gesenkt und die Opposition ist nicht froh darüber."] * 30
FRENCH = ["Le gouvernement a réduit la taxe sur le carburant et il est pour nous une erreur."] * 30


class CountingTokenizer:
    """Stands in for a Hugging Face tokenizer: one token per word plus [CLS] and [SEP]."""

    def __call__(self, texts, add_special_tokens=True, truncation=False):
        return {"input_ids": [[0] * (len(t.split()) + 2) for t in texts]}


def test_languages_are_told_apart():
    assert profile_texts(ENGLISH).language == "english"
    assert profile_texts(GERMAN).language == "german"
    assert profile_texts(FRENCH).language == "french"
    assert guess_language([["x1", "y2", "z3"]]) is None  # codes, not a language
    assert guess_language([]) is None


def test_same_kind_of_texts_give_no_warning():
    assert compare_profiles(profile_texts(ENGLISH), profile_texts(ENGLISH[:10])) == []


def test_another_language_is_named():
    [warning] = compare_profiles(profile_texts(ENGLISH), profile_texts(GERMAN))
    assert "look like German" in warning and "like English" in warning


def test_much_longer_texts_are_flagged_in_words():
    long = [" ".join(ENGLISH[:8])] * 20
    [warning] = compare_profiles(profile_texts(ENGLISH), profile_texts(long))
    assert "much longer" in warning and "words" in warning


def test_share_cut_by_the_transformer_is_reported():
    tokenizer = CountingTokenizer()
    coded = profile_texts(ENGLISH, tokenizer=tokenizer, limit=64)
    new = profile_texts(ENGLISH[:10] + [" ".join(ENGLISH[:6])] * 10, tokenizer=tokenizer, limit=64)
    assert coded.share_over_limit == 0.0 and new.share_over_limit == 0.5
    [warning] = compare_profiles(coded, new)
    assert "50% of the new texts are longer than the 64 tokens" in warning and "(of the coded texts: 0%)" in warning
