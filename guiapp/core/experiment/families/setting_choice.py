"""Choosing a fine-tuned Transformer's setting so that the choice is not luck.

Tuning scores each setting (learning rate × epochs) on one validation split or on k folds. With a
few hundred validation texts, the differences between settings are often smaller than the noise of
the score itself, so taking the top score picks noise as often as signal. Two rules:

* ``"best score"`` — the paper's protocol: the setting with the highest mean score (ties: the first
  in grid order), kept exactly as it is;
* ``"cheapest within noise"`` (the default) — the *one-standard-error rule* (Breiman et al. 1984,
  *Classification and Regression Trees*; Hastie, Tibshirani & Friedman, *The Elements of
  Statistical Learning*, §7.10): among the settings whose mean score is within one standard error
  of the best, the one that trains least (fewest epochs; then the higher score).

The standard error of the best setting's score is the standard deviation of its bootstrap
distribution over the validation texts (one split) or the standard deviation across folds divided
by √k (k folds). The interval shown is the 95 % percentile bootstrap interval (one split) or the
t interval across folds. When the best setting lies on the edge of the grid (the highest or lowest
learning rate or number of epochs tried), the choice says so and proposes the grid extended one
step beyond it.
"""

from __future__ import annotations

import math

import numpy as np

from guiapp.core.experiment.combined.combining import macro_f1
from guiapp.core.experiment.results.result_parts import SettingChoice

BEST_SCORE = "best score"
CHEAPEST_WITHIN_NOISE = "cheapest within noise"
RULES = (CHEAPEST_WITHIN_NOISE, BEST_SCORE)
BOOTSTRAP_SAMPLES = 1000


def cost(point: dict) -> float:
    """How much training a setting takes, relatively: the passes over the training texts."""
    return float(point.get("epochs", 1))


def choose_setting(
    points: list[dict],
    scores: np.ndarray,  # (settings, splits)
    predictions: list[np.ndarray] | None,  # per split: (settings, validation texts) predicted categories
    truths: list[np.ndarray] | None,  # per split: the validation texts' categories
    rule: str = CHEAPEST_WITHIN_NOISE,
    seed: int = 0,
) -> SettingChoice:
    scores = np.asarray(scores, dtype=float)
    means = scores.mean(axis=1)
    best = int(np.flatnonzero(means == means.max())[0])
    error, interval = _noise(scores, best, predictions, truths, seed)
    within = [i for i in range(len(points)) if error is not None and means[i] >= means[best] - error] or [best]
    chosen = best
    if rule == CHEAPEST_WITHIN_NOISE and error is not None:
        chosen = min(within, key=lambda i: (cost(points[i]), -means[i], i))
    edges, extended = grid_edges(points, best)
    return SettingChoice(chosen, best, rule, error, interval, within, edges, extended)


def _noise(scores: np.ndarray, best: int, predictions, truths, seed: int) -> tuple[float | None, tuple[float, float] | None]:
    n_splits = scores.shape[1]
    if n_splits >= 2:
        values = scores[best]
        error = float(values.std(ddof=1) / math.sqrt(n_splits))
        from scipy.stats import t

        half = float(t.ppf(0.975, n_splits - 1)) * error
        return error, (float(values.mean() - half), float(values.mean() + half))
    if not predictions or not truths:
        return None, None
    truth, predicted = np.asarray(truths[0]), np.asarray(predictions[0][best])
    if len(truth) < 2:
        return None, None
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(truth), size=(BOOTSTRAP_SAMPLES, len(truth)))
    if truth.ndim == 2:  # several categories per text: the study's own macro-F1 of label sets
        from guiapp.core.experiment.scores import metrics
        score = metrics.macro_f1
    else:
        score = macro_f1
    resampled = np.array([score(truth[rows], predicted[rows]) for rows in draws])
    low, high = np.quantile(resampled, [0.025, 0.975])
    return float(resampled.std(ddof=1)), (float(low), float(high))


def grid_edges(points: list[dict], best: int) -> tuple[dict[str, str], dict[str, list]]:
    """Where the best setting touches the edge of the grid, and the grid extended one step beyond."""
    edges: dict[str, str] = {}
    extended: dict[str, list] = {}
    for name in ("learning_rate", "epochs"):
        values = sorted({point[name] for point in points})
        if len(values) < 2:
            continue
        value = points[best][name]
        if value == values[-1]:
            edges[name] = "highest"
            extended[name] = [*values, _beyond(name, values, up=True)]
        elif value == values[0] and not (name == "epochs" and value <= 1):
            edges[name] = "lowest"
            extended[name] = [_beyond(name, values, up=False), *values]
    if extended:
        for name in ("learning_rate", "epochs"):
            extended.setdefault(name, sorted({point[name] for point in points}))
    return edges, extended


def _beyond(name: str, values: list, up: bool):
    if name == "epochs":
        step = max(1, values[-1] - values[-2]) if up else max(1, values[1] - values[0])
        return int(values[-1] + step) if up else max(1, int(values[0] - step))
    ratio = values[-1] / values[-2] if up else values[1] / values[0]
    ratio = ratio if ratio > 1 else 2.0
    return float(f"{values[-1] * ratio:.3g}") if up else float(f"{values[0] / ratio:.3g}")


def describe_choice(choice: SettingChoice, points: list[dict], how: str) -> list[str]:
    """The choice in sentences, for the log, the Results step and the methods appendix."""
    def setting(index: int) -> str:
        point = points[index]
        epochs = point["epochs"]
        return f"learning rate {point['learning_rate']:g}, {epochs} epoch{'s' if epochs != 1 else ''}"

    sentences = []
    if choice.interval is not None and choice.standard_error is not None:
        low, high = choice.interval
        sentences.append(
            f"The best setting ({setting(choice.best)}) scored between {low:.2f} and {high:.2f} on {how} "
            f"(95 % interval); {len(choice.within_noise)} of {len(points)} settings were within one standard error "
            f"({choice.standard_error:.3f}) of it, so the differences between them may be chance.")
    if choice.chosen != choice.best:
        sentences.append(f"The cheapest of those, {setting(choice.chosen)}, was chosen: it trains in fewer epochs "
                         "and did as well within the noise.")
    elif choice.rule == CHEAPEST_WITHIN_NOISE and len(choice.within_noise) > 1:
        sentences.append("It is also the cheapest of them, so it was chosen.")
    for name, where in choice.edges.items():
        label = "learning rate" if name == "learning_rate" else "number of epochs"
        beyond = choice.extended_grid[name][-1 if where == "highest" else 0]
        sentences.append(f"The best setting has the {where} {label} tried: a better one may lie beyond it "
                         f"(e.g. {beyond:g}); consider extending the grid.")
    return sentences
