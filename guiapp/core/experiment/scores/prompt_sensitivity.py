"""How much a language model's answers depend on the wording of its instruction: the prompt-
sensitivity report of a language model with your codebook.

The same test texts are answered under the chosen prompt and under prompts that differ only in a
paraphrased instruction (the same codebook, the same few-shot examples). :func:`prompt_sensitivity`
puts together what the results show beside the model's score:

* each prompt's instruction, its SHA-256 and its macro-F1 on the test texts (the chosen one first);
* Krippendorff's α (nominal) between the prompts' decisions on the test texts, the prompts taken as
  coders — where a text can have several categories, α per category (in or not in it) and their
  mean; None where it cannot be computed (every prompt gave every text the same single answer:
  nothing varied, so there is nothing to agree beyond chance on);
* the lowest and highest macro-F1, and one plain sentence on what it means (α of at least 0.8: the
  answers hardly depend on the wording; from 0.667: somewhat; below: strongly — Krippendorff's
  usual limits for drawing conclusions from coded data).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from guiapp.core.experiment.scores import metrics
from guiapp.core.stats.agreement import krippendorff_alpha

RELIABLE_ALPHA = 0.8  # Krippendorff (2004): rely on the answers
TENTATIVE_ALPHA = 0.667  # Krippendorff (2004): tentative conclusions at most
WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


def prompt_sensitivity(prompts: Sequence[dict[str, Any]], decisions: Sequence[np.ndarray],
                       y_test: np.ndarray) -> dict[str, Any]:
    """The report (see the module docstring). ``prompts``: per prompt ``instruction_variant`` (a
    number of TextLab's instructions, or None for the researcher's own), ``instruction`` and
    ``prompt_sha256``, the chosen prompt first; ``decisions``: each prompt's decisions on the test
    texts (category numbers, or a 0/1 matrix text × category); ``y_test``: the coding of the test
    texts in the same form."""
    if len(prompts) != len(decisions) or len(prompts) < 2:
        raise ValueError("the sensitivity report needs two or more prompts, each with its decisions")
    y_test = np.asarray(y_test)
    decided = [np.asarray(values) for values in decisions]
    scores = [float(metrics.macro_f1(y_test, values)) for values in decided]
    rows = [{"instruction_variant": None if prompt.get("instruction_variant") is None
             else int(prompt["instruction_variant"]),
             "instruction": str(prompt["instruction"]), "prompt_sha256": str(prompt["prompt_sha256"]),
             "macro_f1": round(score, 6)} for prompt, score in zip(prompts, scores, strict=True)]
    alpha = agreement_alpha(decided)
    same = same_answer_share(decided)
    low, high = min(scores), max(scores)
    return {"prompts": rows, "alpha": None if alpha is None else round(alpha, 6), "agreed_share": round(same, 6),
            "macro_f1_min": round(low, 6), "macro_f1_max": round(high, 6),
            "sentence": sensitivity_sentence(len(prompts), same, alpha, low, high)}


def agreement_alpha(decisions: Sequence[np.ndarray]) -> float | None:
    """Krippendorff's nominal α between the prompts' decisions (prompts as coders, texts as units);
    several categories per text: the mean of each category's α (categories where nothing varied are
    left out). None where nothing varied at all."""
    stacked = np.asarray([np.asarray(values) for values in decisions])
    if stacked.ndim == 2:
        return _alpha(stacked)
    per_category = [_alpha(stacked[:, :, column]) for column in range(stacked.shape[2])]
    found = [value for value in per_category if value is not None]
    return float(np.mean(found)) if found else None


def _alpha(coders_by_units: np.ndarray) -> float | None:
    if coders_by_units.size == 0:
        return None
    value = krippendorff_alpha(coders_by_units.astype(float))
    return float(value) if math.isfinite(value) else None


def same_answer_share(decisions: Sequence[np.ndarray]) -> float:
    """The share of texts to which every prompt gave the same answer (the same set of categories,
    where a text can have several)."""
    stacked = np.asarray([np.asarray(values) for values in decisions])
    if stacked.shape[1] == 0:
        return 1.0
    same = (stacked == stacked[0]).all(axis=0)
    if same.ndim == 2:
        same = same.all(axis=1)
    return float(same.mean())


def sensitivity_sentence(n_prompts: int, agreed: float, alpha: float | None, low: float, high: float) -> str:
    """"The three wordings of the instruction gave the same answer to 91 % of the test texts
    (Krippendorff's α = 0.86); macro-F1 ranged from 0.61 to 0.66: the answers hardly depend on the
    wording."."""
    count = WORDS.get(n_prompts, f"{n_prompts:,}")
    spread = f"macro-F1 ranged from {low:.2f} to {high:.2f}" if high - low >= 0.005 else \
        f"macro-F1 was {low:.2f} with each"
    start = f"The {count} wordings of the instruction gave the same answer to {100 * agreed:.0f} % of the test texts"
    if alpha is None:
        return (f"{start}; {spread}. Krippendorff's α cannot be computed: every wording gave every text the same "
                "single answer, so the test texts cannot show how much the answers depend on the wording.")
    if alpha >= RELIABLE_ALPHA:
        meaning = "the answers hardly depend on how the instruction is worded"
    elif alpha >= TENTATIVE_ALPHA:
        meaning = ("the answers depend somewhat on how the instruction is worded: report the range of scores, "
                   "not only the chosen prompt's")
    else:
        meaning = ("the answers depend strongly on how the instruction is worded: another wording would have "
                   "coded many texts differently, so treat this model's score with caution")
    return f"{start} (Krippendorff's α = {alpha:.2f}); {spread}: {meaning}."
