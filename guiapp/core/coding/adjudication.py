"""Adjudication: the one category per text that a team's study counts, when several coders coded it.

Each coder's codings are kept apart and never changed here; these pure functions read them and
say what the study uses, per text, and by which rule:

1. ``"adjudicated"`` — an adjudicator settled the text (:class:`Adjudication`: the category, who,
   and a comment); this wins over every coder;
2. ``"one coder"`` — only one coder coded the text;
3. ``"agreed"`` — two or more coders coded it and all gave the same category;
4. else the coders disagreed and no one adjudicated; a setting (``fallback``) decides:

   - ``"first coder"``: the category of the first coder in the team's list who coded it;
   - ``"majority"``: the category most of its coders gave; when two or more categories share the
     most votes the text is left uncoded (rule ``"tie"``) and the sentence says so;
   - ``"leave out"``: the text is left uncoded (rule ``"left out"``).

A text no coder coded (all skipped) and no one adjudicated is ``"not coded"``.

Inputs are plain: ``codings`` maps a row (the table's index label of a text) to a mapping coder →
category (``None``, an empty text or NaN: the coder skipped it; a number is read as the label it
stands for, 2.0 as "2"); ``adjudications`` maps a row to
an :class:`Adjudication`. :func:`study_codings` gives a :class:`StudyCodings` (per text the
category and its rule, the counts per rule, and a sentence for the Data step);
:func:`disagreements` lists the texts where coders differ, for the adjudicator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from guiapp.core.errors import UserError
from guiapp.core.health.checks import plural
from guiapp.core.tables.cell_values import category_label

__all__ = ["ADJUDICATED", "AGREED", "FALLBACKS", "FIRST_CODER", "LEAVE_OUT", "LEFT_OUT", "MAJORITY", "NOT_CODED",
           "ONE_CODER", "RULES", "TIE", "Adjudication", "Disagreement", "StudyCodings", "TextCoding",
           "coder_order", "disagreements", "study_codings"]

Row = Hashable

FIRST_CODER, MAJORITY, LEAVE_OUT = "first coder", "majority", "leave out"
FALLBACKS = (FIRST_CODER, MAJORITY, LEAVE_OUT)
ADJUDICATED, ONE_CODER, AGREED, TIE, LEFT_OUT, NOT_CODED = (
    "adjudicated", "one coder", "agreed", "tie", "left out", "not coded")
RULES = (ADJUDICATED, ONE_CODER, AGREED, FIRST_CODER, MAJORITY, TIE, LEFT_OUT, NOT_CODED)


@dataclass(frozen=True)
class Adjudication:
    """An adjudicator's decision on a text the coders disagreed on."""

    category: str
    adjudicator: str = ""
    comment: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.category, str) or not self.category.strip():
            raise UserError("An adjudication needs a category.",
                            "Pick the category the text belongs to, or leave the text unadjudicated.")


@dataclass(frozen=True)
class TextCoding:
    """What the study uses for one text: its category (``None``: left uncoded) and the rule that gave it."""

    row: Row
    category: str | None
    rule: str


@dataclass(frozen=True)
class Disagreement:
    """A text its coders coded differently: each coder's category, in the team's order."""

    row: Row
    categories: tuple[tuple[str, str], ...]  # (coder, category) for each coder who coded the text
    adjudication: Adjudication | None = None


@dataclass(frozen=True)
class StudyCodings:
    """The study's coding per text, with the rule that gave each."""

    texts: tuple[TextCoding, ...]
    fallback: str
    counts: dict[str, int] = field(default_factory=dict)  # rule → texts, every rule of RULES

    def categories(self) -> dict[Row, str]:
        """Row → category of every text the study counts (texts left uncoded are not in it)."""
        return {text.row: text.category for text in self.texts if text.category is not None}

    def rule_of(self, row: Row) -> str:
        return next(text.rule for text in self.texts if text.row == row)

    def sentence(self) -> str:
        """How many texts came from which rule, for the Data step, e.g. "412 texts from one coder,
        96 agreed by two or more, 31 adjudicated, 5 left out: coders disagreed and no one
        adjudicated."""
        c = self.counts
        parts = [(c[rule], tail) for rule, tail in (
            (ONE_CODER, "from one coder"),
            (AGREED, "agreed by two or more"),
            (ADJUDICATED, "adjudicated"),
            (FIRST_CODER, "from the first coder where coders disagreed"),
            (MAJORITY, "from the majority of their coders"),
            (TIE, "left out: coders were split evenly and no one adjudicated"),
            (LEFT_OUT, "left out: coders disagreed and no one adjudicated"),
        ) if c[rule]]
        if not parts:
            return "No text has been coded yet."
        (first, tail), *rest = parts
        return ", ".join([f"{plural(first, 'text')} {tail}", *(f"{count:,} {tail}" for count, tail in rest)]) + "."


def _check_fallback(fallback: str) -> str:
    if fallback not in FALLBACKS:
        raise UserError(f"“{fallback}” is not a way to settle texts the coders disagreed on.",
                        f"Choose one of: {', '.join(FALLBACKS)}.")
    return fallback


def coder_order(codings: Mapping[Row, Mapping[str, object]], coders: Sequence[str] | None = None) -> list[str]:
    """The team's coders in order: ``coders`` as given, then any coder found in ``codings`` it
    lacks, in the order they first appear."""
    order = list(dict.fromkeys(coders or ()))
    known = set(order)
    for by_coder in codings.values():
        for coder in by_coder:
            if coder not in known:
                known.add(coder)
                order.append(coder)
    return order


def _coded(by_coder: Mapping[str, object], order: Sequence[str]) -> list[tuple[str, str]]:
    """(coder, category) of each coder who coded the text, in the team's order."""
    labels = ((coder, category_label(by_coder[coder])) for coder in order if coder in by_coder)
    return [(coder, label) for coder, label in labels if label is not None]


def _resolve(row: Row, coded: list[tuple[str, str]], adjudication: Adjudication | None, fallback: str) -> TextCoding:
    if adjudication is not None:
        return TextCoding(row, adjudication.category, ADJUDICATED)
    if not coded:
        return TextCoding(row, None, NOT_CODED)
    categories = [category for _, category in coded]
    if len(set(categories)) == 1:
        return TextCoding(row, categories[0], ONE_CODER if len(coded) == 1 else AGREED)
    if fallback == FIRST_CODER:
        return TextCoding(row, categories[0], FIRST_CODER)
    if fallback == MAJORITY:
        votes = Counter(categories).most_common()
        if len(votes) > 1 and votes[0][1] == votes[1][1]:
            return TextCoding(row, None, TIE)
        return TextCoding(row, votes[0][0], MAJORITY)
    return TextCoding(row, None, LEFT_OUT)


def study_codings(codings: Mapping[Row, Mapping[str, object]],
                  adjudications: Mapping[Row, Adjudication] | None = None, *,
                  fallback: str = LEAVE_OUT, coders: Sequence[str] | None = None) -> StudyCodings:
    """The study's coding per text (see the module's docstring): every row of ``codings``, then
    every adjudicated row it lacks. ``coders``: the team's order (who is "first"); by default the
    order in which coders first appear. Neither input is changed."""
    fallback = _check_fallback(fallback)
    adjudications = dict(adjudications or {})
    order = coder_order(codings, coders)
    rows = list(dict.fromkeys([*codings, *adjudications]))
    texts = tuple(_resolve(row, _coded(codings.get(row, {}), order), adjudications.get(row), fallback)
                  for row in rows)
    counts = dict.fromkeys(RULES, 0)
    counts.update(Counter(text.rule for text in texts))
    return StudyCodings(texts, fallback, counts)


def disagreements(codings: Mapping[Row, Mapping[str, object]],
                  adjudications: Mapping[Row, Adjudication] | None = None, *,
                  coders: Sequence[str] | None = None, include_adjudicated: bool = True) -> list[Disagreement]:
    """The texts two or more coders coded differently, in the order of ``codings``, each with every
    coder's category (in the team's order) and its adjudication if there is one.
    ``include_adjudicated=False`` lists only those still to settle."""
    adjudications = adjudications or {}
    order = coder_order(codings, coders)
    found = []
    for row, by_coder in codings.items():
        coded = _coded(by_coder, order)
        if len({category for _, category in coded}) < 2:
            continue
        adjudication = adjudications.get(row)
        if adjudication is not None and not include_adjudicated:
            continue
        found.append(Disagreement(row, tuple(coded), adjudication))
    return found
