"""One coding a researcher made in TextLab (:class:`Coding`), and reading codings back from an
untrusted file: missing optional fields take their defaults, unknown ones are ignored, and an entry
that cannot be a coding is refused with a message that names it (:class:`UnreadableCodings`),
never a crash."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.numbers import reads_as
from guiapp.core.tables.cell_values import category_label

FORMAT = "textlab-codings"
VERSION = 2  # 2: a coding team, codebook versions, several categories per text; 1 is written without them
SECOND_CODER = "second coder"  # how a second coder's codings are recorded as chosen: a record apart from the study's
ASSIGNED = "assigned"  # a team's coder coded a text the team's random draw gave them (its probability recorded)
SHEET = "coding sheet"  # a coder coded the text in an exported coding sheet, read back into the project
CHOSEN_BY = ("random", "uncertainty", "diversity", "in order", "review", SECOND_CODER, ASSIGNED, SHEET)
SOURCES = ("table", "second file")

Row = int | str


def now() -> str:
    """The time now, as a coding records it (ISO 8601, UTC, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def parse_time(text: str) -> datetime:
    """A recorded time as an aware datetime (a time without a zone counts as UTC); ValueError if none."""
    moment = datetime.fromisoformat(text)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def row_label(row: object) -> Row:
    """``row`` as a log keeps it: a whole number (NumPy's too) or a text; TypeError otherwise."""
    if isinstance(row, bool | np.bool_):
        raise TypeError(f"a row is a whole number or a text, not {row!r}")
    if isinstance(row, int | np.integer):
        return int(row)
    if isinstance(row, str):
        return row
    raise TypeError(f"a row is a whole number or a text, not {row!r}")


@dataclass(frozen=True)
class Coding:
    """One entry of the log: the researcher coded (or skipped) the text of ``row``."""

    row: int | str  # the table's index label of the coded text
    category: str | None  # None: skipped
    coder: str
    at: str  # ISO time, UTC
    chosen_by: str  # "random" | "uncertainty" | "diversity" | "in order" | "review" | "second coder"
    probability: float | None  # the probability with which the strategy chose this text (None: no strategy chose it)
    flag: str = ""  # "unsure", "ask colleague", free text …
    comment: str = ""
    previous: str | None = None  # the category the file (or an earlier coding) had, when it was changed
    source: str = "table"  # "table" or "second file"
    codebook_version: int | None = None  # the codebook's version the coder coded under (None: before versions)
    labels: tuple[str, ...] | None = None  # where a text can have several categories: the ones it has (() none)

    def __post_init__(self) -> None:
        object.__setattr__(self, "row", row_label(self.row))
        if self.category is not None and not isinstance(self.category, str):
            raise TypeError(f"a category is a text, not {self.category!r}")
        if self.labels is not None:
            labels = tuple(self.labels)
            if not all(isinstance(label, str) for label in labels):
                raise TypeError(f"the categories of a text are texts, not {self.labels!r}")
            object.__setattr__(self, "labels", tuple(dict.fromkeys(labels)))
        version = self.codebook_version
        if version is not None and (isinstance(version, bool) or not isinstance(version, int) or version < 1):
            raise ValueError(f"a codebook version is a whole number from 1, not {version!r}")
        if self.probability is not None:
            probability = float(self.probability)
            if not (math.isfinite(probability) and 0.0 <= probability <= 1.0):
                raise ValueError(f"a probability lies between 0 and 1, not {self.probability!r}")
            object.__setattr__(self, "probability", probability)
        if self.source not in SOURCES:
            raise ValueError(f"a coded text comes from {' or '.join(SOURCES)}, not {self.source!r}")
        parse_time(self.at)

    @property
    def skipped(self) -> bool:
        return self.category is None and self.labels is None

    @property
    def several(self) -> bool:
        """Whether this is a coding of a text that can have several categories (``labels``)."""
        return self.labels is not None

    @property
    def coded_as(self) -> tuple[str, ...]:
        """The categories this coding gives the text: its ``labels``, or its one category (() for a skip)."""
        if self.labels is not None:
            return self.labels
        return () if self.category is None else (self.category,)

    @property
    def changed(self) -> bool:
        """Whether this coding replaced another category (the file's or an earlier coding's)."""
        return self.category is not None and self.previous is not None and self.previous != self.category

    @property
    def time(self) -> datetime:
        return parse_time(self.at)


class UnreadableCodings(UserError):
    """A coding log (or a codebook) in a file that cannot be what TextLab wrote."""

    def __init__(self, reason: str, what: str = "codings") -> None:
        super().__init__(f"The {what} cannot be read: {reason}.",
                         "The file may be damaged or was changed outside TextLab. Open an earlier copy, "
                         "or a recovered autosave.")
        self.reason = reason


def check_version(data: dict, kind: str, known: int, what: str) -> None:
    """Refuse data of another kind, or of a version newer than ``known`` (this TextLab's)."""
    if data.get("format", kind) != kind:
        raise UnreadableCodings(f"the file holds something other than TextLab's {what} "
                                f"(format {str(data.get('format'))[:40]!r})", what)
    version = data.get("version", known)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise UnreadableCodings(f"the version ({str(version)[:40]!r}) is not one TextLab writes", what)
    if version > known:
        raise UserError(f"A newer TextLab saved the {what} (version {version}); this TextLab reads versions "
                        f"up to {known}.", "Update TextLab to open the file. The file was not changed.")


def coding_from_dict(entry: object, number: int) -> Coding:
    """The coding in ``entry``, the ``number``-th of a log read from a file."""
    if not isinstance(entry, dict):
        raise UnreadableCodings(f"entry {number} is not a coding")

    def problem(what: str) -> UnreadableCodings:
        return UnreadableCodings(f"entry {number} {what}")

    row = entry.get("row")
    if isinstance(row, float) and row.is_integer():
        row = int(row)
    if isinstance(row, bool) or not isinstance(row, int | str):
        raise problem("names no row of the table")
    category = _label(entry.get("category"), problem, "category")
    previous = _label(entry.get("previous"), problem, "previous category")
    texts = {}
    for key, default in (("coder", ""), ("chosen_by", "in order"), ("flag", ""), ("comment", ""), ("source", "table")):
        value = entry.get(key, default)
        if value is None:
            value = default
        if not isinstance(value, str):
            raise problem(f"has a {key.replace('_', ' ')} that is not a text")
        texts[key] = value
    if texts["source"] not in SOURCES:
        raise problem(f"comes from {texts['source'][:40]!r}, not from {' or '.join(SOURCES)}")
    at = entry.get("at")
    if not isinstance(at, str) or not reads_as(parse_time, at):
        raise problem(f"has no time it was made ({str(at)[:40]!r})")
    probability = entry.get("probability")
    if probability is not None:
        if (isinstance(probability, bool) or not isinstance(probability, int | float)
                or not (math.isfinite(probability) and 0 <= probability <= 1)):
            raise problem(f"has a probability of being chosen that is not between 0 and 1 ({str(probability)[:40]!r})")
        probability = float(probability)
    version = entry.get("codebook_version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int) or version < 1):
        raise problem(f"names a codebook version that is not a whole number from 1 ({str(version)[:40]!r})")
    labels = entry.get("labels")
    if labels is not None:
        if not isinstance(labels, list):
            raise problem("has categories that are not a list")
        labels = tuple(_label(label, problem, "category") for label in labels)
        if any(label is None for label in labels):
            raise problem("has an empty category among its categories")
    return Coding(row, category, texts["coder"], at, texts["chosen_by"], probability, texts["flag"],
                  texts["comment"], previous, texts["source"], version, labels)


def _label(value: object, problem, what: str) -> str | None:
    """A category as the log keeps it: a text (a number is taken as the label it stands for)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return category_label(value)
    raise problem(f"has a {what} that is not a text")
