"""Codings the models doubt: confident learning on out-of-fold probabilities finds codings flipped on purpose."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from guiapp.core.coding.review import (
    CONFIDENT,
    MIN_CODINGS,
    doubted_codings,
    readiness_sentence,
    review_codings,
)
from guiapp.core.errors import DataError
from guiapp.core.locations import example_path
from tests.core.synthetic_texts import coded_texts

FLIPPED_SHARE = 0.05


def flip(labels, seed: int) -> tuple[list[str], np.ndarray]:
    """The labels with 5 % of them changed on purpose to another category, and which ones."""
    rng = np.random.default_rng(seed)
    labels = [str(x) for x in labels]
    categories = sorted(set(labels))
    flipped = rng.choice(len(labels), int(round(FLIPPED_SHARE * len(labels))), replace=False)
    for i in flipped:
        labels[i] = str(rng.choice([c for c in categories if c != labels[i]]))
    return labels, flipped


def out_of_fold(texts, labels, vectorizer=None, c: float = 1.0) -> tuple[np.ndarray, list[str]]:
    """Out-of-fold probabilities of a logistic regression on a bag of words (columns: sorted categories)."""
    features = (vectorizer or CountVectorizer()).fit_transform(texts)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    probabilities = cross_val_predict(LogisticRegression(max_iter=1000, C=c), features, labels, cv=folds,
                                      method="predict_proba")
    return probabilities, sorted(set(labels))


def share_flipped_on_top(doubts, flipped) -> float:
    top = [d.position for d in doubts[: len(flipped)]]
    return float(np.isin(top, flipped).sum() / len(flipped))


@pytest.fixture(scope="module")
def corpus():
    """600 synthetic texts of four topics (imbalanced: 40/30/20/10 %), 30 of them coded wrongly on purpose."""
    frame = coded_texts(600, shares=(0.4, 0.3, 0.2, 0.1), seed=0, noise=0.2)
    labels, flipped = flip(frame["label"], seed=100)
    probabilities, categories = out_of_fold(frame["text"], labels)
    return frame, labels, flipped, probabilities, categories


@pytest.mark.parametrize("rank_by", ["self_confidence", "normalized_margin"])
def test_codings_flipped_on_purpose_dominate_the_top(corpus, rank_by):
    frame, labels, flipped, probabilities, categories = corpus
    doubts = doubted_codings(labels, probabilities, categories, rank_by=rank_by)
    assert len(flipped) == 30
    assert share_flipped_on_top(doubts, flipped) >= 0.7  # chance would give 5 %
    # the models' suggestion is the category the text had before it was flipped
    on_top = [d for d in doubts[: len(flipped)] if d.position in flipped]
    assert np.mean([d.suggested == frame["label"][d.position] for d in on_top]) >= 0.9


def test_flipped_codings_dominate_on_other_draws_too():
    shares = []
    for seed in (1, 2, 3):
        frame = coded_texts(600, shares=(0.4, 0.3, 0.2, 0.1), seed=seed, noise=0.2)
        labels, flipped = flip(frame["label"], seed=100 + seed)
        probabilities, categories = out_of_fold(frame["text"], labels)
        shares.append(share_flipped_on_top(doubted_codings(labels, probabilities, categories), flipped))
    assert min(shares) >= 0.6 and np.mean(shares) >= 0.7


def test_flipped_codings_stand_out_among_real_bill_titles():
    """Real titles of US bills (the example study), six topics: a bag-of-words model agrees with the
    original coding about 80 % of the time, and some original codings are themselves debatable, so the
    flipped ones fill a smaller part of the top than on clean synthetic texts (about 60-70 % over
    draws), still more than ten times chance."""
    bills = pd.read_excel(example_path(), sheet_name="Bills", engine="calamine")
    bills = bills[bills["Topic"].isin(bills["Topic"].value_counts().index[:6])].sample(900, random_state=0)
    labels, flipped = flip(bills["Topic"], seed=0)
    probabilities, categories = out_of_fold(bills["Title"].tolist(), labels, TfidfVectorizer(sublinear_tf=True), c=10)
    assert share_flipped_on_top(doubted_codings(labels, probabilities, categories), flipped) >= 0.5


def test_doubts_are_ranked_and_described(corpus):
    _, labels, _, probabilities, categories = corpus
    review = review_codings(labels, probabilities, categories)
    doubts = review.doubts
    assert doubts and review.n_checked == 600 and review.not_checked == ()
    assert [d.score for d in doubts] == sorted(d.score for d in doubts)  # most doubtful first
    for d in doubts:
        row = probabilities[d.position]
        assert d.coded == labels[d.position] and d.suggested != d.coded
        others = [p for c, p in zip(categories, row, strict=True) if c != d.coded]
        assert d.confidence == pytest.approx(max(others))
        assert d.suggested == categories[list(row).index(max(others))]
        assert d.coded_probability == pytest.approx(row[categories.index(d.coded)])
        assert d.score == pytest.approx(d.coded_probability)  # self-confidence
    assert review.sentence.startswith(f"The models doubt {len(doubts)} of 600 codings")
    assert [d.position for d in doubted_codings(labels, probabilities, categories, limit=5)] == \
        [d.position for d in doubts[:5]]
    assert review_codings(labels, probabilities, categories, limit=0).doubts == []


def test_uncoded_texts_are_never_doubted(corpus):
    _, labels, flipped, probabilities, categories = corpus
    partly = [None if i in flipped[:10] else label for i, label in enumerate(labels)]
    partly[11], partly[12] = float("nan"), pd.NA
    uncoded = set(flipped[:10].tolist()) | {11, 12}
    review = review_codings(partly, probabilities, categories)
    assert not {d.position for d in review.doubts} & uncoded
    assert review.n_checked == 600 - len(uncoded)


def test_one_category_gives_a_clear_empty_answer():
    review = review_codings(["a"] * 8, np.ones((8, 1)), ["a"])
    assert review.doubts == [] and "at least two categories" in review.sentence and "all 8 are “a”" in review.sentence
    review = review_codings(["a"] * 8, np.tile([0.9, 0.1], (8, 1)), ["a", "b"])
    assert review.doubts == [] and "at least two categories" in review.sentence
    review = review_codings([None, None], np.tile([0.5, 0.5], (2, 1)), ["a", "b"])
    assert review.doubts == [] and "none yet" in review.sentence


def test_a_category_with_a_single_coding_is_not_checked():
    rng = np.random.default_rng(0)
    labels = ["a"] * 20 + ["b"] * 20 + ["c"]
    probabilities = np.vstack([rng.dirichlet([8, 1, 1], 20), rng.dirichlet([1, 8, 1], 20), [[0.6, 0.4, 0.0]]])
    probabilities[3] = [0.02, 0.97, 0.01]  # coded "a", the models say "b"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        review = review_codings(labels, probabilities, ["a", "b", "c"])
    assert review.not_checked == ("c",) and review.n_checked == 40
    assert 40 not in {d.position for d in review.doubts}
    assert review.doubts[0].position == 3 and review.doubts[0].suggested == "b"
    assert "Codings of “c” are not checked" in review.sentence


def test_too_few_codings_in_all_but_one_category_give_a_clear_empty_answer():
    labels = ["a"] * 10 + ["b"] * (MIN_CODINGS - 1)
    probabilities = np.tile([0.3, 0.7], (len(labels), 1))
    review = review_codings(labels, probabilities, ["a", "b"])
    assert review.doubts == [] and review.not_checked == ("b",)
    assert f"at least {MIN_CODINGS} codings" in review.sentence and "only “a” has that many" in review.sentence


def test_probabilities_that_do_not_fit_are_refused_with_a_message():
    labels = ["a", "b", "a"]
    with pytest.raises(DataError, match="shape"):
        review_codings(labels, np.ones((2, 2)) / 2, ["a", "b"])
    with pytest.raises(DataError, match="shape"):
        review_codings(labels, np.ones((3, 3)) / 3, ["a", "b"])
    with pytest.raises(DataError, match="no column"):
        review_codings(["a", "b", "z"], np.ones((3, 2)) / 2, ["a", "b"])
    with pytest.raises(DataError, match="missing, negative"):
        review_codings(labels, np.array([[0.5, np.nan], [0.5, 0.5], [0.5, 0.5]]), ["a", "b"])
    with pytest.raises(DataError, match="ranked"):
        review_codings(labels, np.ones((3, 2)) / 2, ["a", "b"], rank_by="entropy")
    with pytest.raises(DataError, match="named twice"):
        review_codings(labels, np.ones((3, 2)) / 2, ["a", "a"])


def many_categories_review(suggested_share: float):
    """27 categories with 8 codings each; text 0 is coded "c00" while the models put ``suggested_share``
    on "c01" (the rest spread thin): a doubt whose suggestion is far from confident."""
    categories = [f"c{i:02d}" for i in range(27)]
    labels = [c for c in categories for _ in range(8)]
    rng = np.random.default_rng(0)
    probabilities = np.full((len(labels), len(categories)), 0.035)  # many categories: every probability is small
    for i, label in enumerate(labels):
        probabilities[i, categories.index(label)] = 0.08 + rng.uniform(0, 0.03)
    probabilities[0] = (1 - suggested_share - 0.01) / 25
    probabilities[0, 1], probabilities[0, 0] = suggested_share, 0.01
    return review_codings(labels, probabilities / probabilities.sum(axis=1, keepdims=True), categories)


def test_a_doubt_below_the_confident_threshold_is_not_called_confident():
    review = many_categories_review(0.12)
    assert review.doubts and max(d.confidence for d in review.doubts) < CONFIDENT
    assert "confident" not in review.sentence.replace("not confident", "")
    shown = sorted(round(d.confidence * 100) for d in review.doubts)
    assert f"{shown[0]}" in review.sentence and "%" in review.sentence  # the numbers, not a claim


def test_confident_doubts_are_called_confident_with_the_threshold():
    labels = ["yes"] * 30 + ["no"] * 30
    probabilities = np.where(np.array(labels)[:, None] == np.array(["yes", "no"]), 0.9, 0.1)
    probabilities[[3, 40]] = probabilities[[3, 40]][:, ::-1]
    review = review_codings(labels, probabilities, ["yes", "no"])
    assert {d.position for d in review.doubts} == {3, 40}
    assert f"confidently in another category ({round(CONFIDENT * 100)} % or more)" in review.sentence


def test_a_category_that_is_not_checked_is_never_suggested():
    rng = np.random.default_rng(0)
    labels = ["a"] * 20 + ["b"] * 20 + ["c"] * 2
    probabilities = np.vstack([rng.dirichlet([8, 1, 1], 20), rng.dirichlet([1, 8, 1], 20), [[0.3, 0.1, 0.6]] * 2])
    probabilities[3] = [0.02, 0.28, 0.70]  # coded "a"; "c" most likely, but "c" is not checked
    review = review_codings(labels, probabilities, ["a", "b", "c"])
    assert review.not_checked == ("c",) and "Codings of “c” are not checked" in review.sentence
    assert review.doubts and all(d.suggested != "c" for d in review.doubts)
    doubt = next(d for d in review.doubts if d.position == 3)
    assert doubt.suggested == "b" and doubt.confidence == pytest.approx(0.28)


def test_before_a_check_the_sentence_names_what_the_quick_model_learnt():
    counts = {"health": 30, "energy": 12, "defence": 7, "labor": 2, "rights": 0}
    sentence = readiness_sentence(counts, trained_on=(51, 4))
    assert "51 coded texts in 4 categories" in sentence
    assert "3 categories with at least 5 codings" in sentence and "“labor”" in sentence
    assert "two categories" not in sentence
    assert "not been trained" in readiness_sentence(counts, trained_on=None)
    assert "at least two categories" in readiness_sentence({"health": 3}, trained_on=None)
