"""Explaining a combined model through its parts, instead of leaving words out of the whole.

A combined model answers with a function of its parts' probabilities
(``guiapp/core/experiment/combined/combining.py``); each part has its own, often exact, explanation
(:mod:`.part_contributions`). Per document, each part gets a *direction*: how much the combined
probability of the explained category ``t`` changes with each of the part's probabilities.

- **Weighted vote**: ``P_t = Σ_k w_k · p_{k,t}``. The direction of part ``k`` is ``w_k`` on
  category ``t`` and 0 elsewhere, and a word's score is ``Σ_k w_k · (its push on p_{k,t})`` —
  the vote is linear, so this is exactly the weighted sum of the parts' explanations.
- **Stacking**: ``P = softmax(A · [p_1, …, p_K] + b)``, a logistic regression on the parts'
  probabilities side by side. Its slope at the document's own part probabilities (chain rule:
  ``∂P_t/∂p_{k,c} = P_t · (A_{t,(k,c)} − Σ_r P_r · A_{r,(k,c)})``) is the direction, and a word's
  score is ``Σ_k Σ_c ∂P_t/∂p_{k,c} · (its push on p_{k,c})``: a first-order approximation of the
  regression around the document, close when one word moves the parts' probabilities a little.

The scores are on the scale of the combined probability of ``t``. Parts the combination does not
use (weight 0) are not explained.

Where a text can have several categories, the combined probability of ``t`` is that category's own
chance: the vote averages the parts' chances of ``t`` (as above), and stacking is one yes/no
regression per category, ``P_t = σ(A_t · [p_1, …, p_K] + b_t)``, whose slope is
``P_t (1 − P_t) A_t``. Without a category asked for, each text is explained toward the first
category the combination gives it, else its most probable one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.experiment.combined.combining import Stacking, WeightedVote
from guiapp.core.explain.attribution import (
    COMBINED_PARTS,
    INTEGRATED_GRADIENTS,
    METHOD_NAMES,
    OCCLUSION,
    Attribution,
)
from guiapp.core.explain.category_choice import targets_from_probabilities
from guiapp.core.explain.part_contributions import FIRST_ORDER_METHODS, part_method, part_scores
from guiapp.core.explain.sentence_contributions import has_sentence_contributions
from guiapp.core.explain.words import split_words
from guiapp.core.predict.combined_model import CombinedModel

# how long each way of explaining a part takes, roughly, relative to the others (for the progress bar)
_PART_COST = {INTEGRATED_GRADIENTS: 10.0, OCCLUSION: 2.0}
_SENTENCE_MODEL_COST = 2.0


def stacking_slopes(stacking: Stacking, part_probabilities: Sequence[np.ndarray], targets: np.ndarray) -> np.ndarray:
    """``∂P_t/∂p_{k,c}`` at each document's part probabilities: shape (documents, parts, categories)."""
    features = np.hstack([np.asarray(part, dtype=np.float64) for part in part_probabilities])
    coefficients = np.asarray(stacking.coefficients, dtype=np.float64)
    scores = features @ coefficients.T + np.asarray(stacking.intercepts, dtype=np.float64)
    if getattr(stacking, "multi_label", False):  # one yes/no regression per category: P_t = σ(score_t)
        chances = 1.0 / (1.0 + np.exp(-scores))
        slopes = np.zeros((features.shape[0], features.shape[1]))
        for document, target in enumerate(np.asarray(targets, dtype=int)):
            slopes[document] = chances[document, target] * (1.0 - chances[document, target]) * coefficients[target]
        return slopes.reshape(features.shape[0], len(part_probabilities), -1)
    if len(stacking.classes) == 2 and coefficients.shape[0] == 1:  # binary: one row, toward the second class
        coefficients = np.vstack([np.zeros_like(coefficients), coefficients])
        scores = np.hstack([np.zeros_like(scores), scores])
    scores -= scores.max(axis=1, keepdims=True)
    probabilities = np.exp(scores)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    n_documents, n_parts = features.shape[0], len(part_probabilities)
    slopes = np.zeros((n_documents, features.shape[1]))
    position = {category: row for row, category in enumerate(stacking.classes)}
    mean_row = probabilities @ coefficients  # Σ_r P_r A_r, per document
    for document, target in enumerate(np.asarray(targets, dtype=int)):
        row = position.get(int(target))
        if row is not None:  # a category the regression never saw keeps probability 0
            slopes[document] = probabilities[document, row] * (coefficients[row] - mean_row[document])
    return slopes.reshape(n_documents, n_parts, -1)


def part_directions(model: CombinedModel, part_probabilities: Sequence[np.ndarray], targets: np.ndarray) -> np.ndarray:
    """How much the combined probability of each document's target changes with each part's
    probabilities: shape (documents, parts, categories)."""
    targets = np.asarray(targets, dtype=int)
    combiner = model.combiner
    if isinstance(combiner, WeightedVote):
        return _vote_directions(combiner, targets, len(model.parts), len(model.categories))
    if isinstance(combiner, Stacking):
        slopes = stacking_slopes(combiner, part_probabilities, targets)
        if combiner.regression_share >= 1.0 or not combiner.vote_weights:
            return slopes
        # shrunk towards the vote: the combined probability is a mixture, so its slopes mix alike
        vote = _vote_directions(WeightedVote(combiner.vote_weights), targets, len(model.parts), len(model.categories))
        return combiner.regression_share * slopes + (1.0 - combiner.regression_share) * vote
    raise ValueError(f"unknown way of combining models: {type(combiner).__name__}")


def _vote_directions(vote: WeightedVote, targets: np.ndarray, n_parts: int, n_categories: int) -> np.ndarray:
    directions = np.zeros((len(targets), n_parts, n_categories))
    for k, weight in enumerate(vote.weights):
        directions[np.arange(len(targets)), k, targets] = float(weight)
    return directions


def explain_combined(
    model: CombinedModel,
    texts: Sequence[str],
    targets: Sequence[int] | None = None,
    *,
    steps: int = 50,
    on_event: EventCallback = ignore_events,
) -> list[Attribution]:
    """Why ``model`` gives each text its target (default: its answer), through its parts.

    ``steps``: integrated-gradient steps for a fine-tuned Transformer among the parts. Progress is
    reported per part and within it; raising ``Cancelled`` from ``on_event`` stops between steps.
    """
    texts = list(texts)
    on_event(Progress(0.0, f"Reading the parts' answers for {len(texts):,} documents", 0, len(texts)))
    probabilities = model.part_answers(texts)
    combined = model.combiner.combine(probabilities)
    targets = targets_from_probabilities(model, combined) if targets is None else np.asarray(targets, dtype=int)
    if len(targets) != len(texts):
        raise ValueError("one target per text is needed")
    directions = part_directions(model, probabilities, targets)
    used = [k for k in range(len(model.parts)) if np.any(directions[:, k])]
    methods = {k: part_method(model.parts[k]) for k in range(len(model.parts))}
    costs = np.array([_SENTENCE_MODEL_COST if has_sentence_contributions(model.parts[k]) else
                      _PART_COST.get(methods[k], 0.5) for k in used])
    edges = np.concatenate([[0.05], 0.05 + 0.95 * np.cumsum(costs) / max(costs.sum(), 1e-9)])
    totals = np.zeros((len(texts), len(model.parts)))
    word_scores = [np.zeros(len(split_words(text))) for text in texts]
    part_details: list[list[dict[str, Any]]] = [[{} for _ in model.parts] for _ in texts]
    for index, k in enumerate(used):
        part = model.parts[k]
        step = sub_progress(on_event, float(edges[index]), float(edges[index + 1]))
        step(Progress(0.0, f"Explaining the part “{part.name}”", 0, len(texts)))
        found = part_scores(part, texts, directions[:, k], probabilities[k], steps=steps, on_event=step)
        for document, scores in enumerate(found):
            word_scores[document] += scores.scores
            totals[document, k] = float(scores.scores.sum())
            part_details[document][k] = scores.details
    on_event(Progress(1.0, f"Explained {len(texts):,} documents through their parts", len(texts), len(texts)))
    note = combination_note(model, methods)
    out = []
    for document, text in enumerate(texts):
        target = int(targets[document])
        name = model.categories[target]
        parts = [{"model": part.name, "method": methods[k], "weight": _weight(model, k),
                  "first_order": methods[k] in FIRST_ORDER_METHODS, "score_sum": float(totals[document, k]),
                  "used": k in used, **_numbers(part_details[document][k])}
                 for k, part in enumerate(model.parts)]
        details = {"combination": model.combiner.method, "first_order": _first_order(model, methods, used),
                   "parts": parts, "how_combined": note}
        out.append(Attribution(model=model.name, method=COMBINED_PARTS, method_sentence=combined_sentence(name, note),
                               target=target, target_name=name, words=split_words(text),
                               scores=word_scores[document].tolist(), probability=float(combined[document, target]),
                               scale="probability", base_value=None, details=details))
    return out


def _weight(model: CombinedModel, k: int) -> float | None:
    combiner = model.combiner
    if isinstance(combiner, WeightedVote):
        return float(combiner.weights[k])
    influence = getattr(combiner, "part_influence", None) or []
    return float(influence[k]) if k < len(influence) else None


def _numbers(details: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in details.items() if isinstance(value, int | float | str)}


def _first_order(model: CombinedModel, methods: dict[int, str], used: list[int]) -> bool:
    return isinstance(model.combiner, Stacking) or any(methods[k] in FIRST_ORDER_METHODS for k in used)


def combined_sentence(target_name: str, note: str) -> str:
    return f"Colours show how much each word moved the combined probability of “{target_name}”. {note}"


def combination_note(model: CombinedModel, methods: dict[int, str]) -> str:
    """How the parts' explanations were combined, in plain words (the same for every document)."""
    combiner = model.combiner
    listed = []
    for k, part in enumerate(model.parts):
        method = METHOD_NAMES.get(methods[k], methods[k]).lower()
        if isinstance(combiner, WeightedVote):
            weight = float(combiner.weights[k])
            listed.append(f"{part.name} (weight {weight:.2f}{', not used' if weight == 0 else f': {method}'})")
        else:
            listed.append(f"{part.name} ({method})")
    if isinstance(combiner, WeightedVote):
        note = ("The weighted vote averages its parts' probabilities, so each word's score is the sum, over the "
                "parts, of the part's weight times the word's push on that part's probability of the category: "
                + "; ".join(listed) + ".")
    else:
        note = ("Stacking feeds its parts' probabilities to a logistic regression. Each word's push on every "
                "probability of every part is multiplied by how much the combined probability of the category "
                "changes with that part's probability at this text (the regression's slope there), and these are "
                "added up — a first-order approximation, close when one word moves the parts' probabilities a "
                "little. Parts: " + "; ".join(listed) + ".")
    if any(method in FIRST_ORDER_METHODS for method in methods.values()):
        note += (" A part with exact word contributions to its scores has them turned into probability by the "
                 "slope of its own probabilities at this text (first order).")
    if any(has_sentence_contributions(part) for part in model.parts):
        note += (" On sentence embeddings, a word's contribution is its pieces' share of the averaged sentence "
                 "vector; the sentence model computes each piece from the whole text, so it carries some context.")
    if any(method == INTEGRATED_GRADIENTS for method in methods.values()):
        note += (" Integrated gradients share out how far the part's probabilities are from those of a text of "
                 "blanks.")
    if any(method == OCCLUSION for method in methods.values()):
        note += " Leaving words out measures how much the part's probabilities drop without the word."
    return note
