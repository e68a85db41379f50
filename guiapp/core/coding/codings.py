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

**A coding team** (``team``, two or more named coders, ``team.py``): each coder's codings are
entries told apart by their ``coder``, and a coder's coding of a text changes only their own
earlier one. :meth:`CodingLog.of_coder` is one coder's own record (what they see and undo on the
Coding step), and the study's coding — every question asked without ``coder`` — is the team's
resolved coding (adjudicated, agreed, from one coder, else the team's rule), given as the entry of
the first coder who coded the text with that category. The log also keeps the codebook's versions
(``history``, ``codebook_versions.py``); every coding made while it has them records the version.

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

from guiapp.core.coding.codebook_versions import CodebookHistory
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
from guiapp.core.coding.team import Team, coding_key, latest_by_coder, resolve
from guiapp.core.errors import DataError
from guiapp.core.study.label_sets import LIST_SEPARATOR, NO_CATEGORY, read_label_sets
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

    def __init__(self, codings: Iterable[Coding] = (), *, team: Team | None = None,
                 history: CodebookHistory | None = None) -> None:
        self._entries: list[Coding] = list(codings)
        self.team = team  # the coding team, when the project has one
        self.history = history  # the codebook's versions, once the codebook has been versioned

    @property
    def team_mode(self) -> bool:
        """Whether two or more named coders code, so that the study's coding is their resolved one."""
        return self.team is not None and self.team.is_team

    def copy(self) -> CodingLog:
        """A copy that later codings, decisions and versions do not change (for a job in the background)."""
        import copy

        return CodingLog(self.entries, team=self.team.copy() if self.team is not None else None,
                         history=copy.deepcopy(self.history))

    def of_coder(self, coder: str) -> CodingLog:
        """``coder``'s own record: a view of this log that holds only their entries, and adds and
        undoes in this log."""
        return CoderLog(self, coder)

    # ------------------------------------------------------------------ adding and undoing
    def add(self, coding: Coding) -> None:
        self._entries.append(coding)

    def record(self, row: Row, category: str | None, *, coder: str, chosen_by: str,
               probability: float | None = None, flag: str = "", comment: str = "",
               file_category: str | None = None, source: str = "table", at: str | None = None,
               labels: Iterable[str] | None = None, codebook_version: int | None = None) -> Coding:
        """Add a coding made now and return it. A coding of a text coded before in TextLab (a
        recoding) links to it: ``previous`` is the category the earlier coding gave, the same one
        too, while the earlier record (its time, how it was chosen, its probability) stays as it
        was (:meth:`first_entries`). A first coding's ``previous`` is ``file_category``, the one the
        file gives the row, when it changes it. A second coder's coding (``chosen_by="second
        coder"``) is compared with the second coder's own earlier coding of the row only, never
        with the first coding or the file's."""
        second = chosen_by == SECOND_CODER
        own = coder if self.team_mode and not second else None
        before = self.latest(source, second_coder=second, coder=own).get(row_label(row))
        if before is not None:
            previous = before.category if category is not None else None
        else:
            had = None if second or own is not None else file_category
            previous = had if category is not None and had is not None and had != category else None
        if codebook_version is None and self.history is not None:
            codebook_version = self.history.current.number
        coding = Coding(row, category, coder, at or now(), chosen_by, probability, flag, comment, previous, source,
                        codebook_version, tuple(labels) if labels is not None else None)
        self.add(coding)
        return coding

    def flag(self, row: Row, flag: str, comment: str = "", *, coder: str, source: str = "table",
             at: str | None = None, second_coder: bool = False) -> Coding:
        """Flag the row's latest entry (its coding, or its skip; the second coder's with
        ``second_coder``) with ``flag`` and ``comment``: a copy of that entry with a new time is
        added. ValueError when the row has no entry yet."""
        entry = self.entry_of(row, source, second_coder=second_coder,
                              coder=coder if self.team_mode and not second_coder else None)
        if entry is None:
            raise ValueError(f"row {row!r} has not been coded or skipped, so it cannot be flagged")
        coding = replace(entry, flag=flag, comment=comment, coder=coder, at=at or now())
        self.add(coding)
        return coding

    def undo(self, second_coder: bool = False, *, coder: str | None = None) -> Coding | None:
        """Remove the last entry of the first coding (of the second coder's record with
        ``second_coder``; of ``coder``'s own when named) and return it; None when that record is
        empty. The other records' entries stay, even those made later."""
        for index in range(len(self._entries) - 1, -1, -1):
            entry = self._entries[index]
            if _is_second_coder(entry) == second_coder and (coder is None or entry.coder == coder):
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
        return (isinstance(other, CodingLog) and self._entries == other._entries and self.team == other.team
                and _history_dict(self.history) == _history_dict(other.history))

    __hash__ = None  # type: ignore[assignment]  # a log changes

    def __repr__(self) -> str:
        return f"CodingLog({len(self._entries)} entries)"

    @property
    def entries(self) -> tuple[Coding, ...]:
        """Every entry, of both records, in the order made."""
        return tuple(self._entries)

    def entries_of(self, *, second_coder: bool = False, coder: str | None = None) -> list[Coding]:
        """The entries of the first coding (of the second coder's record with ``second_coder``; of
        ``coder`` alone when named), in the order made."""
        return [entry for entry in self._entries
                if _is_second_coder(entry) == second_coder and (coder is None or entry.coder == coder)]

    def _last_entries(self, source: str, second_coder: bool = False, coder: str | None = None) -> dict[Row, Coding]:
        if self.team_mode and not second_coder and coder is None:
            return self._study_entries(source, skips=True)
        return {entry.row: entry for entry in self.entries_of(second_coder=second_coder, coder=coder)
                if entry.source == source}

    def entry_of(self, row: Row, source: str = "table", *, second_coder: bool = False,
                 coder: str | None = None) -> Coding | None:
        """The latest entry of ``row``, a skip included."""
        row = row_label(row)
        if self.team_mode and not second_coder and coder is None:
            return self._study_entries(source, skips=True).get(row)
        return next((e for e in reversed(self._entries)
                     if e.row == row and e.source == source and _is_second_coder(e) == second_coder
                     and (coder is None or e.coder == coder)), None)

    def study_codings(self, source: str = "table"):  # noqa: ANN201 — a StudyCodings
        """The team's resolved coding of each text of ``source`` and the rule that gave it
        (``adjudication.py``); a log without a team resolves as one coder."""
        return resolve(self._entries, self.team or Team(), source)

    def _study_entries(self, source: str, *, skips: bool = False) -> dict[Row, Coding]:
        """The study's coding of a team as entries: per text the entry of the first coder (in the
        team's order) who gave the resolved category, or with that category put in when it was
        adjudicated; ``skips``: texts every coder skipped (and no one settled) as their last skip."""
        team = self.team
        assert team is not None
        by_row = latest_by_coder(self._entries, source)
        resolved = {text.row: text for text in resolve(self._entries, team, source).texts}
        order = {coder: place for place, coder in enumerate(team.coders)}
        found: dict[Row, Coding] = {}
        for row, by_coder in by_row.items():
            entries = sorted(by_coder.values(), key=lambda e: order.get(e.coder, len(order)))
            text = resolved.get(row)
            if text is None or text.category is None:
                if skips and all(entry.skipped for entry in entries):
                    found[row] = max(entries, key=lambda e: e.time)
                continue
            same = next((e for e in entries if not e.skipped and coding_key(e) == text.category), None)
            base = same or next(e for e in entries if not e.skipped)
            found[row] = base if same is not None else replace(base, category=text.category, labels=None)
        for row, text in resolved.items():
            if row not in found and text.category is not None:  # adjudicated, coded by no one here
                adjudication = team.adjudications_of(source)[row]
                found[row] = Coding(row, text.category, adjudication.adjudicator, now(), "review", None,
                                    comment=adjudication.comment, source=source)
        return found

    def first_entries(self, source: str = "table", *, second_coder: bool = False) -> dict[Row, Coding]:
        """The first entry of each row of ``source`` (a skip included): the record of how the text
        was chosen — its time, the way and the probability it was drawn with — which a later
        coding of the same text never replaces."""
        first: dict[Row, Coding] = {}
        for entry in self.entries_of(second_coder=second_coder):
            if entry.source == source and entry.row not in first:
                first[entry.row] = entry
        return first

    def latest(self, source: str = "table", *, second_coder: bool = False, coder: str | None = None) -> dict[Row, Coding]:
        """The latest coding (skips left out) of each row of ``source``: the study's (a team's
        resolved one), the second coder's with ``second_coder``, or ``coder``'s own."""
        if self.team_mode and not second_coder and coder is None:
            return {row: entry for row, entry in self._study_entries(source).items() if not entry.skipped}
        return {e.row: e for e in self.entries_of(second_coder=second_coder, coder=coder)
                if not e.skipped and e.source == source}

    def second_coder(self, source: str = "table") -> dict[Row, Coding]:
        """The second coder's latest coding (skips left out) of each row of ``source``."""
        return self.latest(source, second_coder=True)

    def categories_by_row(self, source: str = "table", *, second_coder: bool = False,
                          coder: str | None = None) -> dict[Row, str]:
        """Row → the category its latest coding gave it (codings of several categories left out:
        :meth:`label_sets_by_row` has those)."""
        return {row: coding.category  # type: ignore[misc]
                for row, coding in self.latest(source, second_coder=second_coder, coder=coder).items()
                if coding.labels is None}

    def label_sets_by_row(self, source: str = "table", *, coder: str | None = None) -> dict[Row, tuple[str, ...]]:
        """Row → the categories its latest coding gave it, where a text can have several."""
        return {row: coding.labels for row, coding in self.latest(source, coder=coder).items()
                if coding.labels is not None}

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
        found = Counter(category for name in sources
                        for coding in self.latest(name, second_coder=second_coder).values()
                        for category in coding.coded_as)
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
        """The log as JSON-safe data (rows stay whole numbers or texts). Written as version 1, which
        every TextLab reads, unless it holds a team, codebook versions or codings of several
        categories."""
        entries = [_entry_dict(entry) for entry in self._entries]
        newer = (self.team is not None or self.history is not None
                 or any("labels" in entry or "codebook_version" in entry for entry in entries))
        data: dict[str, Any] = {"format": FORMAT, "version": VERSION if newer else 1, "codings": entries}
        if self.team is not None:
            data["team"] = self.team.to_dict()
        if self.history is not None:
            data["codebook_history"] = self.history.to_dict()
        return data

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
        team = data.get("team")
        history = data.get("codebook_history")
        return cls((coding_from_dict(entry, number) for number, entry in enumerate(entries, start=1)),
                   team=Team.from_dict(team) if team is not None else None,
                   history=CodebookHistory.from_dict(history) if history is not None else None)


class CoderLog(CodingLog):
    """One coder's own record inside a log (:meth:`CodingLog.of_coder`): it holds only their entries
    (a second coder's record apart), as a log of one coder would, and adds to and undoes in the log."""

    def __init__(self, log: CodingLog, coder: str) -> None:
        self._log, self.coder = log, coder
        self.team, self.history = None, log.history

    @property  # type: ignore[override]
    def _entries(self) -> list[Coding]:  # type: ignore[override]
        return [entry for entry in self._log._entries if entry.coder == self.coder]

    def add(self, coding: Coding) -> None:
        self._log.add(coding)

    def record(self, row: Row, category: str | None, **kwargs: Any) -> Coding:
        kwargs.setdefault("codebook_version", self._log.history.current.number if self._log.history else None)
        coding = super().record(row, category, **kwargs)
        return coding

    def undo(self, second_coder: bool = False, *, coder: str | None = None) -> Coding | None:
        return self._log.undo(second_coder, coder=self.coder)

    def __repr__(self) -> str:
        return f"CoderLog({self.coder!r}, {len(self._entries)} entries)"


def _entry_dict(entry: Coding) -> dict[str, Any]:
    data = asdict(entry)
    for key in ("codebook_version", "labels"):
        if data[key] is None:
            del data[key]
    if "labels" in data:
        data["labels"] = list(data["labels"])
    return data


def _history_dict(history: CodebookHistory | None) -> dict | None:
    return history.to_dict() if history is not None else None


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
    :class:`DataError` when the log names rows the table does not have. Where a text can have
    several categories: :func:`with_label_sets`."""
    import pandas as pd
    if mapping.multi_label:
        return with_label_sets(frame, mapping, log)
    coded = log.categories_by_row("table")
    _check_rows(frame, coded)
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
    """Coded texts per category in the table with the log's codings applied, most frequent first.
    Where a text can have several categories each text counts once for each of its categories, and
    texts coded with none of them count under ``NO_CATEGORY``."""
    import pandas as pd
    if mapping.multi_label:
        return label_set_counts(frame, mapping, log)
    column = category_column(frame, mapping)
    labels = category_labels(frame[column]) if column in frame.columns else pd.Series(None, index=frame.index,
                                                                                        dtype=object)
    merged: dict[Any, str | None] = dict(zip(frame.index, labels.tolist(), strict=True))
    merged.update({row: category for row, category in log.categories_by_row("table").items() if row in merged})
    return dict(Counter(label for label in merged.values() if label is not None).most_common())


def file_categories(frame: pd.DataFrame, mapping: ColumnMapping) -> Mapping[Row, str]:
    """Row → the category the file gives it (uncoded rows left out): what a coding changes. Where a
    text can have several categories, its categories as one text ("economy; health", or
    ``NO_CATEGORY``), so that the texts the file codes are never offered to code again."""
    if mapping.multi_label:
        return {row: LIST_SEPARATOR.join(labels) if labels else NO_CATEGORY
                for row, labels in file_label_sets(frame, mapping).items()}
    if mapping.category_column is None or mapping.category_column not in frame.columns:
        return {}
    labels = category_labels(frame[mapping.category_column])
    return {row_label(row): label for row, label in zip(frame.index, labels.tolist(), strict=True)
            if label is not None}


# ---------------------------------------------------------------------- several categories per text


def _check_rows(frame: pd.DataFrame, coded: Iterable[Row]) -> None:
    """:class:`DataError` when codings name rows the table does not have."""
    missing = [row for row in coded if row not in frame.index]
    if missing:
        shown = ", ".join(map(str, missing[:5])) + (" …" if len(missing) > 5 else "")
        raise DataError(f"{len(missing):,} coded text{'s are' if len(missing) != 1 else ' is'} not in the table "
                        f"(rows {shown}).",
                        "The table has changed since these texts were coded. Open the project that holds "
                        "the table they were coded in.")


def label_set_mapping(frame: pd.DataFrame, mapping: ColumnMapping, log: CodingLog) -> ColumnMapping:
    """The column roles of a study with several categories per text once texts were coded here: an
    indicator column added for each new coded category, or a new listing column when none is chosen
    (:func:`category_column`); ``mapping`` as it is when nothing needs adding."""
    sets = coded_sets(log)
    if not mapping.multi_label or not sets:
        return mapping
    if mapping.category_columns:
        new = _new_columns(mapping.category_columns, sets)
        return replace(mapping, category_columns=[*mapping.category_columns, *new]) if new else mapping
    if mapping.category_column is None:
        return replace(mapping, category_column=category_column(frame, mapping))
    return mapping


def label_cell(labels: Iterable[str], separator: str) -> str:
    """A coded set as a listing cell: "economy; health" with the study's separator; the separator
    alone for a text with none of them (read back as coded with none)."""
    names = list(labels)
    if not names:
        return separator.strip() or separator
    joiner = separator + " " if separator == separator.strip() else separator
    for name in names:
        if separator.strip() and separator.strip() in name:
            raise DataError(f"The category “{name}” contains the separator “{separator.strip()}” that divides a "
                            "text's categories in the category column, so it cannot be written there.",
                            "Rename the category on the Codebook tab, or choose another separator on the Data step.")
    return joiner.join(names)


def with_label_sets(frame: pd.DataFrame, mapping: ColumnMapping, log: CodingLog) -> pd.DataFrame:
    """A copy of ``frame`` with the log's coded sets (:func:`coded_sets`) as the study holds them: 1/0
    in each indicator column (one added for a new category), or the joined list in the listing column
    (:func:`label_cell`; a new one when none is chosen). ``frame`` is not changed."""
    import pandas as pd
    sets = coded_sets(log)
    _check_rows(frame, sets)
    out = frame.copy()
    copy_row_origin(frame, out)
    if not sets:
        return out
    rows = list(sets)
    if mapping.category_columns:
        for column in [*mapping.category_columns, *_new_columns(mapping.category_columns, sets)]:
            values = out[column] if column in out.columns else pd.Series(None, index=out.index, dtype=object)
            new = [1 if str(column) in sets[row] else 0 for row in rows]
            if not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
                values = values.astype(object)
            values = values.copy()
            values.loc[rows] = new
            out[column] = values
        return out
    column = category_column(frame, mapping)
    values = out[column] if column in out.columns else pd.Series(None, index=out.index, dtype=object)
    if not isinstance(values.dtype, pd.StringDtype):
        values = values.astype(object)
    values = values.copy()
    values.loc[rows] = [label_cell(sets[row], mapping.label_separator) for row in rows]
    out[column] = values
    return out


def _new_columns(columns: Iterable[object], sets: Mapping[Row, tuple[str, ...]]) -> list[str]:
    """The coded categories no indicator column is named for, in the order first coded."""
    have = {str(column) for column in columns}
    return [label for label in dict.fromkeys(label for labels in sets.values() for label in labels) if label not in have]


def file_label_sets(frame: pd.DataFrame, mapping: ColumnMapping) -> dict[Row, tuple[str, ...]]:
    """Row → the categories the file gives it, where a text can have several (uncoded rows left
    out; () for a text the file codes with none of them). Empty when no category column is chosen."""
    wanted = mapping.category_columns or ([mapping.category_column] if mapping.category_column is not None else [])
    if not wanted or any(column not in frame.columns for column in wanted):
        return {}
    sets = read_label_sets(frame, mapping)
    return {row_label(row): labels for row, labels in zip(frame.index, sets.tuples(), strict=True)
            if labels is not None}


def label_set_counts(frame: pd.DataFrame, mapping: ColumnMapping, log: CodingLog) -> dict[str, int]:
    """Coded texts per category where a text can have several (the file's with the log's applied),
    most frequent first; texts coded with none of them under ``NO_CATEGORY``."""
    merged: dict[Row, tuple[str, ...]] = dict(file_label_sets(frame, mapping))
    merged.update({row: labels for row, labels in coded_sets(log).items() if row in frame.index})
    found = Counter(label for labels in merged.values() for label in (labels or (NO_CATEGORY,)))
    return dict(found.most_common())


def coded_sets(log: CodingLog, source: str = "table") -> dict[Row, tuple[str, ...]]:
    """Row → the set its latest coding (a team's resolved one: joined by "; ", or ``NO_CATEGORY``)
    gives it; a coding of one category counts as the set of that category."""
    found: dict[Row, tuple[str, ...]] = {}
    for row, coding in log.latest(source).items():
        if coding.labels is not None:
            found[row] = tuple(coding.labels)
        elif coding.category == NO_CATEGORY:
            found[row] = ()
        elif coding.category is not None:
            found[row] = tuple(part.strip() for part in coding.category.split("; ") if part.strip()) \
                if log.team_mode else (coding.category,)
    return found
