"""The Findings step's own quick model: features of a table's texts and cross-fitted probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.coding.quick_model import FeatureCache, stratified_folds
from guiapp.core.errors import DataError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.findings.quick_features import (
    FindingsFeatures,
    FindingsModel,
    findings_features,
    findings_probabilities,
)

WORDS = {
    "economy": ["taxes", "jobs", "budget", "inflation", "wages"],
    "health": ["hospital", "doctors", "insurance", "medicine", "nurses"],
    "defence": ["army", "troops", "weapons", "navy", "soldiers"],
}
COMMON = ["the", "bill", "about", "new", "and", "a", "for"]


def _corpus(n: int = 240, seed: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.choice(list(WORDS), size=n, p=[0.5, 0.3, 0.2])
    texts = []
    for label in labels:
        own = rng.choice(WORDS[label], size=2).tolist()
        stray = rng.choice([w for words in WORDS.values() for w in words], size=1).tolist()
        texts.append(" ".join(rng.permutation(own + stray + rng.choice(COMMON, size=3).tolist())))
    return texts, labels


class LetterEmbeddings:
    """A stand-in for the sentence embeddings (no language model in unit tests): letter counts."""

    def prepare_settings(self) -> tuple:
        return ("letters",)

    def prepare(self, texts, on_event):
        class Prepared:
            matrix = np.array([[text.count(c) for c in "aeiouthsrn"] for text in texts], dtype=np.float32)

        return Prepared()


def test_coded_texts_get_out_of_fold_rows_in_the_given_category_order():
    texts, labels = _corpus()
    positions = np.arange(0, 240, 2)
    coded_labels = labels[positions].tolist()
    order = ["health", "economy", "defence"]
    events = []
    cache = FeatureCache()
    fitted = findings_probabilities(texts, positions, coded_labels, categories=order, cache=cache,
                                    embeddings=LetterEmbeddings(), on_event=events.append)
    assert fitted.categories == tuple(order)
    assert fitted.corpus.shape == (240, 3) and fitted.coded.shape == (120, 3)
    assert fitted.corpus.sum(axis=1) == pytest.approx(np.ones(240))
    assert np.array_equal(fitted.corpus[positions], fitted.coded)
    # the coded rows come from the fold model that did not see them
    features = findings_features(texts, cache=cache, embeddings=LetterEmbeddings())
    folds = stratified_folds(coded_labels, 5, 0)
    seen = FindingsModel(seed=0).fit(features[positions[folds != 0]],
                                     np.array(coded_labels)[folds != 0].tolist(), order)
    first = np.flatnonzero(folds == 0)[:3]
    assert fitted.coded[first] == pytest.approx(seen.predict_proba(features[positions[first]]))
    # it learned the categories: each column is highest on its own category's uncoded texts
    uncoded = np.setdiff1d(np.arange(240), positions)
    predicted = np.array(order)[fitted.corpus[uncoded].argmax(axis=1)]
    assert np.mean(predicted == labels[uncoded]) > 0.8
    messages = [e.message for e in events if isinstance(e, Progress)]
    assert "Reading the texts' words" in messages and "Cross-fitting: part 2 of 5" in messages
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)


def test_the_features_keep_every_word_and_index_by_rows():
    texts, _ = _corpus(60)
    features = findings_features(texts, cache=FeatureCache(), embeddings=LetterEmbeddings())
    assert isinstance(features, FindingsFeatures) and len(features) == 60
    assert features.words.shape[1] == len(set(" ".join(texts).split()))  # "the" in most texts is kept
    part = features[np.array([3, 1])]
    assert np.array_equal(part.embeddings, features.embeddings[[3, 1]])
    assert (part.words != features.words[[3, 1]]).nnz == 0


def test_a_fold_with_one_category_answers_it():
    texts, _ = _corpus(30)
    features = findings_features(texts, cache=FeatureCache(), embeddings=LetterEmbeddings())
    model = FindingsModel().fit(features[:4], ["health"] * 4, ["economy", "health"])
    assert model.predict_proba(features[4:6]) == pytest.approx(np.array([[0.0, 1.0], [0.0, 1.0]]))


@pytest.mark.parametrize(("positions", "labels", "words"), [
    ([0, 1, 2, 3], ["economy"] * 4, "same category"),
    ([0, 1, 2], ["economy", "economy", "health"], "at least two coded texts"),
    ([0, 1, 2], ["economy", "health"], "3 coded texts but 2 codings"),
    ([0, 1, 500, 3], ["economy", "health", "economy", "health"], "outside"),
    ([0, 1, 1, 3], ["economy", "health", "economy", "health"], "coded twice"),
    ([0, 1, 2, 3], ["economy", None, "economy", "health"], "empty category"),
])
def test_bad_codings_get_a_message_with_a_hint(positions, labels, words):
    texts, _ = _corpus(40)
    with pytest.raises(DataError) as raised:
        findings_probabilities(texts, positions, labels, cache=FeatureCache(), embeddings=LetterEmbeddings())
    assert words in str(raised.value) and raised.value.hint


def test_categories_must_cover_the_codings():
    texts, labels = _corpus(40)
    with pytest.raises(DataError, match="not among the categories"):
        findings_probabilities(texts, np.arange(20), labels[:20].tolist(), categories=["economy"],
                               cache=FeatureCache(), embeddings=LetterEmbeddings())


def test_cancelling_stops_it():
    texts, labels = _corpus(60)

    def cancel(event):
        if isinstance(event, Progress) and event.message.startswith("Cross-fitting: part 2"):
            raise Cancelled

    with pytest.raises(Cancelled):
        findings_probabilities(texts, np.arange(40), labels[:40].tolist(), cache=FeatureCache(),
                               embeddings=LetterEmbeddings(), on_event=cancel)
