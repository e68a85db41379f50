"""Which text to code next: every strategy draws from a distribution whose probabilities are
recorded exactly, uncertainty prefers the texts on the boundary, diversity spreads over groups of
similar texts, rare categories are up-weighted, and texts already coded are never chosen."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chisquare

from guiapp.core.coding.pool_clusters import PoolClusters, default_cluster_count
from guiapp.core.coding.strategies import (
    STRATEGIES,
    STRATEGY_WORDS,
    Choice,
    SamplingSettings,
    choose_next,
    default_strategy,
    draw,
    margins,
    selection_distribution,
)
from guiapp.core.errors import DataError


def toy_pool() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """201 texts on a line from -3 to 3; the model says 'b' to the right of 0, 'a' to the left,
    and is unsure only near 0. Returns positions on the line, probabilities, and which texts lie
    on the boundary (|x| ≤ 0.3, 21 texts, about a tenth of the pool)."""
    x = np.linspace(-3, 3, 201)
    p_b = 1 / (1 + np.exp(-4 * x))
    return x, np.column_stack([1 - p_b, p_b]), np.abs(x) <= 0.3 + 1e-9


def blobs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Embeddings in four well separated groups of 300, 20, 20 and 20 texts."""
    rng = np.random.default_rng(seed)
    sizes = (300, 20, 20, 20)
    centres = np.eye(8)[:4] * 10
    truth = np.repeat(np.arange(4), sizes)
    return centres[truth] + rng.normal(scale=0.3, size=(truth.size, 8)), truth


def mixed_pool(seed: int = 1, n: int = 12, k: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=1.5, size=(n, k))
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


# --- when the model takes over ---------------------------------------------------------------


def test_default_strategy_is_random_until_two_categories_have_five_codings() -> None:
    assert default_strategy({}) == "random"
    assert default_strategy({"a": 40}) == "random"
    assert default_strategy({"a": 5, "b": 4}) == "random"
    assert default_strategy({"a": 5, None: 30, "": 9}) == "random"  # skipped texts do not count
    assert default_strategy({"a": 5, "b": 5}) == "uncertainty"
    assert default_strategy({"a": 12, "b": 0, "c": 7}) == "uncertainty"


def test_every_strategy_has_words_for_the_screen() -> None:
    assert set(STRATEGY_WORDS) == set(STRATEGIES)
    assert all(label and tooltip.endswith(".") for label, tooltip in STRATEGY_WORDS.values())


# --- distributions ---------------------------------------------------------------------------


def test_margin_is_the_gap_between_the_two_most_probable_categories() -> None:
    p = np.array([[0.5, 0.3, 0.2], [0.1, 0.45, 0.45], [0.0, 0.0, 1.0]])
    assert margins(p) == pytest.approx([0.2, 0.0, 1.0])
    assert margins(np.ones((3, 1))) == pytest.approx([1, 1, 1])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_distribution_sums_to_one_and_leaves_out_excluded_texts(strategy: str) -> None:
    embeddings, _ = blobs()
    n = embeddings.shape[0]
    p = mixed_pool(n=n)
    exclude = [0, 5, 301, 359, 5]  # a repeated position is fine
    distribution = selection_distribution(
        strategy,
        n,
        probabilities=p,
        clusters=PoolClusters.fit(embeddings, n_clusters=4),
        coded_counts={"a": 3, "b": 9, "c": 1},
        categories=["a", "b", "c"],
        exclude=exclude,
    )
    assert distribution.shape == (n,)
    assert distribution.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(distribution[exclude] == 0)
    others = np.setdiff1d(np.arange(n), exclude)
    assert np.all(distribution[others] > 0)  # every text left can still be chosen


def test_random_is_uniform_over_the_texts_left() -> None:
    distribution = selection_distribution("random", 10, exclude=[2, 3])
    assert distribution[[2, 3]].tolist() == [0, 0]
    assert np.allclose(np.delete(distribution, [2, 3]), 1 / 8)


def test_uniform_share_keeps_every_text_above_its_floor() -> None:
    _, p, _ = toy_pool()
    settings = SamplingSettings(uniform_share=0.1)
    distribution = selection_distribution("uncertainty", len(p), probabilities=p, settings=settings)
    assert distribution.min() >= 0.1 / len(p) - 1e-15


def test_uncertainty_puts_most_weight_on_the_boundary() -> None:
    _, p, boundary = toy_pool()
    distribution = selection_distribution("uncertainty", len(p), probabilities=p)
    assert distribution[boundary].sum() > 0.85
    assert boundary[np.argmax(distribution)]
    # closer to the boundary is more likely, on either side
    assert distribution[100] > distribution[104] > distribution[110] > distribution[130]
    assert distribution[100] > distribution[96] > distribution[90] > distribution[70]


def test_uncertainty_draws_are_dominated_by_boundary_texts() -> None:
    _, p, boundary = toy_pool()
    rng = np.random.default_rng(7)
    picks = [choose_next("uncertainty", len(p), probabilities=p, rng=rng).position for _ in range(1000)]
    at_random = [choose_next("random", len(p), rng=rng).position for _ in range(1000)]
    assert boundary[picks].mean() > 0.8
    assert boundary[at_random].mean() < 0.2


def test_rare_categories_are_up_weighted() -> None:
    # Two texts the model is equally unsure about: one between a and b, one between b and c.
    p = np.array([[0.6, 0.4, 0.0], [0.0, 0.4, 0.6], [1.0, 0.0, 0.0]])
    categories = ["a", "b", "c"]
    plain = selection_distribution("uncertainty", 3, probabilities=p, categories=categories)
    assert plain[0] == pytest.approx(plain[1])
    counts = {"a": 50, "b": 50, "c": 1}
    balanced = selection_distribution(
        "uncertainty", 3, probabilities=p, categories=categories, coded_counts=counts
    )
    assert balanced[1] > 2 * balanced[0]
    off = SamplingSettings(balance_strength=0)
    unbalanced = selection_distribution(
        "uncertainty", 3, probabilities=p, categories=categories, coded_counts=counts, settings=off
    )
    assert unbalanced == pytest.approx(plain)
    even = {"a": 7, "b": 7, "c": 7}  # as many codings everywhere: nothing changes
    assert selection_distribution(
        "uncertainty", 3, probabilities=p, categories=categories, coded_counts=even
    ) == pytest.approx(plain)


def test_diversity_is_probability_of_group_times_probability_within_group() -> None:
    # Group 0: a tie and a near tie; group 1: one text the model is fairly sure about.
    p = np.array([[0.5, 0.5], [0.475, 0.525], [0.25, 0.75]])
    clusters = PoolClusters(labels=np.array([0, 0, 1]), n_clusters=2)
    settings = SamplingSettings(temperature=0.05, uniform_share=0.2, balance_strength=0)
    distribution = selection_distribution(
        "diversity", 3, probabilities=p, clusters=clusters, settings=settings
    )
    worth = {0: (1.0 + 0.95) / 2, 1: 0.5}  # mean of 1 - margin per group
    group = {g: 0.8 * worth[g] / (worth[0] + worth[1]) + 0.2 / 2 for g in (0, 1)}
    weights = np.array([1.0, math.exp(-1)])  # exp(-(margin - 0) / 0.05)
    within = 0.8 * weights / weights.sum() + 0.2 / 2
    expected = [group[0] * within[0], group[0] * within[1], group[1] * 1.0]
    assert distribution == pytest.approx(expected, rel=1e-12)


def test_diversity_spreads_over_groups_where_random_follows_their_sizes() -> None:
    embeddings, truth = blobs()
    n = len(truth)
    clusters = PoolClusters.fit(embeddings, n_clusters=4)
    # the four groups are found again (whatever their numbers)
    assert all(len(np.unique(clusters.labels[truth == g])) == 1 for g in range(4))
    assert len(np.unique(clusters.labels)) == 4
    p = np.tile([0.6, 0.4], (n, 1))  # the model is equally unsure everywhere
    for probabilities in (None, p):
        distribution = selection_distribution(
            "diversity", n, probabilities=probabilities, clusters=clusters
        )
        per_group = np.bincount(truth, weights=distribution)
        assert per_group == pytest.approx([0.25] * 4)
    rng = np.random.default_rng(3)
    picks = [
        choose_next("diversity", n, probabilities=p, clusters=clusters, rng=rng).position
        for _ in range(800)
    ]
    share = np.bincount(truth[picks], minlength=4) / len(picks)
    assert share.min() > 0.18
    assert np.bincount(truth, weights=selection_distribution("random", n))[0] > 0.8


def test_diversity_prefers_groups_the_model_is_unsure_about() -> None:
    _, truth = blobs()
    n = len(truth)
    p = np.tile([0.95, 0.05], (n, 1))
    p[truth == 2] = [0.5, 0.5]  # only the third group is hard
    distribution = selection_distribution(
        "diversity", n, probabilities=p, clusters=PoolClusters(labels=truth, n_clusters=4)
    )
    per_group = np.bincount(truth, weights=distribution)
    assert per_group[2] == per_group.max()
    assert per_group.min() > 0.1 / 4  # the uniform share still reaches the easy groups


def test_diversity_groups_the_embeddings_when_no_groups_are_given() -> None:
    embeddings, truth = blobs()
    distribution = selection_distribution("diversity", len(truth), embeddings=embeddings, exclude=[1])
    assert distribution.sum() == pytest.approx(1.0)
    assert distribution[1] == 0


def test_a_group_with_every_text_coded_is_never_drawn() -> None:
    _, truth = blobs()
    coded = np.flatnonzero(truth == 1)
    distribution = selection_distribution(
        "diversity",
        len(truth),
        probabilities=np.tile([0.6, 0.4], (len(truth), 1)),
        clusters=PoolClusters(labels=truth, n_clusters=4),
        exclude=coded,
    )
    per_group = np.bincount(truth, weights=distribution)
    assert per_group[1] == 0
    assert per_group[[0, 2, 3]] == pytest.approx([1 / 3] * 3)


# --- the draw matches the recorded probability ----------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_recorded_probabilities_match_how_often_each_text_is_drawn(strategy: str) -> None:
    n = 12
    p = mixed_pool(n=n)
    clusters = PoolClusters(labels=np.arange(n) % 3, n_clusters=3)
    settings = SamplingSettings(temperature=0.2)  # keep every expected count large enough to test
    exclude = [4, 9]
    options = {
        "probabilities": p,
        "clusters": clusters,
        "coded_counts": {"a": 2, "b": 10, "c": 5},
        "categories": ["a", "b", "c"],
        "exclude": exclude,
        "settings": settings,
    }
    distribution = selection_distribution(strategy, n, **options)
    rng = np.random.default_rng(11)
    draws = 12_000
    counts = np.zeros(n)
    for _ in range(draws):
        choice = choose_next(strategy, n, rng=rng, **options)
        assert isinstance(choice, Choice) and choice.strategy == strategy
        assert choice.probability == distribution[choice.position]  # exactly what was drawn from
        counts[choice.position] += 1
    assert counts[exclude].sum() == 0
    left = np.setdiff1d(np.arange(n), exclude)
    assert distribution[left].min() * draws > 20
    _, p_value = chisquare(counts[left], distribution[left] * draws)
    assert p_value > 1e-3


def test_draw_never_returns_a_position_of_probability_zero() -> None:
    distribution = np.array([0.0, 0.0, 0.3, 0.0, 0.7, 0.0])
    rng = np.random.default_rng(0)
    picks = {draw(distribution, rng) for _ in range(2000)}
    assert picks == {2, 4}


# --- groups ---------------------------------------------------------------------------------------


def test_default_group_count_grows_with_the_pool_and_stays_bounded() -> None:
    assert default_cluster_count(1) == 1
    assert default_cluster_count(3) == 2
    assert default_cluster_count(100) == 5
    assert default_cluster_count(1_000) == 16
    assert default_cluster_count(100_000) == 50


def test_identical_texts_leave_no_empty_group() -> None:
    embeddings = np.tile([1.0, 0.0, 0.0], (10, 1))
    embeddings[5:] = [0.0, 1.0, 0.0]
    clusters = PoolClusters.fit(embeddings, n_clusters=4)
    assert clusters.n_clusters == 2
    assert clusters.sizes().tolist() == [5, 5]


# --- readable errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: selection_distribution("best", 5),
        lambda: selection_distribution("uncertainty", 5),
        lambda: selection_distribution("diversity", 5),
        lambda: selection_distribution("random", 0),
        lambda: selection_distribution("random", 3, exclude=[0, 1, 2]),
        lambda: selection_distribution("random", 3, exclude=[3]),
        lambda: selection_distribution("random", 3, exclude=[-1]),
        lambda: selection_distribution("uncertainty", 3, probabilities=np.ones((4, 2)) / 2),
        lambda: selection_distribution(
            "uncertainty", 2, probabilities=np.array([[np.nan, 1.0], [0.5, 0.5]])
        ),
        lambda: selection_distribution(
            "uncertainty", 2, probabilities=np.ones((2, 2)) / 2, categories=["a", "b", "c"]
        ),
        lambda: selection_distribution(
            "uncertainty", 2, probabilities=np.ones((2, 2)) / 2, coded_counts={"a": 1}
        ),
        lambda: selection_distribution("diversity", 3, embeddings=np.ones((4, 2))),
        lambda: selection_distribution(
            "diversity", 3, clusters=PoolClusters(labels=np.zeros(4, dtype=int), n_clusters=1)
        ),
        lambda: selection_distribution("random", 3, settings=SamplingSettings(uniform_share=0)),
        lambda: selection_distribution("random", 3, settings=SamplingSettings(temperature=0)),
        lambda: PoolClusters.fit(np.array([[np.inf, 1.0]])),
        lambda: PoolClusters.fit(np.ones((3, 2)), n_clusters=0),
    ],
)
def test_bad_input_gets_a_message_and_a_hint(call) -> None:
    with pytest.raises(DataError) as error:
        call()
    assert error.value.message and error.value.hint
