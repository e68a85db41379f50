"""Codings the models doubt: texts coded one way that models which never saw them put in another
category more readily than the other texts of their category.

**Confident learning** (Northcutt, Jiang & Chuang 2021, "Confident Learning: Estimating Uncertainty
in Dataset Labels", JAIR 70) through ``cleanlab``'s ``find_label_issues``: from out-of-fold
probabilities (each text predicted by a model trained without it) it counts, per category, the texts
whose probability for another category reaches that category's own typical confidence (the
*confident joint*), estimates from those counts how many codings of each category belong elsewhere,
and flags that many texts per pair, those with the largest margin for the other category. The flagged
texts are ranked, most doubtful first, by the probability the models give the coded category
(*self-confidence*) or by the *normalized margin* (that probability minus the largest other one).

A category needs some codings before the models can doubt them: with one or two, a model trained
without the text has barely or never seen the category, and every such coding looks wrong. Codings of
categories with fewer than ``MIN_CODINGS`` codings are therefore not checked, and confident learning
runs on the checked categories alone (their probabilities scaled to sum to one). The category
suggested instead is the most probable other *checked* category (a category said not to be checked is
never suggested either); its confidence is its probability among all the probabilities given.

With many categories a doubt can rest on a small probability (confident learning compares each text
with the typical confidence of its category, which is low when 27 categories share the probability),
so the sentence calls the doubts confident only when the suggested category has at least
``CONFIDENT`` (more than the coded category could then have) and otherwise gives the numbers.

A doubt is a pointer for the researcher, not a verdict: the model can be wrong, and a coding that
follows the codebook stays right even when the model disagrees.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from guiapp.core.errors import DataError

MIN_CODINGS = 5
CONFIDENT = 0.7  # a suggestion is called confident from this probability on
RANKINGS = ("self_confidence", "normalized_margin")


@dataclass(frozen=True)
class Doubt:
    """One coding the models doubt. ``position`` indexes the labels given; ``confidence`` is the
    probability of ``suggested``; ``score`` is confident learning's quality score of the coding
    (0 to 1, lower is more doubtful); ``coded_probability`` the probability of the coded category."""

    position: int
    coded: str
    suggested: str
    confidence: float
    score: float
    coded_probability: float


@dataclass(frozen=True)
class Review:
    """The doubted codings, most doubtful first, with one sentence for the researcher."""

    doubts: list[Doubt]
    sentence: str
    n_checked: int = 0
    not_checked: tuple[str, ...] = field(default=())  # categories with too few codings to be doubted


def doubted_codings(labels: Sequence[str | None], oof_probabilities: np.ndarray, categories: Sequence[str],
                    limit: int | None = None, rank_by: str = "self_confidence") -> list[Doubt]:
    """The codings the models doubt, most doubtful first (see :func:`review_codings`)."""
    return review_codings(labels, oof_probabilities, categories, limit=limit, rank_by=rank_by).doubts


def review_codings(labels: Sequence[str | None], oof_probabilities: np.ndarray, categories: Sequence[str],
                   limit: int | None = None, rank_by: str = "self_confidence") -> Review:
    """Codings whose out-of-fold probabilities disagree with them (see the module docstring).

    ``labels[i]`` is the coding of text ``i`` (None or NaN: not coded, never doubted) and
    ``oof_probabilities[i]`` its out-of-fold probabilities, columns in ``categories`` order.
    ``limit`` keeps the first so many doubts.
    """
    categories = [str(c) for c in categories]
    probabilities = _checked_probabilities(oof_probabilities, len(labels), categories)
    if rank_by not in RANKINGS:
        raise DataError(f"Doubted codings cannot be ranked by {rank_by!r}.", f"Choose one of: {', '.join(RANKINGS)}.")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 0):
        raise DataError(f"Cannot show {limit!r} doubted codings.", "Give a whole number, 0 or more, or no limit.")
    coded = _coded_positions(labels, categories)
    counts = Counter(categories[k] for k in coded.values())
    n_coded = len(coded)
    if len(categories) < 2 or len(counts) < 2:
        only = f" so far all {n_coded:,} are “{next(iter(counts))}”" if counts else " there are none yet"
        return Review([], "The models can only doubt codings once texts are coded in at least two categories;"
                      f"{only}.")
    checked = [c for c in categories if counts[c] >= MIN_CODINGS]
    not_checked = tuple(c for c in categories if 0 < counts[c] < MIN_CODINGS)
    if len(checked) < 2:
        having = (f"only “{checked[0]}” has that many. Code more texts of the other categories first." if checked
                  else "none has that many yet. Code more texts first.")
        return Review([], (f"The models can doubt codings only in categories with at least {MIN_CODINGS} codings, "
                           f"and at least two such categories are needed; {having}"), 0, not_checked)
    doubts, n_checked = _confident_learning(probabilities, coded, categories, checked, rank_by)
    sentence = _sentence(doubts, n_checked, not_checked)
    if limit is not None:
        doubts = doubts[: int(limit)]
    return Review(doubts, sentence, n_checked, not_checked)


def _confident_learning(probabilities: np.ndarray, coded: dict[int, int], categories: list[str],
                        checked: list[str], rank_by: str) -> tuple[list[Doubt], int]:
    from cleanlab.filter import find_label_issues  # imported here: a second and a half, needed only for a review
    from cleanlab.rank import get_label_quality_scores

    columns = [categories.index(c) for c in checked]
    unchecked = np.setdiff1d(np.arange(len(categories)), columns)
    to_checked = {column: i for i, column in enumerate(columns)}
    positions = np.array([p for p, k in coded.items() if k in to_checked], dtype=int)
    labels = np.array([to_checked[coded[p]] for p in positions], dtype=int)
    sub = probabilities[np.ix_(positions, columns)]
    totals = sub.sum(axis=1, keepdims=True)
    # A text the models give no chance in any checked category: spread evenly (it is then doubted
    # only if confident learning says so from the other texts, never because of a division by zero).
    sub = np.where(totals > 0, sub / np.where(totals > 0, totals, 1), 1 / len(columns))
    issues = find_label_issues(labels, sub, return_indices_ranked_by=rank_by, n_jobs=1)
    scores = get_label_quality_scores(labels, sub, method=rank_by)
    doubts = []
    for i in np.asarray(issues, dtype=int):
        position = int(positions[i])
        row = probabilities[position]
        coded_column = coded[position]
        others = row.copy()
        others[coded_column] = -np.inf
        others[unchecked] = -np.inf  # never suggest a category whose own codings are not checked
        suggested = int(np.argmax(others))
        doubts.append(Doubt(position, categories[coded_column], categories[suggested], float(row[suggested]),
                            float(scores[i]), float(row[coded_column])))
    return doubts, len(positions)


def _checked_probabilities(oof_probabilities, n_labels: int, categories: list[str]) -> np.ndarray:
    try:
        probabilities = np.asarray(oof_probabilities, dtype=float)
    except (TypeError, ValueError):
        raise DataError("The models' probabilities are not numbers.",
                        "Give one row of probabilities per coded text, one column per category.") from None
    if probabilities.ndim != 2 or probabilities.shape != (n_labels, len(categories)):
        raise DataError(
            f"The models' probabilities have shape {probabilities.shape}, but there are {n_labels:,} codings "
            f"and {len(categories)} categories.",
            "Give one row of probabilities per coded text and one column per category, in the categories' order.")
    if len(set(categories)) != len(categories):
        raise DataError("A category is named twice among the probabilities' columns.",
                        "Give each category once, in the order of the probabilities' columns.")
    if not np.isfinite(probabilities).all() or (probabilities < 0).any():
        raise DataError("Some of the models' probabilities are missing, negative or infinite.",
                        "Give out-of-fold probabilities between 0 and 1 for every coded text.")
    totals = probabilities.sum(axis=1, keepdims=True)
    return np.divide(probabilities, totals, out=np.zeros_like(probabilities), where=totals > 0)


def _coded_positions(labels: Sequence[str | None], categories: list[str]) -> dict[int, int]:
    """Coded text → column of its category; uncoded texts (None, NaN) left out."""
    index = {c: i for i, c in enumerate(categories)}
    coded: dict[int, int] = {}
    unknown: set[str] = set()
    for position, label in enumerate(labels):
        if _missing(label):
            continue
        column = index.get(str(label))
        if column is None:
            unknown.add(str(label))
        else:
            coded[position] = column
    if unknown:
        shown = ", ".join(f"“{u}”" for u in sorted(unknown)[:5])
        raise DataError(f"Some codings use categories that have no column of probabilities: {shown}.",
                        "Give the probabilities of a model trained on these codings, with every category they use.")
    return coded


def _missing(label) -> bool:
    if label is None:
        return True
    try:
        return bool(label != label)  # NaN, NaT
    except (TypeError, ValueError):
        return True  # pandas' NA cannot say whether it equals itself


def _sentence(doubts: Sequence[Doubt], n_checked: int, not_checked: tuple[str, ...]) -> str:
    if not doubts:
        text = f"The models do not doubt any of the {n_checked:,} codings they checked."
    else:
        text = (f"The models doubt {len(doubts):,} of {n_checked:,} codings: models that did not see these texts "
                f"while learning {_how_sure(doubts)} Keep a coding that follows your codebook; change it where the "
                "text was coded by mistake.")
    if not_checked:
        shown = ", ".join(f"“{c}”" for c in not_checked)
        text += (f" Codings of {shown} are not checked, nor suggested: fewer than {MIN_CODINGS} texts are "
                 "coded so.")
    return text


def _how_sure(doubts: Sequence[Doubt]) -> str:
    """How sure the models are of the categories they suggest, in words that match the numbers shown
    (whole percentages: a doubt shown as 70 % is confident, one shown as 69 % is not)."""
    threshold = round(CONFIDENT * 100)
    confident = sum(1 for d in doubts if _percent(d.confidence) >= threshold)
    if confident == len(doubts):
        return f"put them confidently in another category ({threshold} % or more)."
    shown = [d for d in doubts if _percent(d.confidence) < threshold]
    low, high = _percent(min(d.confidence for d in shown)), _percent(max(d.confidence for d in shown))
    spread = f"{low} %" if low == high else f"{low}–{high} %"
    above = all(d.confidence > d.coded_probability for d in shown)
    rather = ("find another category more likely than yours" if above
              else "give your coding less probability than is usual for its category")
    if confident:
        return (f"put {confident:,} of them confidently in another category ({threshold} % or more); for the "
                f"other {len(shown):,} they {rather}, though not confidently: the suggested category has {spread}.")
    return f"{rather}, though not confidently: the suggested category has {spread}."


def _percent(probability: float) -> int:
    """A probability as the whole percentage shown for it."""
    return round(probability * 100)


def readiness_sentence(counts: dict[str, int], trained_on: tuple[int, int] | None) -> str:
    """What the check of the codings would look at now, before it is run: ``counts`` are the coded texts
    per category (the file's and TextLab's), ``trained_on`` (coded texts, categories) what the quick
    model last learnt from (None: not trained yet)."""
    coded = {c: n for c, n in counts.items() if n > 0}
    checked = [c for c, n in coded.items() if n >= MIN_CODINGS]
    few = [c for c, n in coded.items() if n < MIN_CODINGS]
    if len(coded) < 2:
        return ("Codings can be checked once texts of at least two categories are coded; "
                + (f"so far all {sum(coded.values()):,} are “{next(iter(coded))}”." if coded else "none is coded yet."))
    if trained_on is None:
        text = "The quick model has not been trained yet; "
    else:
        n_texts, n_categories = trained_on
        text = f"The quick model last learnt from {n_texts:,} coded texts in {n_categories:,} categories; "
    if len(checked) < 2:
        text += (f"codings can be checked once two categories have at least {MIN_CODINGS} codings each "
                 f"({len(checked)} has so far).")
    else:
        text += (f"“Check the codings” looks at the {len(checked):,} categories with at least {MIN_CODINGS} codings "
                 f"({sum(coded[c] for c in checked):,} coded texts).")
    if few:
        shown = ", ".join(f"“{c}”" for c in few[:5]) + (f" and {len(few) - 5:,} more" if len(few) > 5 else "")
        text += f" Not yet checked: {shown}."
    return text
