"""Seeded simulations: the design-based estimates are unbiased (mean error within 3 standard errors
of 0) where the coded texts were chosen unevenly — naive weighting would not be."""

from __future__ import annotations

import numpy as np

from guiapp.core.coding.strategies import draw, selection_distribution
from guiapp.core.findings import CodedSample, CodingStepDraws, KnownProbabilities, Step, estimate_findings
from guiapp.core.findings.inputs import check_inputs
from guiapp.core.findings.sequential import sequential

CATS = ("a", "b", "c")


def _corpus(seed: int, n: int):
    """Texts whose model is biased: it under-predicts category a where it is unsure."""
    rng = np.random.default_rng(seed)
    truth = rng.dirichlet([0.6, 0.6, 0.6], size=n)
    labels = np.array([rng.choice(3, p=p) for p in truth])
    model = truth.copy()
    model[:, 0] *= 0.6
    model = 0.8 * model / model.sum(axis=1, keepdims=True) + 0.2 / 3
    return labels, model, np.bincount(labels, minlength=3) / n


def _mean_error(errors: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    errors = np.array(errors)
    return errors.mean(axis=0), errors.std(axis=0, ddof=1) / np.sqrt(len(errors))


def test_known_probabilities_are_unbiased():
    labels, model, truth = _corpus(11, 1500)
    rng = np.random.default_rng(12)
    pi = np.clip(0.02 + 0.3 * (1 - model.max(axis=1)), 0.02, 1)  # unsure texts are coded more often
    errors, naive = [], []
    for _ in range(300):
        chosen = np.flatnonzero(rng.random(len(labels)) < pi)
        coded = CodedSample([CATS[i] for i in labels[chosen]], model[chosen], chosen)
        found = estimate_findings(model, CATS, coded, KnownProbabilities(pi[chosen]))
        errors.append(np.array([s.estimate for s in found.overall()]) - truth)
        naive.append(labels[chosen].tolist().count(0) / len(chosen) - truth[0])
    mean, se = _mean_error(errors)
    assert np.all(np.abs(mean) < 3 * se)
    assert abs(np.mean(naive)) > 10 * np.std(naive) / np.sqrt(len(naive))  # unweighted codings are biased


def test_sequential_uncertainty_draws_are_unbiased():
    labels, model, truth = _corpus(21, 500)
    rng = np.random.default_rng(22)
    errors, covered = [], []
    for _ in range(150):
        is_open = np.ones(len(labels), dtype=bool)
        steps = []
        initial = rng.choice(len(labels), 20, replace=False)  # the file's codings, a random sample
        is_open[initial] = False
        for _ in range(40):
            distribution = selection_distribution("uncertainty", len(labels), probabilities=model,
                                                  exclude=np.flatnonzero(~is_open))
            position = draw(distribution, rng)
            steps.append(Step(int(position), float(distribution[position])))
            is_open[position] = False
        positions = np.concatenate([initial, [s.position for s in steps]])
        coded = CodedSample([CATS[i] for i in labels[positions]], model[positions], positions)
        found = estimate_findings(model, CATS, coded, CodingStepDraws(tuple(initial.tolist()), tuple(steps)))
        shares = found.overall()
        errors.append(np.array([s.estimate for s in shares]) - truth)
        covered.append([s.low <= t <= s.high for s, t in zip(shares, truth, strict=True)])
    mean, se = _mean_error(errors)
    assert np.all(np.abs(mean) < 3 * se)
    assert np.mean(covered) > 0.85


def test_sequential_weights_give_the_true_total_when_the_residuals_are_known_constants():
    """Σ c r estimates Σ r over the corpus: with r = 1 for every text it estimates N, unbiasedly."""
    rng = np.random.default_rng(5)
    n_texts = 200
    model = rng.dirichlet([1, 1, 1], size=n_texts)
    totals = []
    for _ in range(400):
        is_open = np.ones(n_texts, dtype=bool)
        steps = []
        for _ in range(15):
            distribution = selection_distribution("uncertainty", n_texts, probabilities=model,
                                                  exclude=np.flatnonzero(~is_open))
            position = draw(distribution, rng)
            steps.append(Step(int(position), float(distribution[position])))
            is_open[position] = False
        positions = np.array([s.position for s in steps])
        checked = check_inputs(model, CATS, CodedSample(["a"] * 15, model[positions], positions))
        totals.append(sequential(CodingStepDraws((), tuple(steps)), checked).weights.sum())
    assert abs(np.mean(totals) - n_texts) < 3 * np.std(totals, ddof=1) / np.sqrt(len(totals))
