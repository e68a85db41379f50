"""A model measured against several human coders, when the data give per-text counts of coders
per category (as in Davidson et al. 2017: hate_speech, offensive_language, neither).

- **Majority coding**: the category most coders chose; a unit whose top count is shared by two or
  more categories has no majority (a tie).
- **Model vs. majority**: the share of texts where the model's category is the majority's, and
  Cohen's kappa between them over texts without a tie.
- **Human baseline** (leave-one-coder-out): how often a single coder's code equals the majority of
  the *other* coders of that text. This is the number to hold the model's share against: it says
  how well one more human would do at reproducing the panel. Ties among the others count as a
  random tie-break (the coder's share of the tied categories), and the model's share treats a tie
  in the full panel the same way. The human is compared with m - 1 coders, the model with all m;
  with 3 coders per text this favours the model slightly.
- Krippendorff's alpha among the coders (:func:`agreement.alpha_from_counts`).

Assumes coders worked independently and each count is a separate person's judgement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guiapp.core.stats.agreement import alpha_from_counts, check_counts, kappa_from_table
from guiapp.core.stats.plain_record import PlainRecord

NO_MAJORITY = -1


@dataclass(frozen=True)
class ModelVersusCoders(PlainRecord):
    n_texts: int
    n_without_majority: int
    model_agrees_with_majority: float
    kappa_model_vs_majority: float
    coder_agrees_with_other_coders: float
    alpha_between_coders: float


def majority_coding(counts) -> np.ndarray:
    """Per unit the index of the category most coders chose, or NO_MAJORITY (-1) for a tie or a
    unit nobody coded."""
    counts = check_counts(counts)
    top = counts.max(axis=1, initial=0)
    tied = (counts == top[:, None]).sum(axis=1) > 1
    labels = counts.argmax(axis=1) if counts.shape[1] else np.zeros(len(counts), int)
    return np.where(tied | (top == 0), NO_MAJORITY, labels)


def _share_of_top(counts: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Per unit: 1 if ``chosen`` is the single top category, 1/t if it is one of t tied ones, else 0."""
    top = counts.max(axis=1, keepdims=True)
    tied = counts == top
    return tied[np.arange(len(counts)), chosen] / tied.sum(axis=1)


def coder_agreement_with_others(counts) -> float:
    """Share of all codes (in units with two or more coders) that equal the majority of the other
    coders of the same unit, ties broken at random (expected value)."""
    counts = check_counts(counts)
    m = counts.sum(axis=1)
    counts = counts[m >= 2]
    if len(counts) == 0:
        return float("nan")
    agreeing = 0.0
    for c in range(counts.shape[1]):
        others = counts.copy()
        others[:, c] -= 1
        has = counts[:, c] > 0
        agreeing += float((counts[has, c] * _share_of_top(others[has], np.full(has.sum(), c))).sum())
    return agreeing / float(counts.sum())


def model_versus_coders(counts, predictions) -> ModelVersusCoders:
    """The model's predicted category indices (columns of ``counts``) against the human coders."""
    counts = check_counts(counts)
    predictions = np.asarray(predictions)
    if predictions.shape != (len(counts),):
        raise ValueError(f"Need one prediction per text ({len(counts)}), got {predictions.shape[0]}.")
    k = counts.shape[1]
    if len(predictions) and (predictions.min() < 0 or predictions.max() >= k):
        raise ValueError(f"Predictions must be category numbers from 0 to {k - 1}.")
    coded = counts.sum(axis=1) > 0
    majority = majority_coding(counts)
    clear = majority != NO_MAJORITY
    table = np.bincount(majority[clear] * k + predictions[clear], minlength=k * k).reshape(k, k)
    shares = _share_of_top(counts[coded], predictions[coded].astype(int))
    return ModelVersusCoders(
        n_texts=len(counts),
        n_without_majority=int((~clear).sum()),
        model_agrees_with_majority=float(shares.mean()) if len(shares) else float("nan"),
        kappa_model_vs_majority=kappa_from_table(table) if clear.any() else float("nan"),
        coder_agrees_with_other_coders=coder_agreement_with_others(counts),
        alpha_between_coders=alpha_from_counts(counts),
    )
