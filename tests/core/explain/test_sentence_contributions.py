"""Exact word shares in a logistic regression's scores on sentence embeddings: they add up to the
regression's own score, long texts are read as the sentence model reads them, documents passed
together get the numbers they get alone, and a combined model uses them for such a part."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.experiment.combined.combining import WeightedVote
from guiapp.core.explain.attribution import COMBINED_PARTS, LINEAR_EXACT
from guiapp.core.explain.choose_method import explain_document
from guiapp.core.explain.part_contributions import part_method
from guiapp.core.explain.sentence_contributions import has_sentence_contributions, sentence_contributions
from guiapp.core.explain.words import split_words
from guiapp.core.predict.combined_model import CombinedModel
from tests.core.explain.conventional_samples import CATEGORIES, KEYWORD, planted_corpus, topic_corpus, train

pytest.importorskip("torch")
TEXTS = [f"The federal {KEYWORD} program for schools.", "A bill for roads.",
         "Public funding, new law and national support for the state program of health care."]


@pytest.fixture(scope="module")
def sentence_folder(tmp_path_factory):
    from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

    folder = tmp_path_factory.mktemp("tiny-sentence-model")
    texts = planted_corpus(40)[0] + topic_corpus(60)[0] + TEXTS
    words = {word.strip(".,").lower() for text in texts for word in text.split()}
    save_tiny_bert(folder / "model", tiny_tokenizer(folder / "tokenizer", sorted(words)))
    return folder / "model"


@pytest.fixture(scope="module")
def cache_folder(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    patch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    yield
    patch.undo()


@pytest.fixture(scope="module")
def binary(sentence_folder, cache_folder):
    texts, labels = planted_corpus(40)
    return train("sentence_embeddings", {"model": str(sentence_folder), "max_length": 32}, "logistic_regression",
                 texts, labels, ["no", KEYWORD], name="LR · sentence embeddings")


@pytest.fixture(scope="module")
def three(sentence_folder, cache_folder):
    texts, labels = topic_corpus(60)
    return train("sentence_embeddings", {"model": str(sentence_folder), "max_length": 32}, "logistic_regression",
                 texts, labels, CATEGORIES, name="LR · sentence embeddings (3)")


@pytest.mark.parametrize("which", ["binary", "three"])
def test_the_shares_add_up_to_the_regression_score(which, request):
    model = request.getfixturevalue(which)
    assert has_sentence_contributions(model) and part_method(model) == LINEAR_EXACT
    found = sentence_contributions(model, TEXTS)
    scores = model.classifier.decision_function(model.representation.transform(TEXTS))
    scores = scores.reshape(len(TEXTS), -1)
    for text, shares, row in zip(TEXTS, found, scores, strict=True):
        assert shares.words.shape == (len(split_words(text)), scores.shape[1])
        total = shares.words.sum(axis=0) + shares.special + model.classifier.intercept_
        assert total == pytest.approx(row, abs=1e-5)
        assert not shares.unseen


def test_documents_passed_together_get_the_numbers_they_get_alone(binary, monkeypatch):
    together = sentence_contributions(binary, TEXTS)
    monkeypatch.setattr("guiapp.core.explain.sentence_contributions.CPU_PIECES_PER_PASS", 1)  # one per pass
    alone = sentence_contributions(binary, TEXTS)
    for a, b in zip(together, alone, strict=True):
        assert a.words == pytest.approx(b.words, abs=1e-6)


def test_a_long_text_is_read_as_the_sentence_model_reads_it(binary):
    text = " ".join(["program"] * 60) + f" {KEYWORD}."
    found = sentence_contributions(binary, [text])[0]
    assert found.unseen and found.unseen[0][1] == len(text) and found.n_pieces == 32
    assert (found.words[-2] == 0.0).all()  # the keyword at the end is cut off: no share


def test_a_vote_uses_the_exact_shares_of_its_sentence_embedding_part(binary):
    texts, labels = planted_corpus(40)
    bow = train("bow", {"min_df": 0.0, "max_df": 0.9}, "logistic_regression", texts, labels, ["no", KEYWORD])
    model = CombinedModel("vote", [bow, binary], WeightedVote([0.4, 0.6]), ["no", KEYWORD])
    found = explain_document(model, TEXTS[0], 1)
    assert found.method == COMBINED_PARTS and [part["method"] for part in found.details["parts"]] == [LINEAR_EXACT] * 2
    assert "sentence vector" in found.method_sentence and "first order" in found.method_sentence
    p = binary.answer([TEXTS[0]])[1][0]
    shares = sentence_contributions(binary, TEXTS[:1])[0]
    expected_part = 0.6 * p[0] * p[1] * shares.words[:, 0]  # weight × slope of σ × share in the log-odds
    bow_p = bow.answer([TEXTS[0]])[1][0]
    from guiapp.core.explain.linear_contributions import explain_linear

    expected_bow = 0.4 * bow_p[0] * bow_p[1] * np.array(explain_linear(bow, TEXTS[0], 1).scores)
    assert found.scores == pytest.approx((expected_part + expected_bow).tolist(), abs=1e-9)
