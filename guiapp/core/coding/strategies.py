"""Which uncoded text to code next: at random, where the quick model is least sure, or where it is
least sure spread over the kinds of texts in the pool — always drawn at random from a known
distribution, so that every coding records the probability with which its text was chosen.

**Why sampling, never the single best text.** Later estimates (shares of categories in the
corpus, regressions on the coded texts) must correct for how the coded texts were chosen; with
the probability of each choice on record they can weight each coded text by its inverse. A hard
arg-max has no such probability (it is 1 for one text and 0 for all others, so most of the pool
could never be chosen). Each strategy therefore builds a distribution over the pool and draws one
text from it; a small uniform share (``uniform_share``, 10 % by default) keeps every text that can
still be coded at a probability above 0. Drawing from a tempered (softmax) distribution over the
scores instead of taking the top texts costs little in how fast the model learns (Kirsch et al.
2023, "Stochastic Batch Acquisition: A Simple Baseline for Deep Active Learning", TMLR).

**The strategies.**

- ``random``: every text that can still be coded is equally likely (1 / number left). Used until
  two categories have at least five codings each (``default_strategy``): before that the quick
  model cannot say where it is unsure.
- ``uncertainty``: the margin between the two most probable categories of the quick model
  (Scheffer et al. 2001; "breaking ties", Luo et al. 2005). A text gets weight
  exp(-(margin - smallest margin) / temperature) (temperature 0.05: a text whose margin is 0.1
  larger than the closest call is about 7 times less likely), times the class balance below.
- ``diversity``: uncertainty within groups of similar texts. The pool is split once into groups
  by k-means on its sentence embeddings (``PoolClusters``, reused for every choice); a choice first
  draws a group, then a text within it, so the choices spread over the kinds of texts instead of
  piling up on one confusing kind. A group is drawn with probability proportional to the mean
  (balance-weighted) uncertainty of its texts, mixed with a uniform share over the groups; the
  text within the group as in ``uncertainty``. Each text belongs to exactly one group, so its
  probability is P(group) × P(text | group). Without a quick model yet the groups are drawn
  uniformly and the text within uniformly — a spread-out start. This follows the idea of
  Cluster-Margin (Citovsky et al. 2021, NeurIPS). We chose it over BADGE (Ash et al. 2020), which
  needs the gradient embedding of every text under the classifier (for 20 categories and
  384-dimensional sentence embeddings, 7,680 numbers a text — 3 GB for 100,000 texts) and
  recomputes it after every retraining, whereas the groups here are found once per pool and make
  a choice a few vectorised sums; and unlike BADGE's batch selection, a group-then-text draw has
  an exact, simple selection probability.
- **Class balance** (``uncertainty`` and ``diversity``): rare categories are found by
  up-weighting texts the model thinks belong to them. With n_c codings of category c among N
  codings in K categories, category c gets the factor ((N + K) / (K · (n_c + 1)))^strength
  (strength 0.5 by default; 1 for every category when all have as many codings), and a text the
  expected factor under its predicted probabilities. ``random`` stays uniform on purpose: it is
  the plain random sample that estimates are easiest to correct with.

**Written on numpy and scikit-learn, not small-text or modAL.** Both libraries rank the pool
and return the top texts — small-text's confidence-based strategies take an ``argpartition`` of
the scores, modAL's ``uncertainty_sampling`` a (shuffled) arg-max — so neither gives the
probability with which a text was chosen, which is exactly what TextLab must record so that later
estimates can correct for the selection; we would have to rebuild the sampling around them
anyway. modAL's last release (0.4.2.1) dates from June 2023 and pins skorch 0.9.0; small-text is
kept up (1.4.1 from August 2024, development releases of 2.0 since) but brings dill, tqdm and its
own dataset and classifier wrappers that TextLab would not use. The strategies themselves are a
few vectorised lines each (the margin from two columns of the probabilities; k-means from
scikit-learn), so writing them keeps the dependencies short and lets the tests check exactly the
distribution each choice is drawn from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from guiapp.core.coding.pool_clusters import PoolClusters
from guiapp.core.errors import DataError

STRATEGIES = ("random", "uncertainty", "diversity")

#: Each strategy in a researcher's words: (name on screen, one-sentence tooltip).
STRATEGY_WORDS = {
    "random": (
        "At random",
        "Every uncoded text is equally likely to come next.",
    ),
    "uncertainty": (
        "Where the model is least sure",
        (
            "Texts the model finds hard to place between two categories come first, so each "
            "coding teaches it the most."
        ),
    ),
    "diversity": (
        "Least sure, across kinds of texts",
        "Like 'least sure', but spread over groups of similar texts so no kind of text is left out.",
    ),
}

#: Codings needed in each of ``MIN_CATEGORIES`` categories before the model guides the choice.
MIN_CODINGS = 5
MIN_CATEGORIES = 2


@dataclass(frozen=True)
class SamplingSettings:
    """How sharply a strategy prefers the texts it scores highest."""

    temperature: float = 0.05  # of the margin: smaller → closer to always the least sure text
    uniform_share: float = 0.1  # share of every choice spread evenly, so no text has probability 0
    balance_strength: float = 0.5  # 0: no up-weighting of rare categories

    def check(self) -> None:
        if not 0.005 <= self.temperature <= 100:
            raise DataError(
                f"The temperature {self.temperature} is out of range.",
                "Use a temperature between 0.005 and 100 (0.05 by default).",
            )
        if not 0 < self.uniform_share <= 1:
            raise DataError(
                f"The even share {self.uniform_share} is out of range.",
                "Use a share above 0 and at most 1 (0.1 by default), so every text can be chosen.",
            )
        if not 0 <= self.balance_strength <= 4:
            raise DataError(
                f"The strength of the class balance {self.balance_strength} is out of range.",
                "Use a strength between 0 (off) and 4 (0.5 by default).",
            )


@dataclass(frozen=True)
class Choice:
    position: int  # index into the pool arrays given
    probability: float  # the probability with which it was drawn (strategies sample, never arg-max)
    strategy: str  # "random" | "uncertainty" | "diversity"


def default_strategy(counts: Mapping[str | None, int]) -> str:
    """``"random"`` until at least two categories have at least five codings, then
    ``"uncertainty"``. Skipped texts (category ``None`` or empty) do not count."""
    ready = sum(1 for category, n in counts.items() if category and n >= MIN_CODINGS)
    return "uncertainty" if ready >= MIN_CATEGORIES else "random"


def margins(probabilities: np.ndarray) -> np.ndarray:
    """Probability of the most probable category minus that of the second, per text (0: a tie,
    1: certain). With one category every margin is 1."""
    p = np.asarray(probabilities, dtype=np.float64)
    if p.shape[1] < 2:
        return np.ones(p.shape[0])
    top_two = np.partition(p, (p.shape[1] - 2, p.shape[1] - 1), axis=1)[:, -2:]
    return top_two[:, 1] - top_two[:, 0]


def selection_distribution(
    strategy: str,
    n_pool: int,
    *,
    probabilities: np.ndarray | None = None,
    embeddings: np.ndarray | None = None,
    clusters: PoolClusters | None = None,
    coded_counts: Mapping[str, int] | None = None,
    categories: Sequence[str] | None = None,
    exclude: Iterable[int] = (),
    settings: SamplingSettings | None = None,
) -> np.ndarray:
    """The probability of each pool position being chosen next (float64, sums to 1; excluded
    positions 0). ``probabilities``: (n_pool, n_categories) from the quick model, columns in
    ``categories`` order. ``clusters`` (or, slower, ``embeddings`` to group on the spot) for
    ``diversity``."""
    if strategy not in STRATEGIES:
        raise DataError(
            f"There is no way to choose texts called '{strategy}'.",
            "Choose one of: " + ", ".join(STRATEGIES) + ".",
        )
    settings = settings or SamplingSettings()
    settings.check()
    available = _available(n_pool, exclude)
    if strategy == "random":
        return _normalised(available.astype(np.float64))
    p = _checked_probabilities(probabilities, n_pool, categories) if probabilities is not None else None
    if strategy == "uncertainty":
        if p is None:
            raise DataError(
                "Choosing the texts the model is least sure about needs a trained quick model.",
                f"Code at least {MIN_CODINGS} texts in each of {MIN_CATEGORIES} categories first "
                "(texts come at random until then), or choose texts at random.",
            )
        margin = margins(p)
        balance = _balance_factors(p, coded_counts, categories, settings.balance_strength)
        weights = _uncertainty_weights(margin, balance, available, settings.temperature)
        return _normalised(_mixed(weights, available.astype(np.float64), settings.uniform_share))
    groups = _groups(clusters, embeddings, n_pool)
    return _diversity(groups, available, p, coded_counts, categories, settings)


def choose_next(
    strategy: str,
    n_pool: int,
    *,
    probabilities: np.ndarray | None = None,
    embeddings: np.ndarray | None = None,
    coded_counts: Mapping[str, int] | None = None,
    categories: Sequence[str] | None = None,
    rng: np.random.Generator,
    exclude: Iterable[int] = (),
    clusters: PoolClusters | None = None,
    settings: SamplingSettings | None = None,
) -> Choice:
    """Draw the next text to code from ``selection_distribution`` and record the probability
    with which it was drawn."""
    distribution = selection_distribution(
        strategy,
        n_pool,
        probabilities=probabilities,
        embeddings=embeddings,
        clusters=clusters,
        coded_counts=coded_counts,
        categories=categories,
        exclude=exclude,
        settings=settings,
    )
    position = draw(distribution, rng)
    return Choice(position=position, probability=float(distribution[position]), strategy=strategy)


def draw(distribution: np.ndarray, rng: np.random.Generator) -> int:
    """One position drawn with the given probabilities; a position with probability 0 is never
    drawn."""
    cumulative = np.cumsum(distribution)
    target = rng.random() * cumulative[-1]
    # side="right": the first position whose cumulative sum passes the target, which skips every
    # position of probability 0 (its cumulative sum equals the one before it).
    position = int(np.searchsorted(cumulative, target, side="right"))
    if position >= len(distribution) or distribution[position] <= 0:  # rounding at the very end
        position = int(np.flatnonzero(distribution > 0)[-1])
    return position


def _available(n_pool: int, exclude: Iterable[int]) -> np.ndarray:
    if n_pool < 1:
        raise DataError(
            "There are no uncoded texts to choose from.",
            "Add uncoded rows to the table or open a second file of texts to code.",
        )
    available = np.ones(n_pool, dtype=bool)
    excluded = np.fromiter((int(position) for position in exclude), dtype=np.intp)
    if excluded.size:
        if excluded.min() < 0 or excluded.max() >= n_pool:
            raise DataError(
                f"A text to leave out is outside the pool of {n_pool} texts.",
                "Leave out only positions of the pool (0 to the number of texts minus 1).",
            )
        available[excluded] = False
    if not available.any():
        raise DataError(
            "Every text in the pool has been coded or skipped.",
            "Open a second file of texts to code, or review the codings the models doubt.",
        )
    return available


def _checked_probabilities(
    probabilities: np.ndarray, n_pool: int, categories: Sequence[str] | None
) -> np.ndarray:
    p = np.asarray(probabilities, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != n_pool or p.shape[1] < 1:
        raise DataError(
            f"The quick model's probabilities have the shape {p.shape}, not one row for each of "
            f"the {n_pool} texts to code.",
            "Retrain the quick model on the current pool of texts.",
        )
    if categories is not None and len(categories) != p.shape[1]:
        raise DataError(
            f"The quick model gives {p.shape[1]} categories, but {len(categories)} were named.",
            "Retrain the quick model after the categories changed.",
        )
    totals = p.sum(axis=1, keepdims=True)
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(totals <= 0):
        raise DataError(
            "Some of the quick model's probabilities are missing or negative.",
            "Retrain the quick model; if it happens again, choose texts at random.",
        )
    return p / totals


def _balance_factors(
    p: np.ndarray,
    coded_counts: Mapping[str, int] | None,
    categories: Sequence[str] | None,
    strength: float,
) -> np.ndarray | None:
    """Per text, the expected up-weighting of the categories it may belong to (None: no balance)."""
    if coded_counts is None or strength == 0:
        return None
    if categories is None:
        raise DataError(
            "The numbers of codings per category cannot be matched to the quick model's columns.",
            "Give the categories in the order of the quick model's columns.",
        )
    counts = np.array([max(0, int(coded_counts.get(name, 0))) for name in categories], dtype=np.float64)
    n_categories = len(categories)
    per_category = ((counts.sum() + n_categories) / (n_categories * (counts + 1))) ** strength
    return p @ per_category


def _uncertainty_weights(
    margin: np.ndarray, balance: np.ndarray | None, available: np.ndarray, temperature: float
) -> np.ndarray:
    """exp(-(margin - smallest margin left) / temperature) × class balance; 0 where excluded."""
    exponent = (margin - margin[available].min()) / temperature
    weights = np.where(available, np.exp(-exponent), 0.0)
    return weights if balance is None else weights * balance


def _mixed(weights: np.ndarray, uniform: np.ndarray, share: float) -> np.ndarray:
    """(1 - share) × weights / their sum + share × uniform / its sum (weights summing to 0: uniform)."""
    total = weights.sum()
    if total <= 0 or not np.isfinite(total):
        return uniform / uniform.sum()
    return (1 - share) * weights / total + share * uniform / uniform.sum()


def _normalised(values: np.ndarray) -> np.ndarray:
    return values / values.sum()


def _groups(clusters: PoolClusters | None, embeddings: np.ndarray | None, n_pool: int) -> PoolClusters:
    if clusters is None:
        if embeddings is None:
            raise DataError(
                "Spreading the choices over kinds of texts needs the sentence embeddings of the "
                "texts to code.",
                "Compute the sentence embeddings of the uncoded texts, or choose another way to "
                "pick the next text.",
            )
        if np.asarray(embeddings).shape[0] != n_pool:
            raise DataError(
                f"There are sentence embeddings for {np.asarray(embeddings).shape[0]} texts, but "
                f"the pool has {n_pool}.",
                "Compute the embeddings again for the current pool of texts.",
            )
        clusters = PoolClusters.fit(embeddings)
    clusters.check(n_pool)
    return clusters


def _diversity(
    groups: PoolClusters,
    available: np.ndarray,
    p: np.ndarray | None,
    coded_counts: Mapping[str, int] | None,
    categories: Sequence[str] | None,
    settings: SamplingSettings,
) -> np.ndarray:
    """P(group) × P(text | group), both mixed with a uniform share; groups with no text left get 0."""
    labels = groups.labels
    k = groups.n_clusters
    left = np.bincount(labels, weights=available.astype(np.float64), minlength=k)  # texts left per group
    has_texts = left > 0
    uniform_groups = has_texts.astype(np.float64)
    if p is None:
        group_probability = uniform_groups / uniform_groups.sum()
        within = np.where(available, 1.0 / np.maximum(left, 1)[labels], 0.0)
        return _normalised(group_probability[labels] * within)
    margin = margins(p)
    balance = _balance_factors(p, coded_counts, categories, settings.balance_strength)
    weights = _uncertainty_weights(margin, balance, available, settings.temperature)
    worth = (1 - margin) if balance is None else (1 - margin) * balance
    mean_worth = np.bincount(labels, weights=np.where(available, worth, 0.0), minlength=k)
    mean_worth = np.where(has_texts, mean_worth / np.maximum(left, 1), 0.0)
    group_probability = _mixed(mean_worth, uniform_groups, settings.uniform_share)
    group_weight = np.bincount(labels, weights=weights, minlength=k)
    safe_weight = np.where(group_weight > 0, group_weight, 1.0)
    uniform_within = np.where(available, 1.0 / np.maximum(left, 1)[labels], 0.0)
    weighted_within = np.where(
        (group_weight > 0)[labels], weights / safe_weight[labels], uniform_within
    )
    within = (1 - settings.uniform_share) * weighted_within + settings.uniform_share * uniform_within
    return _normalised(group_probability[labels] * within)
