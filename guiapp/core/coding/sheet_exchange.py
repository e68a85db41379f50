"""Coding sheets between a project and its coders: which texts a coder's sheet holds, the project's
id written into it, and a filled-in sheet read back into the project's record of codings.

The window ("Export coding sheet…" / "Import coding sheet…") and the command line (``textlab
coding-sheet`` / ``textlab coding-import``) both use this module; the workbook itself is written by
``coding_sheet.py`` and read by ``coding_sheet_reading.py``.

- :func:`sheet_texts_for` — a coder's texts: where the team has a draw, the texts drawn for them
  that they have not coded yet; else the texts of the source that no one has coded (at most
  ``limit``).
- :func:`project_id_of` — the id a sheet carries, so that a sheet is only read back into the project
  it came from. Projects have no id of their own, so it is derived from the texts: a fingerprint
  (SHA-256) of every text of the table (or of the second file of texts, whose sheets get their own
  id). It stays the same across saving and reopening the project; copies of one project share it.
- :func:`read_sheet` reads and checks a sheet (safe in the background, changes nothing);
  :func:`apply_sheet` records its new codings in the log; :func:`import_sheet` does both. Every new
  coding is recorded with the sheet's coder, ``chosen_by`` "coding sheet" (or "assigned", with its
  probability, where the team's draw gave the text to that coder), the coder's comment and the
  codebook's current version. Importing the same sheet twice adds nothing. A coder not yet in the
  team joins it (a team is created where there is none, with the coders who coded before).
- :class:`ImportReport` says in words what came in, what was unchanged and what was refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from guiapp.core.coding.codebook import Codebook
from guiapp.core.coding.coding_record import ASSIGNED, SECOND_CODER, SHEET, SOURCES, Row, row_label
from guiapp.core.coding.coding_sheet import SheetText, key_token, sheet_text
from guiapp.core.coding.coding_sheet_reading import SheetImport, new_codings, read_coding_sheet
from guiapp.core.coding.codings import CodingLog, file_categories
from guiapp.core.coding.team import Team, assigned_probability, check_coder_name, rows_to_code
from guiapp.core.errors import UserError
from guiapp.core.health.checks import plural

if TYPE_CHECKING:  # pandas loads on first use
    import pandas as pd

    from guiapp.core.study.mapping import ColumnMapping

__all__ = ["ImportReport", "SheetTexts", "apply_sheet", "import_sheet", "project_id_of", "read_sheet",
           "sheet_categories", "sheet_texts_for", "source_texts"]

TABLE, SECOND_FILE = SOURCES
_ID_PREFIX = "textlab:"


# ---------------------------------------------------------------------- the texts and the project's id


def source_texts(frame: pd.DataFrame, mapping: ColumnMapping, coding_texts: pd.DataFrame | None = None,
                 source: str = TABLE) -> dict[Row, str]:
    """Row → text of the table (``source`` "table") or of the second file of texts."""
    from guiapp.core.predict.new_texts import texts_of

    check_one_category(mapping)
    if source == SECOND_FILE:
        if coding_texts is None:
            raise UserError("This project has no second file of texts to code.",
                            "Choose the table's rows, or open the file of texts on the Coding step first.")
        frame = coding_texts
    elif source != TABLE:
        raise UserError(f"Texts to code come from {' or '.join(SOURCES)}, not from “{source}”.",
                        "Choose the table or the second file of texts.")
    texts = texts_of(frame, mapping)
    return {row_label(row): str(text) for row, text in zip(frame.index, texts, strict=True)}


def check_one_category(mapping: ColumnMapping) -> None:
    """A coding sheet gives each text one category from a drop-down: :class:`UserError` in words for
    a study where a text can have several."""
    if mapping.multi_label:
        raise UserError("A coding sheet gives each text one category, but in this study a text can have several.",
                        "Let the coder code on TextLab's Coding step, where each category is a check box, or in a "
                        "copy of your spreadsheet with one column per category.")


def project_id_of(texts: Mapping[Row, str], source: str = TABLE) -> str:
    """The id a coding sheet of these texts carries (see the module's docstring)."""
    digest = hashlib.sha256()
    for row, text in texts.items():
        digest.update(key_token(row).encode("utf-8", "surrogatepass") + b"\x00")
        digest.update(sheet_text(text).encode("utf-8", "surrogatepass") + b"\x00")
    kind = "" if source == TABLE else "second-file:"
    return f"{_ID_PREFIX}{kind}{digest.hexdigest()[:32]}"


def sheet_categories(codebook: Codebook, log: CodingLog | None = None,
                     frame: pd.DataFrame | None = None, mapping: ColumnMapping | None = None) -> list[str]:
    """The categories a coder chooses from: the codebook's, else those already used in the table
    and the codings. :class:`UserError` when there are none."""
    names = [str(name) for name in codebook.names()]
    if not names:
        found: dict[str, None] = {}
        if frame is not None and mapping is not None and mapping.category_column:
            found.update(dict.fromkeys(str(value) for value in file_categories(frame, mapping).values()))
        if log is not None:
            found.update(dict.fromkeys(str(name) for name in log.counts()))
        names = sorted(found, key=str.casefold)
    if not names:
        raise UserError("The project has no categories yet, so a coder has nothing to choose from.",
                        "Add the categories to the codebook on the Coding step first.")
    return names


@dataclass(frozen=True)
class SheetTexts:
    """The texts of one coder's sheet, where they come from, and whether they are the team's draw."""

    coder: str
    source: str
    texts: tuple[SheetText, ...]
    project_id: str
    drawn: bool  # True: the texts the team's draw gave the coder

    def sentence(self) -> str:
        where = "the second file" if self.source == SECOND_FILE else "the table"
        which = "drawn for them and not coded by them yet" if self.drawn else "that no one has coded yet"
        return f"{plural(len(self.texts), 'text')} of {where} for {self.coder}, {which}."


def _row_labels(frame: pd.DataFrame) -> dict[Row, str]:
    """Row → the row as the researcher's spreadsheet shows it (its row number)."""
    from guiapp.core.tables.rows import spreadsheet_rows

    try:
        numbers = spreadsheet_rows(frame)
    except Exception:  # noqa: BLE001 — a table without its origin: show the row itself
        return {}
    return {row_label(row): str(int(number)) for row, number in zip(frame.index, numbers, strict=True)}


def sheet_texts_for(log: CodingLog, frame: pd.DataFrame, mapping: ColumnMapping, coder: str,
                    coding_texts: pd.DataFrame | None = None, *, source: str | None = None,
                    limit: int | None = None) -> SheetTexts:
    """The texts ``coder``'s sheet holds (see the module's docstring). ``source``: "table" or
    "second file" (default: the second file where there is one, else the table). :class:`UserError`
    when there are none."""
    coder = check_coder_name(coder)
    source = source or (SECOND_FILE if coding_texts is not None else TABLE)
    texts = source_texts(frame, mapping, coding_texts, source)
    team = log.team
    drawn = team is not None and team.assignment is not None and coder in team.coders
    if drawn:
        rows = [row for row in rows_to_code(log.entries, team, coder, source) if row in texts]
    else:
        coded = {entry.row for entry in log.entries if entry.source == source}
        if source == TABLE and mapping.category_column:
            coded |= {row_label(row) for row in file_categories(frame, mapping)}
        rows = [row for row in texts if row not in coded]
    if limit is not None:
        if limit < 1:
            raise UserError("A coding sheet holds at least one text.", "Ask for 1 text or more.")
        rows = rows[:limit]
    if not rows:
        why = ("every text the team's draw gave them is coded" if drawn else "every text is coded already")
        raise UserError(f"There are no texts left for {coder} to code: {why}.",
                        "Draw more texts for the team, or add texts to code, then export the sheet again.")
    labels = _row_labels(coding_texts if source == SECOND_FILE else frame)
    items = tuple(SheetText(row, texts[row], labels.get(row, "")) for row in rows)
    return SheetTexts(coder, source, items, project_id_of(texts, source), drawn)


def write_sheet_for(path: str | Path, log: CodingLog, frame: pd.DataFrame, mapping: ColumnMapping,
                    codebook: Codebook, coder: str, coding_texts: pd.DataFrame | None = None, *,
                    source: str | None = None, limit: int | None = None, on_event=None) -> tuple[Path, SheetTexts]:  # noqa: ANN001, ARG001
    """Write ``coder``'s coding sheet to ``path``; returns the path and its texts."""
    from guiapp.core.coding.coding_sheet import write_coding_sheet

    chosen = sheet_texts_for(log, frame, mapping, coder, coding_texts, source=source, limit=limit)
    written = write_coding_sheet(path, project_id=chosen.project_id, coder=chosen.coder, texts=chosen.texts,
                                 codebook=codebook, categories=sheet_categories(codebook, log, frame, mapping))
    return written, chosen


# ---------------------------------------------------------------------- reading a sheet back


@dataclass(frozen=True)
class ImportReport:
    """What importing a coding sheet did, in counts and in words."""

    file_name: str
    coder: str
    source: str
    added: int  # new codings recorded
    recoded: int  # of those, texts the coder had coded otherwise before
    unchanged: int  # codings in the sheet the project held already
    not_coded: int  # texts left without a category in the sheet
    deleted: int  # texts deleted from the sheet
    refused: tuple[str, ...]  # each row refused, in words
    coder_joined: bool  # the coder was added to the team
    team_created: bool

    def sentence(self) -> str:
        """The import in one sentence."""
        if self.added:
            head = f"Imported {plural(self.added, 'new coding')} by {self.coder} from {self.file_name}"
        else:
            head = f"Nothing new from {self.file_name}: {self.coder}’s codings were all in the project already"
        return head + "."

    def lines(self) -> list[str]:
        """Every part of the report in words, the problems last with how to fix them."""
        lines = [self.sentence()]
        if self.recoded:
            lines.append(f"{plural(self.recoded, 'text')} {self.coder} had coded otherwise before now "
                         "carry the sheet's coding (the earlier coding stays on record).")
        if self.unchanged and self.added:
            lines.append(f"{plural(self.unchanged, 'coding')} {_were(self.unchanged)} in the project already and "
                         "left as they are.")
        if self.not_coded:
            lines.append(f"{plural(self.not_coded, 'text')} of the sheet had no category yet.")
        if self.deleted:
            lines.append(f"{plural(self.deleted, 'text')} {_were(self.deleted)} deleted from the sheet; they stay to "
                         "be coded.")
        if self.team_created:
            lines.append(f"{self.coder} now codes in a coding team with the project's other coders.")
        elif self.coder_joined:
            lines.append(f"{self.coder} joined the coding team.")
        if self.refused:
            lines.append(f"{plural(len(self.refused), 'row')} could not be imported:")
            lines += [f"  • {problem}" for problem in self.refused]
            lines.append("Fix these rows in the sheet (or ask the coder to) and import it again: the codings "
                         "imported now are not imported twice.")
        return lines


def _were(count: int) -> str:
    return "was" if count == 1 else "were"


def read_sheet(path: str | Path, frame: pd.DataFrame, mapping: ColumnMapping, codebook: Codebook,
               log: CodingLog | None = None, coding_texts: pd.DataFrame | None = None,
               on_event=None) -> tuple[SheetImport, str]:  # noqa: ANN001, ARG001 — a Worker's callback
    """The codings of the sheet at ``path``, checked against the project (its texts and categories),
    and the source of its texts. Changes nothing; :class:`UserError` for a sheet refused whole."""
    check_one_category(mapping)
    categories = sheet_categories(codebook, log, frame, mapping)
    sources = [TABLE, SECOND_FILE] if coding_texts is not None else [TABLE]
    first_error: UserError | None = None
    for source in sources:
        texts = source_texts(frame, mapping, coding_texts, source)
        try:
            return read_coding_sheet(path, project_id=project_id_of(texts, source), texts_by_key=texts,
                                     categories=categories), source
        except UserError as error:
            if not str(error.details).startswith("the sheet's project:"):
                raise
            first_error = first_error or error
    assert first_error is not None
    raise first_error


def _coder_codings(log: CodingLog, coder: str, source: str) -> dict[Row, tuple[str, str]]:
    """Row → (category, comment) of the coder's latest coding of each text (a skip as "")."""
    found: dict[Row, tuple[str, str]] = {}
    for entry in log.entries:
        if entry.coder == coder and entry.source == source and entry.chosen_by != SECOND_CODER:
            found[entry.row] = (entry.category or "", entry.comment or "")
    return found


def _join_team(log: CodingLog, coder: str, first_coder: str = "") -> tuple[bool, bool]:
    """Put ``coder`` in the log's team; (whether they joined, whether the team was created). A team
    made now starts with whoever coded before (else ``first_coder``, the name the Coding step has)."""
    created = log.team is None
    if created:
        team = Team()
        earlier = [entry.coder for entry in log.entries if entry.chosen_by != SECOND_CODER]
        for name in dict.fromkeys(earlier or ([first_coder] if first_coder.strip() else [])):
            try:
                team.add_coder(name)
            except UserError:
                continue  # a coding without a usable coder's name stays out of the team
        log.team = team
    team = log.team
    joined = coder not in team.coders
    if joined:
        if coder.casefold() in {name.casefold() for name in team.coders}:
            raise UserError(f"The team has a coder whose name differs from “{coder}” only in capitals.",
                            "Export a sheet for that coder again from TextLab, and import that one.")
        team.add_coder(coder)
    return joined and not created, created


def apply_sheet(log: CodingLog, imported: SheetImport, source: str = TABLE, *, file_name: str = "the sheet",
                frame: pd.DataFrame | None = None, mapping: ColumnMapping | None = None,
                first_coder: str = "") -> ImportReport:
    """Record the sheet's new codings in ``log`` (see the module's docstring) and say what was done.
    ``first_coder``: the name the Coding step codes under, the team's first coder where a team is made now."""
    coder = check_coder_name(imported.coder)
    joined, created = _join_team(log, coder, first_coder)
    existing = _coder_codings(log, coder, source)
    fresh = new_codings(imported, existing)
    in_file: Mapping[Row, str] = {}
    if source == TABLE and frame is not None and mapping is not None and mapping.category_column:
        in_file = {row_label(row): str(category) for row, category in file_categories(frame, mapping).items()}
    recoded = 0
    for coding in fresh:
        before = existing.get(coding.key)
        recoded += bool(before and before[0] and before[0] != coding.category)
        probability = assigned_probability(log.team, coder, coding.key, source) if log.team else None
        log.record(coding.key, coding.category, coder=coder, chosen_by=ASSIGNED if probability is not None else SHEET,
                   probability=probability, comment=coding.comment, source=source,
                   file_category=in_file.get(coding.key))
    return ImportReport(file_name, coder, source, len(fresh), recoded, len(imported.codings) - len(fresh),
                        imported.not_coded, imported.missing, imported.problems, joined, created)


def import_sheet(log: CodingLog, path: str | Path, frame: pd.DataFrame, mapping: ColumnMapping,
                 codebook: Codebook, coding_texts: pd.DataFrame | None = None) -> ImportReport:
    """Read the coding sheet at ``path`` and record its new codings in ``log``; the file is never changed."""
    imported, source = read_sheet(path, frame, mapping, codebook, log, coding_texts)
    return apply_sheet(log, imported, source, file_name=Path(path).name, frame=frame, mapping=mapping)


def coders_of(log: CodingLog) -> list[str]:
    """The names a sheet can be exported for: the team's coders, else those who coded."""
    if log.team is not None and log.team.coders:
        return list(log.team.coders)
    names: list[str] = []
    for name in log.coders():
        if isinstance(name, str) and name.strip() and name not in names:
            names.append(name)
    return names
