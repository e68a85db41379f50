"""Which texts each coder of a team codes: a seeded random draw with overlap by design, and the
probability each text was drawn with, so that the Findings can weight the codings by it.

**The plan** (:class:`TeamPlan`): the coders' names, how many texts each coder codes (``m``), the
share of the drawn texts that two or more coders code (``s``, the overlap, between 0 and 1), and
how many coders code each overlap text (``c``, 2 or more, at most the number of coders ``k``).

**The sizes.** The team codes ``k·m`` codings; ``O`` overlap texts take ``c`` codings each and
``S`` single texts one each, so ``O·c + S = k·m`` and ``O / (O + S) ≈ s``:
``O = round(k·m·s / (c·s + 1 − s))`` (at most ``k·m / c``), ``S = k·m − O·c``. Every coder
codes exactly ``m`` texts.

**The draw.** The pool is the uncoded rows of the table, and optionally of a second file (each
text named by its source and row). Each text gets a key that stands for a uniform draw in
[0, 1) — the BLAKE2b hash of the seed, the source and the row — so the draw does not depend on the
order the rows are given in and is the same on every computer. The ``O`` texts with the smallest
keys are the overlap texts, the next ``S`` the single ones: a simple random sample without
replacement. The coders are put in a random order (keyed the same way); overlap text ``i`` goes to
the coders at places ``i·c, …, i·c + c − 1`` (counted round the order), which gives each coder
``⌊O·c/k⌋`` or ``⌈O·c/k⌉`` overlap texts, and the single texts fill each coder up to ``m`` in turn.

**The probabilities** recorded for each (coder, text), over the draw, with ``N`` texts in the pool:
the text was drawn as an overlap text with probability ``O / N``, and drawn for that coder with
probability ``m / N`` (the same for every text and coder, since the texts' and the coders' orders
are both uniformly random).

A coder's texts are listed in the order of their keys, overlap and single texts mixed, so a coder
cannot tell which texts others code too. :meth:`TeamAssignment.to_dict` and
:meth:`TeamAssignment.from_dict` keep the assignment in a project; reading it back checks every
field (the file is untrusted).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from guiapp.core.coding.coding_record import SOURCES, Row, UnreadableCodings, check_version, row_label
from guiapp.core.errors import UserError
from guiapp.core.health.checks import plural

__all__ = ["FORMAT", "VERSION", "AssignedText", "TeamAssignment", "TeamPlan", "check_rows", "coders_of", "draw_assignment",
           "overlap_size"]

FORMAT = "textlab-team-assignment"
VERSION = 1
_WHAT = "team's assignment"
TABLE, SECOND_FILE = SOURCES


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class TeamPlan:
    """What the researcher sets: who codes, how many texts each, and how much they overlap."""

    coders: tuple[str, ...]
    texts_per_coder: int
    overlap_share: float = 0.0  # the share of the drawn texts coded by two or more coders
    coders_per_overlap: int = 2
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "coders", tuple(self.coders))

    def check(self) -> None:
        """A :class:`UserError` that says in words what does not fit."""
        if not self.coders:
            raise UserError("The team has no coders.", "Add the coders' names first.")
        for coder in self.coders:
            if not isinstance(coder, str) or not coder.strip():
                raise UserError("A coder has no name.", "Give every coder a name, or remove the empty one.")
        twice = [coder for coder, count in Counter(self.coders).items() if count > 1]
        if twice:
            raise UserError(f"The team names the coder “{twice[0]}” twice.",
                            "Give each coder their own name.")
        if not _whole(self.texts_per_coder) or self.texts_per_coder < 1:
            raise UserError(f"Each coder must code at least one text, not {self.texts_per_coder!r}.",
                            "Enter how many texts each coder codes, a whole number such as 100.")
        share = self.overlap_share
        if isinstance(share, bool) or not isinstance(share, int | float) or not math.isfinite(share) or share < 0:
            raise UserError(f"The overlap must be a share between 0 and 1, not {share!r}.",
                            "Enter the share of texts two or more coders code, e.g. 0.2 for 20%.")
        if share > 1:
            raise UserError(f"The overlap must be a share between 0 and 1, not {share:g}.",
                            f"For {share:g}% of the texts enter {share / 100:g}; "
                            "1 means every text is coded by several coders." if share <= 100 else
                            "Enter the share of texts two or more coders code, e.g. 0.2 for 20%.")
        if not _whole(self.seed):
            raise UserError(f"The seed of the draw must be a whole number, not {self.seed!r}.",
                            "Use a whole number such as 0; the same number draws the same texts again.")
        if share == 0:
            return
        if len(self.coders) < 2:
            raise UserError("One coder cannot share texts with other coders.",
                            "Add a second coder, or set the overlap to 0.")
        if not _whole(self.coders_per_overlap) or self.coders_per_overlap < 2:
            raise UserError(f"A text coded by several coders needs at least two of them, not "
                            f"{self.coders_per_overlap!r}.", "Choose 2 or more coders per shared text.")
        if self.coders_per_overlap > len(self.coders):
            raise UserError(f"{self.coders_per_overlap} coders per shared text are more than the "
                            f"{len(self.coders)} coders of the team.",
                            f"Choose between 2 and {len(self.coders)} coders per shared text, or add coders.")
        if overlap_size(self) == 0:
            raise UserError(f"An overlap of {share:.0%} is less than one text for this team.",
                            "Raise the overlap or the texts per coder, or set the overlap to 0.")

    def to_dict(self) -> dict[str, Any]:
        return {"coders": list(self.coders), "texts_per_coder": self.texts_per_coder,
                "overlap_share": self.overlap_share, "coders_per_overlap": self.coders_per_overlap,
                "seed": self.seed}


def overlap_size(plan: TeamPlan) -> int:
    """``O``, the number of texts coded by several coders (see the module's docstring)."""
    k, m, s, c = len(plan.coders), plan.texts_per_coder, float(plan.overlap_share), plan.coders_per_overlap
    if s <= 0 or k < 2:
        return 0
    return min(int(math.floor(k * m * s / (c * s + 1 - s) + 0.5)), (k * m) // c)


@dataclass(frozen=True)
class AssignedText:
    """One text drawn for one coder, with the probabilities of that draw."""

    coder: str
    row: Row
    source: str  # "table" or "second file"
    overlap: bool  # whether other coders code this text too
    p_overlap: float  # the probability the text was drawn as an overlap text
    p_coder: float  # the probability the text was drawn for this coder


@dataclass(frozen=True)
class TeamAssignment:
    """The drawn assignment: every (coder, text), coders in the plan's order, each coder's texts in
    the order they are shown."""

    plan: TeamPlan
    texts: tuple[AssignedText, ...]
    pool_size: int  # N: the uncoded texts the draw was made from

    def for_coder(self, coder: str) -> list[AssignedText]:
        return [text for text in self.texts if text.coder == coder]

    def rows_for(self, coder: str, source: str = TABLE) -> list[Row]:
        """The rows of ``source`` that ``coder`` codes, in the order they are shown."""
        return [text.row for text in self.texts if text.coder == coder and text.source == source]

    def overlap_texts(self) -> list[tuple[str, Row]]:
        """(source, row) of every text coded by several coders, each once."""
        return list(dict.fromkeys((t.source, t.row) for t in self.texts if t.overlap))

    def distinct_texts(self) -> int:
        return len({(t.source, t.row) for t in self.texts})

    def sentence(self) -> str:
        n_overlap, n_texts = len(self.overlap_texts()), self.distinct_texts()
        plan = self.plan
        team = plural(len(plan.coders), "coder")
        text = f"{team} code {plan.texts_per_coder:,} texts each, {n_texts:,} texts in all"
        if n_overlap:
            text += (f"; {n_overlap:,} of them ({n_overlap / n_texts:.0%}) are coded by "
                     f"{plan.coders_per_overlap} coders each, to measure agreement")
        return text + f", drawn at random from {self.pool_size:,} uncoded texts."

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "plan": self.plan.to_dict(), "pool_size": self.pool_size,
                "texts": [{"coder": t.coder, "row": t.row, "source": t.source, "overlap": t.overlap,
                           "p_overlap": t.p_overlap, "p_coder": t.p_coder} for t in self.texts]}

    @classmethod
    def from_dict(cls, data: object) -> TeamAssignment:
        """The assignment in ``data`` (read from an untrusted file); :class:`UnreadableCodings`
        says what is wrong with it."""
        if not isinstance(data, dict):
            raise UnreadableCodings("it is not an assignment of texts to coders", _WHAT)
        check_version(data, FORMAT, VERSION, _WHAT)
        plan = _plan(data.get("plan"))
        pool_size = data.get("pool_size")
        if not _whole(pool_size) or pool_size < 0:
            raise UnreadableCodings("the number of texts it was drawn from is missing", _WHAT)
        entries = data.get("texts")
        if not isinstance(entries, list):
            raise UnreadableCodings("it holds no list of texts", _WHAT)
        texts = tuple(_assigned(entry, number, plan) for number, entry in enumerate(entries, start=1))
        seen: set[tuple[str, str, Row]] = set()
        for number, text in enumerate(texts, start=1):
            key = (text.coder, text.source, text.row)
            if key in seen:
                raise UnreadableCodings(f"text {number} gives row {str(text.row)[:40]} to {text.coder[:40]} twice", _WHAT)
            seen.add(key)
        return cls(plan, texts, pool_size)


def _plan(data: object) -> TeamPlan:
    if not isinstance(data, dict):
        raise UnreadableCodings("it has no plan of coders and texts", _WHAT)
    coders = data.get("coders")
    if not isinstance(coders, list) or not all(isinstance(coder, str) for coder in coders):
        raise UnreadableCodings("its coders are not a list of names", _WHAT)
    share = data.get("overlap_share", 0.0)
    plan = TeamPlan(tuple(coders), data.get("texts_per_coder"),  # type: ignore[arg-type]
                    float(share) if _whole(share) else share,  # type: ignore[arg-type]
                    data.get("coders_per_overlap", 2), data.get("seed", 0))  # type: ignore[arg-type]
    try:
        plan.check()
    except UserError as error:
        raise UnreadableCodings(error.message[0].lower() + error.message[1:].rstrip("."), _WHAT) from None
    return plan


def _probability(value: object) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            and 0 <= value <= 1)


def _assigned(entry: object, number: int, plan: TeamPlan) -> AssignedText:
    if not isinstance(entry, dict):
        raise UnreadableCodings(f"text {number} is not a text given to a coder", _WHAT)
    coder, row, source = entry.get("coder"), entry.get("row"), entry.get("source", TABLE)
    if coder not in plan.coders:
        raise UnreadableCodings(f"text {number} is given to {str(coder)[:40]!r}, who is not one of the coders", _WHAT)
    if isinstance(row, float) and row.is_integer():
        row = int(row)
    if isinstance(row, bool) or not isinstance(row, int | str):
        raise UnreadableCodings(f"text {number} names no row", _WHAT)
    if source not in SOURCES:
        raise UnreadableCodings(f"text {number} comes from {str(source)[:40]!r}, not from "
                                f"{' or '.join(SOURCES)}", _WHAT)
    overlap = entry.get("overlap", False)
    if not isinstance(overlap, bool):
        raise UnreadableCodings(f"text {number} does not say whether other coders code it too", _WHAT)
    p_overlap, p_coder = entry.get("p_overlap"), entry.get("p_coder")
    if not _probability(p_overlap) or not _probability(p_coder):
        raise UnreadableCodings(f"text {number} has a probability of being drawn that is not between 0 and 1", _WHAT)
    return AssignedText(coder, row, source, overlap, float(p_overlap), float(p_coder))  # type: ignore[arg-type]


# ---------------------------------------------------------------------- the draw


def _key(seed: int, what: str, name: object) -> int:
    digest = hashlib.blake2b(repr((seed, what, name)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _pool(rows: Iterable[object], second_rows: Iterable[object]) -> list[tuple[str, Row]]:
    pool: dict[tuple[str, Row], None] = {}
    for source, given in ((TABLE, rows), (SECOND_FILE, second_rows)):
        for row in given:
            try:
                pool[(source, row_label(row))] = None
            except TypeError:
                raise UserError(f"{row!r} is not a row of the {'table' if source == TABLE else 'second file'}.",
                                "Rows are named by whole numbers or texts.") from None
    return list(pool)


def draw_assignment(plan: TeamPlan, rows: Iterable[object], second_rows: Iterable[object] = ()) -> TeamAssignment:
    """Draw the texts each coder codes from ``rows`` (the table's uncoded rows) and ``second_rows``
    (a second file's uncoded rows, if any), by ``plan`` (see the module's docstring). The same plan
    and rows give the same assignment, whatever the order of the rows. :class:`UserError` when the
    plan does not fit or asks for more texts than there are."""
    plan.check()
    pool = _pool(rows, second_rows)
    k, m, c = len(plan.coders), plan.texts_per_coder, plan.coders_per_overlap
    n_overlap = overlap_size(plan)
    n_single = k * m - n_overlap * c
    wanted, n = n_overlap + n_single, len(pool)
    if wanted > n:
        raise UserError(
            f"The plan needs {wanted:,} different texts, but only {n:,} uncoded text{'s are' if n != 1 else ' is'} left.",
            "Lower the texts per coder, raise the overlap, or add a second file of texts.")
    keys = {text: _key(plan.seed, "text", text) for text in pool}
    drawn = sorted(pool, key=keys.__getitem__)[:wanted]
    coders = sorted(plan.coders, key=lambda coder: _key(plan.seed, "coder", coder))
    p_overlap, p_coder = n_overlap / n, m / n
    given: dict[str, list[tuple[tuple[str, Row], bool]]] = {coder: [] for coder in plan.coders}
    for i, text in enumerate(drawn[:n_overlap]):
        for place in range(i * c, i * c + c):
            given[coders[place % k]].append((text, True))
    singles = iter(drawn[n_overlap:])
    for coder in coders:
        while len(given[coder]) < m:
            given[coder].append((next(singles), False))
    texts = tuple(AssignedText(coder, text[1], text[0], overlap, p_overlap, p_coder)
                  for coder in plan.coders
                  for text, overlap in sorted(given[coder], key=lambda pair: _key(plan.seed, coder, pair[0])))
    return TeamAssignment(plan, texts, n)


def coders_of(assignment: TeamAssignment) -> dict[tuple[str, Row], list[str]]:
    """(source, row) → the coders it is given to, in the plan's order."""
    found: dict[tuple[str, Row], list[str]] = {}
    for text in assignment.texts:
        found.setdefault((text.source, text.row), []).append(text.coder)
    return found


def check_rows(assignment: TeamAssignment, rows: Sequence[object]) -> None:
    """A :class:`UserError` when the assignment gives coders rows of the table that ``rows`` (its
    rows now) no longer holds."""
    present = {row_label(row) for row in rows}
    missing = [t.row for t in assignment.texts if t.source == TABLE and t.row not in present]
    if missing:
        shown = ", ".join(map(str, list(dict.fromkeys(missing))[:5]))
        raise UserError(f"The coders were given rows the table no longer has (rows {shown}).",
                        "The table has changed since the texts were drawn; draw them again.")
