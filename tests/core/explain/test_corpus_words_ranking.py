"""Which words each category relies on: words met in a few documents do not top the list, the
ranking weighs how many documents hold a word, and punctuation is listed only for models that read it."""

from __future__ import annotations

import math

import pytest

from guiapp.core.explain.attribution import LINEAR_EXACT, Attribution
from guiapp.core.explain.corpus_table import RANKING, CorpusWords, corpus_words_frame, weighted_score
from guiapp.core.explain.corpus_words import corpus_words, reads_punctuation
from guiapp.core.explain.explain_jobs import explain_all
from guiapp.core.explain.words import split_words
from tests.core.explain.conventional_samples import KEYWORD, planted_corpus, train


def explained(text: str, scores: dict[str, float], target_name: str = "against") -> Attribution:
    words = split_words(text)
    return Attribution(model="m", method=LINEAR_EXACT, method_sentence="", target=0, target_name=target_name,
                       words=words, scores=[scores.get(w.text.lower(), 0.0) for w in words], probability=0.8,
                       scale="margin")


def _documents() -> list[Attribution]:
    """"rare" once (+0.9), "tax" in 3 documents (+1.0), "cuts" in 15 (+0.6), "!" in all (+0.5)."""
    documents = [explained("rare tax cuts !", {"rare": 0.9, "tax": 1.0, "cuts": 0.6, "!": 0.5})]
    documents += [explained("tax cuts !", {"tax": 1.0, "cuts": 0.6, "!": 0.5}) for _ in range(2)]
    documents += [explained("cuts now !", {"cuts": 0.6, "!": 0.5}) for _ in range(12)]
    return documents


def test_words_of_fewer_than_three_documents_are_left_out_and_frequency_counts_in_the_ranking():
    table = corpus_words(_documents(), ["against"], "m", LINEAR_EXACT)
    assert table.min_documents == 3
    rows = table.for_category("against")
    words = [row.word for row in rows]
    assert "rare" not in words  # one document: not listed by default
    # by the mean alone "tax" (1.0) would come before "cuts" (0.6); cuts is in 15 documents, tax in 3
    assert words[:2] == ["cuts", "tax"]
    assert rows[0].weighted_score == pytest.approx(0.6 * math.log2(16))
    assert rows[1].weighted_score == pytest.approx(1.0 * math.log2(4)) == weighted_score(1.0, 3)
    assert "!" not in words  # punctuation: this model is taken not to read it
    assert [row.word for row in table.for_category("against", min_documents=1)][:3] == ["cuts", "tax", "rare"]
    assert [row.word for row in table.for_category("against", min_documents=4)] == ["cuts", "now"]
    note = table.method_note()
    assert "at least 3 of the explained documents" in note and "log₂(1 + the number of documents" in note
    assert "Punctuation and symbols are left out" in note


def test_punctuation_is_listed_for_a_model_that_reads_it():
    table = corpus_words(_documents(), ["against"], "m", LINEAR_EXACT, punctuation=True)
    words = [row.word for row in table.for_category("against")]
    assert words[:2] == ["cuts", "!"] and table.punctuation  # 0.6 × log2(16) before 0.5 × log2(16)
    assert "this model reads it" in table.method_note()


def test_every_minimum_shows_exactly_its_own_top_words():
    documents = [explained(" ".join(f"w{j}" for j in range(i % 9 + 1)),
                           {f"w{j}": (j % 5 - 1.5) / (i % 4 + 1) for j in range(9)}) for i in range(60)]
    kept = corpus_words(documents, ["against"], "m", LINEAR_EXACT, top=3)
    every = corpus_words(documents, ["against"], "m", LINEAR_EXACT, top=None, min_documents=1)
    for minimum in range(1, 12):
        expected = [row.word for row in every.for_category("against", minimum)][:3]
        assert [row.word for row in kept.for_category("against", minimum)] == expected


def test_the_csv_table_says_how_it_is_ranked():
    table = corpus_words(_documents(), ["against"], "m", LINEAR_EXACT)
    frame = corpus_words_frame(table)
    assert f"weighted score ({RANKING})" in frame.columns
    assert list(frame["word"]) == [row.word for row in table.for_category("against")]
    assert list(corpus_words_frame(table, min_documents=1)["word"]).count("rare") == 1
    assert corpus_words_frame(CorpusWords("m", LINEAR_EXACT, 0, ["a"])).empty


def test_whether_a_model_reads_punctuation_is_decided_per_model():
    texts, labels = planted_corpus(60)
    texts = [text.replace(".", " !") if label else text for text, label in zip(texts, labels, strict=True)]
    reading = train("bow", {"min_df": 0.0, "max_df": 1.0}, "logistic_regression", texts, labels, ["no", KEYWORD])
    assert "!" in reading.representation.feature_names() and reads_punctuation(reading)
    not_reading = train("bow", {"min_df": 0.0, "max_df": 1.0, "remove_punctuation": True}, "logistic_regression",
                        texts, labels, ["no", KEYWORD])
    assert not reads_punctuation(not_reading)

    class Transformer:
        family = "transformer"

    class Combined:
        family = "combined"
        parts = [not_reading, Transformer()]

    assert reads_punctuation(Transformer()) and reads_punctuation(Combined())
    Combined.parts = [not_reading]
    assert not reads_punctuation(Combined())

    found = explain_all(reading, texts[:20], ["no", KEYWORD])
    assert found.words.punctuation and found.words.min_documents == 3
    assert "!" in [row.word for row in found.words.for_category(KEYWORD)]
    assert not explain_all(not_reading, texts[:20], ["no", KEYWORD]).words.punctuation
