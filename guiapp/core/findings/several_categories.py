"""Findings where a text can have several categories: each category's share of the corpus (and of each
group) is estimated on its own, as the share of texts that have it — a yes/no question per category,
answered by the same estimators as one category per text (``findings.py``, ``regression.py``) with the
model's own chance of that category for every text and the coded texts' yes or no. The shares do not
add up to 100 %: a text counts in each of its categories."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from guiapp.core.findings.inputs import CodedSample
from guiapp.core.findings.records import SUM_NOTE_START, Findings, sum_note

EACH_ON_ITS_OWN = ("A text can have several categories, so each category's share is the share of texts that have "
                   "it, estimated on its own; the shares add up to more than 100 % when texts have several.")


def _other(name: str, categories: Sequence[str]) -> str:
    """The name of "not this category", unlike every category's name."""
    other = f"not {name}"
    while other in categories:
        other = f"({other})"
    return other


def yes_or_no(probabilities: np.ndarray, categories: Sequence[str], coded: CodedSample, coded_categories: np.ndarray,
              k: int) -> tuple[np.ndarray, tuple[str, str], CodedSample]:
    """Category ``k`` as a yes/no question: the corpus's chances (N × 2), the two answers' names, and the
    coded texts with their yes or no and their chances."""
    name = str(categories[k])
    other = _other(name, categories)
    chance = np.clip(np.asarray(probabilities, dtype=float)[:, k], 0.0, 1.0)
    coded_chance = np.clip(np.asarray(coded.probabilities, dtype=float)[:, k], 0.0, 1.0)
    labels = [name if has else other for has in np.asarray(coded_categories)[:, k]]
    answered = replace(coded, labels=labels, probabilities=np.column_stack([coded_chance, 1.0 - coded_chance]))
    return np.column_stack([chance, 1.0 - chance]), (name, other), answered


def estimate_each(probabilities: np.ndarray, categories: Sequence[str], coded: CodedSample,
                  coded_categories: np.ndarray, design: object, **options) -> Findings:
    """The findings of every category, each estimated on its own (see the module docstring);
    ``options`` as :func:`guiapp.core.findings.findings.estimate_findings` takes them."""
    from guiapp.core.findings.findings import estimate_findings

    on_event = options.pop("on_event", None)
    parts = []
    for k, name in enumerate(categories):
        chances, names, answered = yes_or_no(probabilities, categories, coded, coded_categories, k)
        extra = {} if on_event is None else {"on_event": on_event}
        parts.append((str(name), estimate_findings(chances, names, answered, design, **options, **extra)))
    first = parts[0][1]
    overall = [share for name, found in parts for share in found.shares if share.group is None and share.category == name]
    by_group = [share for group in first.groups for name, found in parts for share in found.shares
                if share.group == group and share.category == name]
    differences = [d for name, found in parts for d in found.differences if d.category == name]
    warnings = list(dict.fromkeys(warning for _, found in parts for warning in found.warnings
                                  if not warning.startswith(SUM_NOTE_START)))
    note = sum_note(overall + by_group, several=True)
    if note:
        warnings.append(note)
    powers = [found.power for _, found in parts if found.power is not None]
    return replace(first, categories=tuple(str(c) for c in categories), shares=tuple(overall + by_group),
                   differences=tuple(differences), warnings=tuple(warnings),
                   power=min(powers) if powers else None,
                   assumption=f"{first.assumption} {EACH_ON_ITS_OWN}")


def regress_one(formula: str, data, probabilities: np.ndarray, categories: Sequence[str],  # noqa: ANN001 — a DataFrame
                coded: CodedSample, coded_categories: np.ndarray, design: object, kind: str = "logistic"):  # noqa: ANN201
    """The regression of the category left of ``~`` (a yes/no outcome: the text has it or not)."""
    from guiapp.core.findings.regression import parse_formula, regress

    outcome, _ = parse_formula(formula, tuple(str(c) for c in categories))
    k = [str(c) for c in categories].index(outcome)
    chances, names, answered = yes_or_no(probabilities, categories, coded, coded_categories, k)
    return regress(formula, data, chances, names, answered, design, kind=kind)
