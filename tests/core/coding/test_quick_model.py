"""The quick model retrained while coding: probabilities in the order of its categories, folds that
hold every text out exactly once, tiny categories that do not crash it, and features computed
once per text."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from guiapp.core.coding.quick_model import (
    BAG_OF_WORDS,
    EMBEDDINGS,
    FeatureCache,
    QuickModel,
    fit_temperature,
    out_of_fold_probabilities,
    pool_features,
    stratified_folds,
)
from guiapp.core.errors import DataError


def clustered(n_per: int, categories: list[str], dim: int = 16, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    """Unit vectors around one centre per category, shuffled."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(categories), dim)) * 3
    rows = np.repeat(np.arange(len(categories)), n_per)
    rng.shuffle(rows)
    features = centres[rows] + rng.normal(size=(len(rows), dim))
    features /= np.linalg.norm(features, axis=1, keepdims=True)
    return features.astype(np.float32), [categories[i] for i in rows]


TEXTS = {
    "sport": ["the team won the match", "a goal in the last minute", "the coach praised the team",
              "fans cheered the goal", "the match ended in a draw", "the striker scored a goal"],
    "weather": ["heavy rain expected today", "sunny skies and warm wind", "rain and wind tomorrow",
                "a cold morning with rain", "the storm brought wind", "warm sunny afternoon"],
}


def word_corpus() -> tuple[list[str], list[str]]:
    texts = [t for texts in TEXTS.values() for t in texts]
    labels = [c for c, texts in TEXTS.items() for _ in texts]
    return texts, labels


@pytest.mark.parametrize("kind", [EMBEDDINGS, BAG_OF_WORDS])
def test_probabilities_have_one_column_per_category_in_sorted_order(kind: str) -> None:
    features, labels = clustered(20, ["weather", "arts", "sport"])
    if kind == BAG_OF_WORDS:
        features = features - features.min()  # any non-negative matrix will do for the SVM
    model = QuickModel(kind).fit(features, labels)
    assert model.categories == ["arts", "sport", "weather"]
    probabilities = model.predict_proba(features[:7])
    assert probabilities.shape == (7, 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    assert (probabilities >= 0).all()
    # well-separated groups: the most probable column names each text's own category
    assert list(model.predict(features)) == labels
    assert [model.categories[i] for i in probabilities.argmax(axis=1)] == labels[:7]


def test_bag_of_words_model_on_real_words_and_its_calibrated_probabilities() -> None:
    texts, labels = word_corpus()
    features = pool_features(BAG_OF_WORDS, texts, FeatureCache())
    model = QuickModel(BAG_OF_WORDS).fit(features, labels)
    assert model.probability_method == "softmax of decision values, temperature-scaled"
    new = pool_features(BAG_OF_WORDS, texts + ["rain and a cold wind", "the team scored"], FeatureCache())
    probabilities = QuickModel(BAG_OF_WORDS).fit(new[:12], labels).predict_proba(new[12:])
    assert probabilities[0, 1] > 0.5 and probabilities[1, 0] > 0.5  # weather, then sport


def test_named_categories_fix_the_columns_and_uncoded_ones_get_zero() -> None:
    features, labels = clustered(10, ["a", "b"])
    model = QuickModel(EMBEDDINGS).fit(features, labels, categories=["b", "never coded", "a"])
    probabilities = model.predict_proba(features)
    assert model.categories == ["b", "never coded", "a"]
    assert (probabilities[:, 1] == 0).all()
    assert list(model.predict(features)) == labels
    with pytest.raises(DataError, match="not in the codebook"):
        QuickModel(EMBEDDINGS).fit(features, labels, categories=["a"])


def test_one_category_is_answered_with_certainty_and_empty_codings_are_refused() -> None:
    features, _ = clustered(3, ["a"])
    model = QuickModel(BAG_OF_WORDS).fit(np.abs(features), ["only"] * 3)
    np.testing.assert_array_equal(model.predict_proba(np.abs(features)), np.ones((3, 1)))
    with pytest.raises(DataError, match="empty"):
        QuickModel(EMBEDDINGS).fit(features, ["a", None, "b"])
    with pytest.raises(DataError, match="3 texts but 2 codings"):
        QuickModel(EMBEDDINGS).fit(features, ["a", "b"])
    with pytest.raises(DataError, match="no quick model"):
        QuickModel("forest")


def test_folds_hold_every_text_out_once_and_spread_each_category() -> None:
    labels = ["a"] * 23 + ["b"] * 11 + ["c"] * 7
    folds = stratified_folds(labels, folds=5, seed=3)
    assert folds.shape == (len(labels),) and set(folds) == set(range(5))
    for category in "abc":
        per_fold = Counter(f for f, label in zip(folds, labels, strict=True) if label == category)
        assert max(per_fold.values()) - min(per_fold.values()) <= 1
    assert (stratified_folds(labels, 5, seed=3) == folds).all()
    assert not (stratified_folds(labels, 5, seed=4) == folds).all()


def test_out_of_fold_probabilities_come_from_fits_that_never_saw_the_text() -> None:
    # pure noise: a model that had seen a text would recall its coding; held out, it guesses
    rng = np.random.default_rng(0)
    features = rng.normal(size=(120, 200)).astype(np.float32)
    labels = list(rng.choice(["x", "y"], size=120))
    probabilities, categories = out_of_fold_probabilities(EMBEDDINGS, features, labels, folds=5, seed=0)
    assert probabilities.shape == (120, 2) and categories == ["x", "y"]
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    truth = np.array([categories.index(v) for v in labels])
    in_sample = QuickModel(EMBEDDINGS).fit(features, labels).predict_proba(features).argmax(axis=1)
    assert (in_sample == truth).mean() > 0.95
    assert (probabilities.argmax(axis=1) == truth).mean() < 0.7


def test_folds_shrink_for_small_categories_and_a_single_coding_does_not_crash() -> None:
    assert stratified_folds(["a"] * 20 + ["b"] * 3, folds=5).max() + 1 == 3
    features, labels = clustered(8, ["a", "b"])
    labels = labels + ["lonely"]
    features = np.vstack([features, features[:1]])
    for kind in (EMBEDDINGS, BAG_OF_WORDS):
        data = features if kind == EMBEDDINGS else np.abs(features)
        probabilities, categories = out_of_fold_probabilities(kind, data, labels, folds=5)
        assert categories == ["a", "b", "lonely"]
        np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
        # its only coding was held out, so no fit could have learned the lonely category
        assert probabilities[-1, 2] == 0
    tiny, _ = out_of_fold_probabilities(BAG_OF_WORDS, np.eye(3), ["a", "b", "c"])
    np.testing.assert_allclose(tiny.sum(axis=1), 1.0)
    with pytest.raises(DataError, match="at least two coded texts"):
        out_of_fold_probabilities(EMBEDDINGS, features[:1], ["a"])


def test_temperature_scaling_sharpens_decisions_that_are_right_and_flattens_wrong_ones() -> None:
    scores = np.array([[1.0, -1.0], [-1.0, 1.0]] * 10)
    assert fit_temperature(scores, np.array([0, 1] * 10)) > 10
    assert fit_temperature(scores, np.array([1, 0] * 10)) < 0.05


class CountingEmbeddings:
    """Stands in for the sentence embeddings: a vector from the text's length, counting texts."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def prepare_settings(self) -> tuple:
        return ("counting",)

    def prepare(self, texts, on_event):
        self.embedded += texts

        class Prepared:
            matrix = np.array([[len(t), 1.0] for t in texts], dtype=np.float32)

        return Prepared()


def test_embeddings_are_computed_once_per_text_and_come_back_in_order() -> None:
    cache, representation = FeatureCache(), CountingEmbeddings()
    first = pool_features(EMBEDDINGS, ["aa", "b", "aa"], cache, representation=representation)
    np.testing.assert_array_equal(first[:, 0], [2, 1, 2])
    second = pool_features(EMBEDDINGS, ["ccc", "b", "aa"], cache, representation=representation)
    np.testing.assert_array_equal(second[:, 0], [3, 1, 2])
    assert representation.embedded == ["aa", "b", "ccc"]
    assert len(cache) == 3


def test_bag_of_words_of_the_same_texts_is_kept() -> None:
    texts, _ = word_corpus()
    cache = FeatureCache()
    first = pool_features(BAG_OF_WORDS, texts, cache)
    assert first.shape[0] == len(texts) and first.shape[1] > 5
    assert pool_features(BAG_OF_WORDS, list(texts), cache) is first
    assert pool_features(BAG_OF_WORDS, texts[:-1], cache) is not first


@pytest.mark.parametrize("kind", [EMBEDDINGS, BAG_OF_WORDS])
def test_a_few_codings_over_many_categories_train_without_warnings(kind: str) -> None:
    import warnings

    features, labels = clustered(2, ["a", "b", "c", "d"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = QuickModel(kind).fit(np.abs(features[:5]), labels[:5])
    assert model.predict_proba(np.abs(features)).shape == (8, len(set(labels[:5])))
