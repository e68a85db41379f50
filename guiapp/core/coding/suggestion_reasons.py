"""Why a text was suggested, in a researcher's words: "Chosen at random", "The model is unsure
between “Health” (48 %) and “Education” (41 %)", and why a strategy fell back to another."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from guiapp.core.coding.pool_clusters import PoolClusters
from guiapp.core.coding.strategies import MIN_CATEGORIES, MIN_CODINGS

#: Below this gap between its two most probable categories the model counts as unsure of a text.
UNSURE_MARGIN = 0.4

#: Why the strategy that chose is not the one asked for (keys as ``CodingLoop.plan`` gives them).
FALLBACKS = {
    "auto": (f"Chosen at random: TextLab starts choosing the texts the model is least sure about once "
             f"{MIN_CATEGORIES} categories have at least {MIN_CODINGS} codings each."),
    "no model": (f"Chosen at random: the model that says where it is unsure needs coded texts of at least "
                 f"{MIN_CATEGORIES} categories first."),
    "not trained": "Chosen at random until the model has learned from your codings (it trains in the background).",
    "no groups": ("Groups of similar texts are found when the model is next retrained; until then the text comes "
                  "where the model is least sure. "),
}


def reason_for(strategy: str, why: str, probabilities: np.ndarray | None, categories: Sequence[str],
               counts: Mapping[str, int], groups: PoolClusters | None) -> str:
    """One or two sentences on why this text comes next. ``probabilities``: the quick model's for
    this text (columns in ``categories`` order), None before a model; ``why``: a key of
    ``FALLBACKS`` when the strategy is not the one the researcher asked for, else ""."""
    if strategy == "random" or probabilities is None or len(categories) < 2:
        return FALLBACKS[why] if why in FALLBACKS and why != "no groups" else "Chosen at random."
    order = np.argsort(-np.asarray(probabilities, dtype=float), kind="stable")
    first, second = (str(categories[i]) for i in order[:2])
    p_first, p_second = (float(probabilities[i]) for i in order[:2])
    if p_first - p_second < UNSURE_MARGIN:
        text = f"The model is unsure between “{first}” ({_percent(p_first)}) and “{second}” ({_percent(p_second)})."
    else:
        text = (f"The model leans to “{first}” ({_percent(p_first)}); texts it is surer about also come now and "
                "then, so that every text can be chosen.")
    rare = [name for name in (first, second) if counts.get(name, 0) < MIN_CODINGS]
    if rare:
        shown = " and ".join(f"“{name}” has {_codings(counts.get(name, 0))}" for name in rare)
        text += f" {shown} so far."
    if strategy == "diversity" and groups is not None:
        text = (f"Chosen across {groups.n_clusters} groups of similar texts, so that no kind of text is left "
                f"out. {text}")
    if why == "no groups":
        text = FALLBACKS[why] + text
    return text


def _percent(p: float) -> str:
    return f"{round(p * 100)} %"


def _codings(n: int) -> str:
    return "no codings" if n == 0 else ("1 coding" if n == 1 else f"only {n} codings")
