"""A coding team: its named coders, the draw of texts each codes, the adjudicator's decisions, and the
rule for texts the coders disagreed on that no one settled.

The :class:`Team` is kept with the project's record of codings (``CodingLog.team``). Every coder's
codings are entries of that one record, told apart by the coder's name, and never overwritten:

- :func:`codings_by_coder` reads, per text, each coder's latest coding (a skip as None);
- :func:`resolve` gives the study's coding per text (``adjudication.py``: adjudicated, else agreed
  or from one coder, else the team's ``fallback``);
- :func:`rows_to_code` lists the texts a coder still has to code: their share of the draw when
  there is one, skipped ones last.

A team of one coder is no team: the log then keeps the study's coding as it always has, the latest
coding of a text wins. With two or more coders the study's coding is the resolved one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guiapp.core.coding.adjudication import FALLBACKS, MAJORITY, Adjudication, StudyCodings, study_codings
from guiapp.core.coding.coding_record import SECOND_CODER, SOURCES, Row, UnreadableCodings, check_version, row_label
from guiapp.core.coding.team_assignment import TeamAssignment
from guiapp.core.errors import UserError
from guiapp.core.study.label_sets import NO_CATEGORY

if TYPE_CHECKING:
    from guiapp.core.coding.coding_record import Coding

__all__ = ["FORMAT", "VERSION", "Team", "assigned_probability", "check_coder_name", "coders_of_rows", "codings_by_coder",
           "coding_key", "latest_by_coder", "resolve", "rows_to_code"]

FORMAT = "textlab-coding-team"
VERSION = 1
_WHAT = "coding team"
TABLE = SOURCES[0]
MAX_NAME = 80


def check_coder_name(name: object, taken: Iterable[str] = ()) -> str:
    """``name`` stripped, as a coder's name; :class:`UserError` when it is empty, too long, or taken."""
    if not isinstance(name, str) or not name.strip():
        raise UserError("A coder needs a name.", "Type the coder's name, e.g. their first name or initials.")
    name = name.strip()
    if len(name) > MAX_NAME:
        raise UserError(f"A coder's name may have up to {MAX_NAME} characters, not {len(name)}.",
                        "Use a shorter name, e.g. initials.")
    if name.casefold() in {other.casefold() for other in taken}:
        raise UserError(f"The team already has a coder called “{name}”.", "Give each coder their own name.")
    return name


@dataclass
class Team:
    """The team's coders in order (the first is the lead coder), who codes now, the draw, the
    adjudications (keyed by source and row) and the rule for unsettled disagreements."""

    coders: list[str] = field(default_factory=list)
    active: str = ""
    fallback: str = MAJORITY
    adjudications: dict[tuple[str, Row], Adjudication] = field(default_factory=dict)
    assignment: TeamAssignment | None = None

    def __post_init__(self) -> None:
        if self.active not in self.coders:
            self.active = self.coders[0] if self.coders else ""

    @property
    def is_team(self) -> bool:
        return len(self.coders) >= 2

    def add_coder(self, name: str) -> str:
        name = check_coder_name(name, self.coders)
        self.coders.append(name)
        if not self.active:
            self.active = name
        return name

    def switch_to(self, name: str) -> None:
        if name not in self.coders:
            raise UserError(f"“{name}” is not a coder of this team.", "Add the coder first.")
        self.active = name

    def set_fallback(self, fallback: str) -> None:
        if fallback not in FALLBACKS:
            raise UserError(f"“{fallback}” is not a way to settle texts the coders disagreed on.",
                            f"Choose one of: {', '.join(FALLBACKS)}.")
        self.fallback = fallback

    def adjudicate(self, row: Row, adjudication: Adjudication | None, source: str = TABLE) -> None:
        """Settle the text (or, with None, take the decision back)."""
        key = (source, row_label(row))
        if adjudication is None:
            self.adjudications.pop(key, None)
        else:
            self.adjudications[key] = adjudication

    def adjudications_of(self, source: str = TABLE) -> dict[Row, Adjudication]:
        return {row: adjudication for (where, row), adjudication in self.adjudications.items() if where == source}

    def copy(self) -> Team:
        return Team(list(self.coders), self.active, self.fallback, dict(self.adjudications), self.assignment)

    # ------------------------------------------------------------------ keeping
    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "coders": list(self.coders), "active": self.active,
                "fallback": self.fallback,
                "adjudications": [{"source": source, "row": row, "category": a.category, "adjudicator": a.adjudicator,
                                   "comment": a.comment} for (source, row), a in self.adjudications.items()],
                "assignment": self.assignment.to_dict() if self.assignment is not None else None}

    @classmethod
    def from_dict(cls, data: object) -> Team:
        """The team in ``data`` (read from an untrusted file); :class:`UnreadableCodings` says what is wrong."""
        if not isinstance(data, dict):
            raise UnreadableCodings("it is not a team of coders", _WHAT)
        check_version(data, FORMAT, VERSION, _WHAT)
        coders = data.get("coders", [])
        if not isinstance(coders, list):
            raise UnreadableCodings("its coders are not a list of names", _WHAT)
        team = cls()
        for number, name in enumerate(coders, start=1):
            try:
                team.coders.append(check_coder_name(name, team.coders))
            except UserError:
                raise UnreadableCodings(f"coder {number} has no name, too long a name or one given twice",
                                        _WHAT) from None
        active = data.get("active", "")
        team.active = active if isinstance(active, str) and active in team.coders else (team.coders or [""])[0]
        fallback = data.get("fallback", MAJORITY)
        if fallback not in FALLBACKS:
            raise UnreadableCodings(f"its rule for disagreements ({str(fallback)[:40]!r}) is not one TextLab knows",
                                    _WHAT)
        team.fallback = fallback
        entries = data.get("adjudications", [])
        if not isinstance(entries, list):
            raise UnreadableCodings("its adjudications are not a list", _WHAT)
        for number, entry in enumerate(entries, start=1):
            team.adjudications[_adjudication_key(entry, number)] = _adjudication(entry, number)
        assignment = data.get("assignment")
        team.assignment = TeamAssignment.from_dict(assignment) if assignment is not None else None
        return team


def _adjudication_key(entry: object, number: int) -> tuple[str, Row]:
    if not isinstance(entry, dict):
        raise UnreadableCodings(f"adjudication {number} is not a decision on a text", _WHAT)
    source, row = entry.get("source", TABLE), entry.get("row")
    if isinstance(row, float) and row.is_integer():
        row = int(row)
    if source not in SOURCES or isinstance(row, bool) or not isinstance(row, int | str):
        raise UnreadableCodings(f"adjudication {number} names no text", _WHAT)
    return source, row_label(row)


def _adjudication(entry: dict, number: int) -> Adjudication:
    texts = [entry.get(key, "") for key in ("category", "adjudicator", "comment")]
    if not all(isinstance(text, str) for text in texts) or not texts[0].strip():
        raise UnreadableCodings(f"adjudication {number} has no category, or an adjudicator or comment that "
                                "is not a text", _WHAT)
    return Adjudication(*texts)


# ---------------------------------------------------------------------- reading a team's codings


def _team_entries(entries: Iterable[Coding], source: str) -> Iterable[Coding]:
    return (entry for entry in entries if entry.source == source and entry.chosen_by != SECOND_CODER)


def latest_by_coder(entries: Iterable[Coding], source: str = TABLE) -> dict[Row, dict[str, Coding]]:
    """Row → coder → that coder's latest entry of the row (a skip included), rows in the order first coded."""
    found: dict[Row, dict[str, Coding]] = {}
    for entry in _team_entries(entries, source):
        found.setdefault(entry.row, {})[entry.coder] = entry
    return found


def codings_by_coder(entries: Iterable[Coding], source: str = TABLE) -> dict[Row, dict[str, str | None]]:
    """Row → coder → the category of that coder's latest coding (None: skipped). Where a text can
    have several categories, a coder's coding is its categories joined in the order given."""
    return {row: {coder: coding_key(entry) for coder, entry in by_coder.items()}
            for row, by_coder in latest_by_coder(entries, source).items()}


def coding_key(entry: Coding) -> str | None:
    """A coding as the team's resolution compares it: its category, or its set of categories as one text."""
    if entry.labels is not None:  # a set: none of the categories is a coding too, never read as missing
        return "; ".join(sorted(entry.labels)) if entry.labels else NO_CATEGORY
    return entry.category


def resolve(entries: Iterable[Coding], team: Team, source: str = TABLE) -> StudyCodings:
    """The study's coding of each text of ``source`` the team coded or adjudicated."""
    return study_codings(codings_by_coder(entries, source), team.adjudications_of(source),
                         fallback=team.fallback, coders=team.coders)


def rows_to_code(entries: Iterable[Coding], team: Team, coder: str, source: str = TABLE,
                 candidates: Iterable[Row] | None = None) -> list[Row]:
    """The texts ``coder`` has still to code, in the order shown: their rows of the draw when the team
    has one (else ``candidates``), without those they coded; the ones they skipped come last."""
    rows = team.assignment.rows_for(coder, source) if team.assignment is not None else list(candidates or ())
    mine = {row: by_coder[coder] for row, by_coder in latest_by_coder(entries, source).items() if coder in by_coder}
    waiting = [row for row in rows if row not in mine]
    skipped = [row for row in rows if row in mine and mine[row].skipped]
    return [*waiting, *skipped]


def assigned_probability(team: Team, coder: str, row: Row, source: str = TABLE) -> float | None:
    """The probability the draw gave ``row`` to ``coder`` (None: not drawn for them)."""
    if team.assignment is None:
        return None
    row = row_label(row)
    return next((text.p_coder for text in team.assignment.texts
                 if text.coder == coder and text.source == source and text.row == row), None)


def coders_of_rows(entries: Iterable[Coding], source: str = TABLE) -> Mapping[Row, list[str]]:
    """Row → the coders who coded it (skips left out), in the order they did."""
    return {row: [coder for coder, entry in by_coder.items() if not entry.skipped]
            for row, by_coder in latest_by_coder(entries, source).items()}
