"""The quick model where a text can have several categories: one yes/no question per category.

Each category is its own question — does this text have it? — learnt from the coded texts (the
file's sets with those coded in TextLab applied) by a :class:`QuickModel` of "yes" and "no"
(one-vs-rest). A category gets a question once its coded texts hold both answers; the others are
left out until then. The pool's chances per category (:class:`LabelSetRound`) choose the next text
the way one category per text does, with each yes/no question as the category pair: a text's
margin is the smallest ``|2p - 1|`` over its questions (the question the model is least sure
about), weighted ``exp(-margin / temperature)``, mixed with an even share so that every open text
keeps a chance, and the chance each text had is recorded with its coding
(:func:`set_distribution`). Plain Python, no Qt; :func:`train_label_sets` runs in a background
worker and reads nothing it does not get.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guiapp.core.coding.quick_model import QuickModel
from guiapp.core.coding.strategies import SamplingSettings, _mixed, _normalised, _uncertainty_weights

YES, NO = "yes", "no"
RETRAIN_EVERY = 10  # codings between two trainings, as for one category per text


@dataclass(frozen=True)
class LabelSetRound:
    """One training: the questions (categories) answered, the chance each pool text has each of
    them (``probabilities[i, k]``), how many coded texts it learnt from, and the number of
    codings in the record at the time (to tell when to train again)."""

    categories: tuple[str, ...]
    probabilities: np.ndarray  # (n_pool, len(categories))
    n_coded: int
    log_codings: int


def questions(sets: Sequence[Sequence[str]], categories: Sequence[str]) -> list[str]:
    """The categories that have a yes/no question: among the coded sets some texts have them and
    some do not."""
    n = len(sets)
    have = {name: sum(1 for labels in sets if name in labels) for name in categories}
    return [name for name in categories if 0 < have[name] < n]


def train_label_sets(features: Any, n_pool: int, positions: Sequence[int], sets: Sequence[Sequence[str]],
                     categories: Sequence[str], *, kind: str, seed: int = 0, log_codings: int = 0
                     ) -> LabelSetRound | None:
    """Fit one yes/no model per category on the coded texts (``features[positions]``, with their
    ``sets``) and give the chance of each category for the first ``n_pool`` texts. None when no
    category has both answers among the coded texts yet."""
    asked = questions(sets, categories)
    if not asked:
        return None
    training = features[np.asarray(positions, dtype=np.intp)]
    pool = features[:n_pool]
    columns = []
    for name in asked:
        answers = [YES if name in labels else NO for labels in sets]
        model = QuickModel(kind, seed=seed).fit(training, answers, [NO, YES])
        columns.append(model.predict_proba(pool)[:, 1] if n_pool else np.zeros(0))
    probabilities = np.column_stack(columns) if columns else np.zeros((n_pool, 0))
    return LabelSetRound(tuple(asked), probabilities, len(sets), log_codings)


def set_margins(probabilities: np.ndarray) -> np.ndarray:
    """Per text, the margin of the question the model is least sure about: min over categories of
    ``|2p - 1|`` (0: a coin toss; 1: certain)."""
    if probabilities.shape[1] == 0:
        return np.ones(probabilities.shape[0])
    return np.abs(2 * probabilities - 1).min(axis=1)


def set_distribution(found: LabelSetRound, open_texts: np.ndarray,
                     settings: SamplingSettings | None = None) -> np.ndarray:
    """The chance of each pool text to be drawn next (0 for texts coded or skipped; sums to 1)."""
    settings = settings or SamplingSettings()
    available = np.asarray(open_texts, dtype=bool)
    weights = _uncertainty_weights(set_margins(found.probabilities), None, available, settings.temperature)
    return _normalised(_mixed(weights, available.astype(np.float64), settings.uniform_share))


def set_reason(probabilities: np.ndarray, categories: Sequence[str]) -> str:
    """Why a text comes next, in words: the question the model is least sure about."""
    if len(categories) == 0:
        return "Chosen at random."
    doubt = int(np.argmin(np.abs(2 * np.asarray(probabilities, dtype=float) - 1)))
    chance = round(float(probabilities[doubt]) * 100)
    return (f"The model is least sure whether “{categories[doubt]}” fits this text ({chance} %); texts it is "
            "surer about also come now and then, so that every text can be chosen.")


def due(found: LabelSetRound | None, sets: Sequence[Sequence[str]], categories: Sequence[str],
        log_codings: int, every: int = RETRAIN_EVERY) -> bool:
    """Whether to train now: first as soon as a category has both answers, then every ``every``
    codings."""
    if found is None:
        return bool(questions(sets, categories))
    return log_codings - found.log_codings >= every


def coded_positions(place: Mapping, sets: Mapping) -> tuple[list[int], list[tuple[str, ...]]]:
    """The feature rows and the sets of the coded texts ``sets`` (row → set) that ``place`` (row →
    feature row) knows."""
    positions, found = [], []
    for row, labels in sets.items():
        position = place.get(row)
        if position is not None:
            positions.append(position)
            found.append(tuple(labels))
    return positions, found
