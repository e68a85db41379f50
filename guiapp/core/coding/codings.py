"""The record of every coding a researcher makes in TextLab: which text, which category, who, when,
how the text was chosen and with what probability, flags and comments.

The :class:`CodingLog` only grows (undo removes the last entry): the latest coding of a text wins,
a skip codes nothing, and a coding that changes a category — the file's or an earlier one — keeps
the category it replaced (``previous``). A text is named by its *row*, the table's index label
(``core/tables/rows.py`` turns it into the row Excel shows). The log is written to a project as
JSON (:meth:`CodingLog.to_dict`) and read back from an untrusted file (:meth:`CodingLog.from_dict`,
each entry as ``coding_record.py`` reads one).

A second coder's codings (entries chosen by ``"second coder"``) are a record apart, kept in the same
log: they never count as the study's coding. Every question asked of the log — the latest coding of
a row, the skips, flags, changes, counts, codings per hour — is about the first coding (the study's)
unless ``second_coder=True`` asks about the second coder's record instead; a second coder's coding
that changes a category changes the second coder's own earlier one, and Undo takes back the last
entry of one record, leaving the other as it is. :meth:`CodingLog.second_coder` gives the second
coder's codings. The whole log (``len``, ``entries``, ``to_dict``) holds both.

:func:`with_codings` gives the table a study runs on: a copy whose category column holds the file's
codings with the log's applied; the file itself is never changed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from guiapp.core.coding.coding_record import (  # the record of one coding, kept here for those who use the log
    CHOSEN_BY,
    FORMAT,
    SECOND_CODER,
    SOURCES,
    VERSION,
    Coding,
    Row,
    UnreadableCodings,
    check_version,
    coding_from_dict,
    now,
    parse_time,
    row_label,
)
from guiapp.core.errors import DataError
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.cell_values import category_label, category_labels
from guiapp.core.tables.rows import copy_row_origin

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

__all__ = ["CHOSEN_BY", "FORMAT", "NEW_CATEGORY_COLUMN", "PAUSE", "SECOND_CODER", "SOURCES", "VERSION", "Coding",
           "CodingLog", "Row", "UnreadableCodings", "category_cell", "category_column", "coded_counts", "file_categories", "now",
           "parse_time", "row_label", "with_codings"]

PAUSE = timedelta(minutes=30)  # a longer gap between two codings is a break, not time spent coding
NEW_CATEGORY_COLUMN = "category"  # the column that holds the codings when the table has none


class CodingLog:
    """Every coding in the order it was made; the latest coding of a row wins."""

    def __init__(self, codings: Iterable[Coding] = ()) -> None:
        self._entries: list[Coding] = list(codings)

    # ------------------------------------------------------------------ adding and undoing
    def add(self, coding: Coding) -> None:
        self._entries.append(coding)

    def record(self, row: Row, category: str | None, *, coder: str, chosen_by: str,
               probability: float | None = None, flag: str = "", comment: str = "",
               file_category: str | None = None, source: str = "table", at: str | None = None) -> Coding:
        """Add a coding made now and return it. A coding of a text coded before in TextLab (a
        recoding) links to it: ``previous`` is the category the earlier coding gave, the same one
        too, while the earlier record (its time, how it was chosen, its probability) stays as it
        was (:meth:`first_entries`). A first coding's ``previous`` is ``file_category``, the one the
        file gives the row, when it changes it. A second coder's coding (``chosen_by="second
        coder"``) is compared with the second coder's own earlier coding of the row only, never
        with the first coding or the file's."""
        second = chosen_by == SECOND_CODER
        before = self.latest(source, second_coder=second).get(row_label(row))
        if before is not None:
            previous = before.category if category is not None else None
        else:
            had = None if second else file_category
            previous = had if category is not None and had is not None and had != category else None
        coding = Coding(row, category, coder, at or now(), chosen_by, probability, flag, comment, previous, source)
        self.add(coding)
        return coding

    def flag(self, row: Row, flag: str, comment: str = "", *, coder: str, source: str = "table",
             at: str | None = None, second_coder: bool = False) -> Coding:
        """Flag the row's latest entry (its coding, or its skip; the second coder's with
        ``second_coder``) with ``flag`` and ``comment``: a copy of that entry with a new time is
        added. ValueError when the row has no entry yet."""
        entry = self.entry_of(row, source, second_coder=second_coder)
        if entry is None:
            raise ValueError(f"row {row!r} has not been coded or skipped, so it cannot be flagged")
        coding = replace(entry, flag=flag, comment=comment, coder=coder, at=at or now())
        self.add(coding)
        return coding

    def undo(self, second_coder: bool = False) -> Coding | None:
        """Remove the last entry of the first coding (of the second coder's record with
        ``second_coder``) and return it; None when that record is empty. The other record's
        entries stay, even those made later."""
        for index in range(len(self._entries) - 1, -1, -1):
            if _is_second_coder(self._entries[index]) == second_coder:
                return self._entries.pop(index)
        return None

    # ------------------------------------------------------------------ reading
    # Rows of the table and rows of a second file are numbered apart: every question about rows
    # is asked of one source, the table's unless named.
    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Coding]:
        return iter(self._entries)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CodingLog) and self._entries == other._entries

    __hash__ = None  # type: ignore[assignment]  # a log changes

    def __repr__(self) -> str:
        return f"CodingLog({len(self._entries)} entries)"

    @property
    def entries(self) -> tuple[Coding, ...]:
        """Every entry, of both records, in the order made."""
        return tuple(self._entries)

    def entries_of(self, *, second_coder: bool = False) -> list[Coding]:
        """The entries of the first coding (of the second coder's record with ``second_coder``),
        in the order made."""
        return [entry for entry in self._entries if _is_second_coder(entry) == second_coder]

    def _last_entries(self, source: str, second_coder: bool = False) -> dict[Row, Coding]:
        return {entry.row: entry for entry in self.entries_of(second_coder=second_coder) if entry.source == source}

    def entry_of(self, row: Row, source: str = "table", *, second_coder: bool = False) -> Coding | None:
        """The latest entry of ``row``, a skip included."""
        row = row_label(row)
        return next((e for e in reversed(self._entries)
                     if e.row == row and e.source == source and _is_second_coder(e) == second_coder), None)

    def first_entries(self, source: str = "table", *, second_coder: bool = False) -> dict[Row, Coding]:
        """The first entry of each row of ``source`` (a skip included): the record of how the text
        was chosen — its time, the way and the probability it was drawn with — which a later
        coding of the same text never replaces."""
        first: dict[Row, Coding] = {}
        for entry in self.entries_of(second_coder=second_coder):
            if entry.source == source and entry.row not in first:
                first[entry.row] = entry
        return first

    def latest(self, source: str = "table", *, second_coder: bool = False) -> dict[Row, Coding]:
        """The latest coding (skips left out) of each row of ``source``."""
        return {e.row: e for e in self.entries_of(second_coder=second_coder)
                if e.category is not None and e.source == source}

    def second_coder(self, source: str = "table") -> dict[Row, Coding]:
        """The second coder's latest coding (skips left out) of each row of ``source``."""
        return self.latest(source, second_coder=True)

    def categories_by_row(self, source: str = "table", *, second_coder: bool = False) -> dict[Row, str]:
        """Row → the category its latest coding gave it."""
        return {row: coding.category  # type: ignore[misc]
                for row, coding in self.latest(source, second_coder=second_coder).items()}

    def skipped(self, source: str = "table", *, second_coder: bool = False) -> list[Row]:
        """Rows skipped and not coded since, in the order they were first met."""
        coded = self.latest(source, second_coder=second_coder)
        return [row for row, entry in self._last_entries(source, second_coder).items()
                if entry.skipped and row not in coded]

    def flagged(self, source: str = "table", *, second_coder: bool = False) -> dict[Row, Coding]:
        """Rows whose latest entry (a skip included) carries a flag or a comment, with that entry."""
        return {row: entry for row, entry in self._last_entries(source, second_coder).items()
                if entry.flag or entry.comment}

    def changed(self, source: str = "table", *, second_coder: bool = False) -> dict[Row, Coding]:
        """Rows whose latest coding changed a category the row had (the file's or an earlier one)."""
        return {row: coding for row, coding in self.latest(source, second_coder=second_coder).items()
                if coding.changed}

    def counts(self, source: str | None = None, *, second_coder: bool = False) -> dict[str, int]:
        """Coded texts per category (the latest coding of each text, of one source or of both),
        most frequent first."""
        sources = SOURCES if source is None else (source,)
        found = Counter(coding.category for name in sources
                        for coding in self.latest(name, second_coder=second_coder).values())
        return dict(found.most_common())

    def coders(self) -> list[str]:
        return list(dict.fromkeys(entry.coder for entry in self._entries))

    def per_hour(self, coder: str | None = None, pause: timedelta = PAUSE, *,
                 second_coder: bool = False) -> float | None:
        """Codings per hour of coding: each coding counts with the time since the entry before it;
        a gap longer than ``pause`` is a break and counts neither. A new flag on a coding, or the
        same category given again, is no new coding. None until there is time to measure."""
        entries = sorted((e for e in self.entries_of(second_coder=second_coder) if coder is None or e.coder == coder),
                         key=lambda e: e.time)
        seconds, codings = 0.0, 0
        before: datetime | None = None
        last_of_text: dict[tuple[str, Row], Coding] = {}
        for entry in entries:
            moment, earlier = entry.time, last_of_text.get((entry.source, entry.row))
            if before is not None and moment - before <= pause:
                seconds += (moment - before).total_seconds()
                if entry.category is not None and (earlier is None or earlier.category != entry.category):
                    codings += 1
            before, last_of_text[(entry.source, entry.row)] = moment, entry
        return codings * 3600.0 / seconds if seconds > 0 else None

    # ------------------------------------------------------------------ keeping
    def to_dict(self) -> dict[str, Any]:
        """The log as JSON-safe data (rows stay whole numbers or texts)."""
        return {"format": FORMAT, "version": VERSION, "codings": [asdict(entry) for entry in self._entries]}

    @classmethod
    def from_dict(cls, data: object) -> CodingLog:
        """The log in ``data`` (read from an untrusted file); :class:`UnreadableCodings` says what
        is wrong with it."""
        if not isinstance(data, dict):
            raise UnreadableCodings("they are not a list of codings")
        check_version(data, FORMAT, VERSION, "codings")
        entries = data.get("codings", [])
        if not isinstance(entries, list):
            raise UnreadableCodings("they are not a list of codings")
        return cls(coding_from_dict(entry, number) for number, entry in enumerate(entries, start=1))


def _is_second_coder(entry: Coding) -> bool:
    return entry.chosen_by == SECOND_CODER


# ---------------------------------------------------------------------- the table with the codings


def category_column(frame: pd.DataFrame, mapping: ColumnMapping) -> str:
    """The column that holds the codings: the mapped category column, else a new one
    (``category``, numbered when the table has a column of that name)."""
    if mapping.category_column is not None:
        return mapping.category_column
    taken, name, number = {str(column) for column in frame.columns}, NEW_CATEGORY_COLUMN, 2
    while name in taken:
        name, number = f"{NEW_CATEGORY_COLUMN} {number}", number + 1
    return name


def with_codings(frame: pd.DataFrame, mapping: ColumnMapping, log: CodingLog) -> pd.DataFrame:
    """A copy of ``frame`` whose category column holds the file's codings with the log's codings of
    the table applied (new categories allowed; a table without a category column gets one, see
    :func:`category_column`). ``frame`` is not changed; the record of its spreadsheet rows is kept.
    Codings of texts from a second file are not rows of this table and are left out here.
    :class:`DataError` when the log names rows the table does not have."""
    import pandas as pd
    coded = log.categories_by_row("table")
    missing = [row for row in coded if row not in frame.index]
    if missing:
        shown = ", ".join(map(str, missing[:5])) + (" …" if len(missing) > 5 else "")
        raise DataError(f"{len(missing):,} coded text{'s are' if len(missing) != 1 else ' is'} not in the table "
                        f"(rows {shown}).",
                        "The table has changed since these texts were coded. Open the project that holds "
                        "the table they were coded in.")
    column = category_column(frame, mapping)
    out = frame.copy()
    copy_row_origin(frame, out)
    values = out[column] if column in out.columns else pd.Series(None, index=out.index, dtype=object)
    if coded:
        rows = list(coded)
        new = [category_cell(category, values.dtype) for category in coded.values()]
        texts = all(isinstance(value, str) for value in new)
        if texts and isinstance(values.dtype, pd.StringDtype):
            pass  # a column of texts takes more texts as it is
        elif any(isinstance(value, str) for value in new) or not pd.api.types.is_numeric_dtype(values.dtype):
            values = values.astype(object)
        elif pd.api.types.is_integer_dtype(values.dtype) and any(isinstance(v, float) for v in new):
            values = values.astype(np.float64)
        values = values.copy()
        values.loc[rows] = new
    out[column] = values
    return out


def category_cell(category: str, dtype: object) -> object:
    """The category as the column's cell: a number in a column of numbers when it stands for one
    (so ``1`` stays the number 1), else the text."""
    import pandas as pd
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        return category
    try:
        number = float(category)
    except ValueError:
        return category
    if not math.isfinite(number) or category_label(number) != category:
        return category
    return int(number) if number.is_integer() else number


def coded_counts(frame: pd.DataFrame, mapping: ColumnMapping, log: CodingLog) -> dict[str, int]:
    """Coded texts per category in the table with the log's codings applied, most frequent first."""
    import pandas as pd
    column = category_column(frame, mapping)
    labels = category_labels(frame[column]) if column in frame.columns else pd.Series(None, index=frame.index,
                                                                                        dtype=object)
    merged: dict[Any, str | None] = dict(zip(frame.index, labels.tolist(), strict=True))
    merged.update({row: category for row, category in log.categories_by_row("table").items() if row in merged})
    return dict(Counter(label for label in merged.values() if label is not None).most_common())


def file_categories(frame: pd.DataFrame, mapping: ColumnMapping) -> Mapping[Row, str]:
    """Row → the category the file gives it (uncoded rows left out): what a coding changes."""
    if mapping.category_column is None or mapping.category_column not in frame.columns:
        return {}
    labels = category_labels(frame[mapping.category_column])
    return {row_label(row): label for row, label in zip(frame.index, labels.tolist(), strict=True)
            if label is not None}
