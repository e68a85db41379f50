"""Shares of a corpus none of whose texts were coded (the coded texts come from another collection:
coded 2016, measuring 2020): quantification adjusted for **prior shift** — the categories may be
more or less common in the corpus, while a text of each category reads as it did.

- ``cc``: classify and count (the share of each predicted category).
- ``pcc``: probabilistic classify and count (the mean predicted probability).
- ``acc``: adjusted classify and count — the predicted shares q are what the coded texts' rates
  M[j, k] = P(predicted j | coded k) make of the true shares p, q = M p; solved for p by least
  squares on the simplex (Forman 2008; Vaz, Izbicki & Stern 2019).
- ``pacc``: the same with probabilities in place of predicted categories (Bella et al. 2010).
- ``sld``: expectation–maximisation of the shares (Saerens, Latinne & Decaestecker 2002): the
  probabilities are reweighted by new shares over the shares the model learned, until the shares
  equal the mean of the reweighted probabilities. The shares the model learned are the mean of the
  coded texts' cross-fitted probabilities (so that with no shift nothing changes).

``pacc`` is the default: the adjusted methods need only the rates measured on the coded texts (held
out by cross-fitting) and the assumption that each category's texts read alike in both collections;
EM also needs probabilities calibrated to the coded texts, and drifts far when they are not.

Written on NumPy and SciPy rather than QuaPy, which brings matplotlib, xlrd, ucimlrepo and
abstention for what are a few lines each here. Intervals come from a bootstrap that redraws both
the coded texts (the rates or learned shares) and the corpus texts; **they rest on the assumption
that the categories' wording did not change** (P(text | category) is the same in both collections),
which no data from the corpus alone can check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import lsq_linear

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.findings.designs import QUANTIFIERS
from guiapp.core.findings.inputs import CodedSample, check_inputs, check_level

SENTENCE = ("No coded text comes from this corpus, so the shares are adjusted for categories becoming more "
            "or less common. Their intervals rest on the assumption that the categories' wording did not "
            "change: a text of each category reads as it did in the coded texts.")
#: Each method in words, for the record and the methods appendix.
QUANTIFICATION_WORDS = {
    "sld": ("expectation–maximisation of the shares adjusted for prior shift (Saerens, Latinne & Decaestecker "
            "2002), with bootstrap intervals"),
    "acc": "adjusted classify and count (Forman 2008), with bootstrap intervals",
    "pacc": "probabilistic adjusted classify and count (Bella et al. 2010), with bootstrap intervals",
    "pcc": "probabilistic classify and count (the mean predicted probability), with bootstrap intervals",
    "cc": "classify and count (the share of each predicted category), with bootstrap intervals",
}
MAX_ITERATIONS = 1000
TOLERANCE = 1e-8


@dataclass(frozen=True)
class Quantification:
    categories: tuple[str, ...]
    method: str
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    standard_error: np.ndarray
    by_method: dict[str, np.ndarray] = field(default_factory=dict)
    sentence: str = SENTENCE
    n_texts: int = 0
    n_coded: int = 0


def one_hot_predictions(probabilities: np.ndarray) -> np.ndarray:
    hard = np.zeros_like(probabilities)
    hard[np.arange(probabilities.shape[0]), probabilities.argmax(axis=1)] = 1.0
    return hard


def _weighted_mean(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    if weights is None:
        return values.mean(axis=0)
    return weights @ values / weights.sum()


def rates(y: np.ndarray, predicted: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """M[j, k]: the mean of ``predicted[:, j]`` among the coded texts of category k (a category
    without coded texts counts as always recognised)."""
    w = np.ones(y.shape[0]) if weights is None else weights
    counts = (w[:, None] * y).sum(axis=0)
    m = (predicted * w[:, None]).T @ y
    m = np.divide(m, counts, out=np.eye(y.shape[1]), where=counts > 0)
    return m


def adjusted(m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The shares p ≥ 0 with Σ p = 1 that make M p closest to q (least squares)."""
    k = len(q)
    weight = 1e3
    a = np.vstack([m, weight * np.ones((1, k))])
    b = np.concatenate([q, [weight]])
    found = lsq_linear(a, b, bounds=(0.0, 1.0), method="bvls").x
    total = found.sum()
    return found / total if total > 0 else np.full(k, 1 / k)


def em_shares(probabilities: np.ndarray, learned: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """SLD: reweight the probabilities by new shares over ``learned`` until the shares equal the
    mean of the reweighted probabilities."""
    learned = np.clip(learned, 1e-12, None)
    shares = learned.copy()
    for _ in range(MAX_ITERATIONS):
        reweighted = probabilities * (shares / learned)
        reweighted /= np.clip(reweighted.sum(axis=1, keepdims=True), 1e-300, None)
        new = _weighted_mean(reweighted, weights)
        if np.abs(new - shares).max() < TOLERANCE:
            return new
        shares = new
    return shares


def point_estimates(f_corpus: np.ndarray, y: np.ndarray, f_coded: np.ndarray,
                    corpus_weights: np.ndarray | None = None, coded_weights: np.ndarray | None = None,
                    methods: tuple[str, ...] = QUANTIFIERS) -> dict[str, np.ndarray]:
    """Each method's shares (optionally with bootstrap weights on the corpus and the coded texts)."""
    out: dict[str, np.ndarray] = {}
    hard_corpus = one_hot_predictions(f_corpus)
    cc = _weighted_mean(hard_corpus, corpus_weights)
    pcc = _weighted_mean(f_corpus, corpus_weights)
    for method in methods:
        if method == "cc":
            out[method] = cc
        elif method == "pcc":
            out[method] = pcc
        elif method == "acc":
            out[method] = adjusted(rates(y, one_hot_predictions(f_coded), coded_weights), cc)
        elif method == "pacc":
            out[method] = adjusted(rates(y, f_coded, coded_weights), pcc)
        elif method == "sld":
            out[method] = em_shares(f_corpus, _weighted_mean(f_coded, coded_weights), corpus_weights)
    return out


def bootstrap(f_corpus: np.ndarray, y: np.ndarray, f_coded: np.ndarray, method: str, groups: list[np.ndarray],
              replicates: int, seed: int, on_event: EventCallback) -> np.ndarray:
    """replicates × len(groups) × K shares, each replicate redrawing the coded texts and the
    corpus texts (as multinomial weights)."""
    rng = np.random.default_rng(seed)
    k = y.shape[1]
    out = np.empty((replicates, len(groups), k))
    n, big_n = y.shape[0], f_corpus.shape[0]
    step = max(1, replicates // 50)
    for r in range(replicates):
        if r % step == 0:
            on_event(Progress(r / replicates, f"Bootstrap: {r:,} of {replicates:,}", r, replicates))
        coded_weights = rng.multinomial(n, np.full(n, 1 / n)).astype(np.float64)
        corpus_weights = rng.multinomial(big_n, np.full(big_n, 1 / big_n)).astype(np.float64)
        for g, members in enumerate(groups):
            w = corpus_weights[members]
            if w.sum() == 0:
                w = np.ones_like(w)
            out[r, g] = point_estimates(f_corpus[members], y, f_coded, w, coded_weights, (method,))[method]
    on_event(Progress(1.0, f"Bootstrap: {replicates:,} of {replicates:,}", replicates, replicates))
    return out


def check_replicates(replicates: int) -> int:
    if isinstance(replicates, bool) or not isinstance(replicates, int | np.integer) or not 50 <= replicates <= 100_000:
        raise DataError(f"A bootstrap of {replicates!r} replicates cannot give an interval.",
                        "Use between 50 and 100,000 replicates (500 is usual).")
    return int(replicates)


def quantify(probabilities: np.ndarray, categories, coded: CodedSample, *, method: str = "pacc",
             level: float = 0.95, bootstrap_replicates: int = 500, seed: int = 0,
             on_event: EventCallback = ignore_events) -> Quantification:
    """The shares of the corpus (``probabilities``: N × K) by ``method``, with percentile bootstrap
    intervals; ``coded``: the coded texts of another collection (cross-fitted probabilities)."""
    if method not in QUANTIFIERS:
        raise DataError(f"There is no way to adjust shares called “{method}”.",
                        "Choose one of: " + ", ".join(QUANTIFIERS) + ".")
    level = check_level(level)
    replicates = check_replicates(bootstrap_replicates)
    checked = check_inputs(probabilities, categories, CodedSample(coded.labels, coded.probabilities))
    if checked.n_coded < 2:
        raise DataError("Adjusting the shares needs at least two coded texts.", "Code more texts.")
    everything = np.arange(checked.n_texts)
    points = point_estimates(checked.f_model, checked.y, checked.f_coded)
    draws = bootstrap(checked.f_model, checked.y, checked.f_coded, method, [everything], replicates, seed,
                      on_event)[:, 0]
    tail = (1 - level) / 2
    low, high = np.quantile(draws, [tail, 1 - tail], axis=0)
    return Quantification(checked.categories, method, points[method], low, high, draws.std(axis=0, ddof=1),
                          points, SENTENCE, checked.n_texts, checked.n_coded)
