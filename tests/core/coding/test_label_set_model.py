"""The quick model of several categories per text: one yes/no question per category, learnt from
the coded sets; the next text drawn where a question is most in doubt, every open text keeping a
chance; trained first once a category has both answers, then every ten codings."""

from __future__ import annotations

import numpy as np

from guiapp.core.coding.label_set_model import (
    LabelSetRound,
    due,
    questions,
    set_distribution,
    set_margins,
    set_reason,
    train_label_sets,
)
from guiapp.core.coding.quick_model import BAG_OF_WORDS, FeatureCache, pool_features

WORDS = {"economy": "budget taxes jobs wages prices inflation markets trade".split(),
         "health": "hospital doctors care nurses patients clinics vaccines surgery".split()}
FILLER = [f"word{i}" for i in range(80)]


def corpus(n: int = 60, seed: int = 1) -> tuple[list[str], list[tuple[str, ...]]]:
    rng = np.random.default_rng(seed)
    texts, sets = [], []
    for _ in range(n):
        labels = tuple(name for name in WORDS if rng.random() < 0.5)
        words = [str(w) for name in labels for w in rng.choice(WORDS[name], 3, replace=False)]
        words += [str(w) for w in rng.choice(FILLER, 5, replace=False)]
        texts.append(" ".join(words))
        sets.append(labels)
    return texts, sets


def test_each_category_is_a_yes_no_question_learnt_from_the_sets():
    texts, sets = corpus()
    features = pool_features(BAG_OF_WORDS, texts, FeatureCache())
    pool = 20  # the first 20 texts are to code; the rest are coded
    found = train_label_sets(features, pool, list(range(pool, len(texts))), sets[pool:], ["economy", "health"],
                             kind=BAG_OF_WORDS, log_codings=7)
    assert found is not None and found.categories == ("economy", "health") and found.n_coded == 40
    assert found.probabilities.shape == (pool, 2) and found.log_codings == 7
    for i in range(pool):  # the words of a category make its "yes" likelier than without them
        for k, name in enumerate(found.categories):
            if name in sets[i]:
                assert found.probabilities[i, k] > 0.5
            else:
                assert found.probabilities[i, k] < 0.5


def test_a_category_without_both_answers_has_no_question_yet():
    assert questions([("a",), ("a", "b"), ()], ["a", "b", "c"]) == ["a", "b"]
    assert questions([("a",), ("a",)], ["a", "b"]) == []
    texts, _ = corpus()
    features = pool_features(BAG_OF_WORDS, texts, FeatureCache())
    assert train_label_sets(features, 2, [2, 3], [("a",), ("a",)], ["a"], kind=BAG_OF_WORDS) is None


def test_the_text_most_in_doubt_is_likeliest_and_every_open_text_keeps_a_chance():
    probabilities = np.array([[0.5, 0.9], [0.95, 0.02], [0.7, 0.1], [0.5, 0.5]])
    assert set_margins(probabilities).tolist() == [0.0, pytest_approx(0.9), pytest_approx(0.4), 0.0]
    found = LabelSetRound(("a", "b"), probabilities, 10, 10)
    open_texts = np.array([True, True, True, False])
    distribution = set_distribution(found, open_texts)
    assert abs(distribution.sum() - 1) < 1e-12
    assert distribution[3] == 0 and (distribution[:3] > 0).all()
    assert distribution[0] > distribution[2] > distribution[1]
    assert "“a”" in set_reason(probabilities[0], found.categories)


def test_training_is_due_once_a_question_exists_then_every_ten_codings():
    sets = [("a",), ()]
    assert not due(None, [("a",), ("a",)], ["a"], 2)
    assert due(None, sets, ["a"], 2)
    found = LabelSetRound(("a",), np.zeros((1, 1)), 2, 2)
    assert not due(found, sets, ["a"], 11)
    assert due(found, sets, ["a"], 12)


def pytest_approx(value: float):  # noqa: ANN201
    import pytest

    return pytest.approx(value)
