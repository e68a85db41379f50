"""Reading a coding sheet back (one written by ``coding_sheet.py`` and filled in by a coder in Excel or
LibreOffice): :func:`read_coding_sheet` gives a :class:`SheetImport` — the codings of the filled rows
as ``(key, category, comment)``, the problems in words, and counts.

Rows are matched by the hidden key, never by their position, so a sheet the coder sorted, filtered or
thinned out reads the same. The file is read once into memory, bounded in size (and, for a zip-based
workbook, in what it unpacks to), and never changed.

Refused whole, with a :class:`~guiapp.core.errors.UserError` that says what to do: a file that is
not a workbook, a workbook that is not a TextLab coding sheet (or of a newer format), a sheet of
another project, another coder's sheet (where the coder is given), and a sheet with no rows or no
category filled in.

Listed in words, the row left out and the rest imported: a text changed in the sheet (its hash
differs from the one recorded when it was written) or changed in the project since, an unknown
category (with the closest category as a suggestion: "Healht" → "did you mean “Health”?") or one
the codebook no longer has, a key given twice with different codings, a row whose key the sheet was
not written with or that the project no longer holds, a row added by hand, and a comment without a
category. A category that differs from one of the codebook only in upper and lower case or
surrounding spaces counts as that category; a row copied unchanged counts once.

Importing the same sheet twice gives the same codings; :func:`new_codings` keeps those that differ
from what a coder's log already holds, so a second import adds nothing.
"""

from __future__ import annotations

import difflib
import io
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from guiapp.core.coding.coding_record import Row
from guiapp.core.coding.coding_sheet import (
    ABOUT_CATEGORY,
    ABOUT_CODER,
    ABOUT_FORMAT,
    ABOUT_PROJECT,
    ABOUT_SHEET,
    ABOUT_TEXTS,
    ABOUT_VERSION,
    ABOUT_WRITTEN,
    CATEGORY_HEADER,
    CODING_SHEET,
    COMMENT_HEADER,
    FORMAT,
    KEY_HEADER,
    TEXT_HEADER,
    VERSION,
    key_token,
    text_hash,
)
from guiapp.core.errors import UserError
from guiapp.core.health.checks import plural
from guiapp.core.tables.cell_values import category_label
from guiapp.core.untrusted.bounded import TooLarge, describe_size, read_file_at_most

MAX_FILE_BYTES = 200 << 20  # far more than the texts one coder can code
MAX_UNPACKED_BYTES = 1 << 30  # what a zip-based workbook may unpack to
_ZIP_MAGIC = b"PK\x03\x04"
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


class SheetCoding(NamedTuple):
    """One coding read from the sheet."""

    key: Row
    category: str
    comment: str


@dataclass(frozen=True)
class SheetImport:
    """What a coding sheet holds: who coded, the codings of its filled rows (in the sheet's order),
    the problems in words (each row it names was left out) and the counts."""

    project_id: str
    coder: str
    written: str
    codings: tuple[SheetCoding, ...]
    problems: tuple[str, ...]
    rows: int  # rows with a text in the sheet
    not_coded: int  # rows left without a category
    left_out: int  # rows with a problem, not imported
    missing: int  # texts the sheet was written with that are no longer in it (deleted rows)

    def summary(self) -> str:
        """The import in one sentence, e.g. "12 codings by Ana; 3 texts not coded yet; 1 row left out"."""
        parts = [f"{plural(len(self.codings), 'coding')} by {self.coder}"]
        if self.not_coded:
            parts.append(f"{plural(self.not_coded, 'text')} not coded yet")
        if self.left_out:
            parts.append(f"{plural(self.left_out, 'row')} left out (see the problems)")
        if self.missing:
            parts.append(f"{plural(self.missing, 'text')} deleted from the sheet")
        return "; ".join(parts)


def new_codings(imported: SheetImport | Sequence[SheetCoding],
                existing: Mapping[Row, tuple[str, str]]) -> tuple[SheetCoding, ...]:
    """The imported codings that differ from ``existing`` (key → (category, comment), the coder's
    latest codings): importing the same sheet again adds nothing."""
    codings = imported.codings if isinstance(imported, SheetImport) else imported
    return tuple(coding for coding in codings
                 if tuple(existing.get(coding.key, ())) != (coding.category, coding.comment))


def _refused(name: str, what: str, hint: str, details: str = "") -> UserError:
    return UserError(f"TextLab cannot import “{name}”: {what}", hint, details)


_EXPORT_AGAIN = "Export a coding sheet for the coder from TextLab, and let them fill in that one."


def _read_bytes(path: Path) -> bytes:
    try:
        data = read_file_at_most(path, MAX_FILE_BYTES, path.name)
    except TooLarge:
        raise _refused(path.name, f"it is larger than {describe_size(MAX_FILE_BYTES)}, far more than a coding "
                                  "sheet needs.", "Choose the coding sheet the coder sent back.") from None
    except OSError as error:
        raise _refused(path.name, "the file cannot be opened.",
                       "Check that it exists and is not open in another program, then try again.",
                       str(error)) from error
    if data.startswith(_ZIP_MAGIC):
        _check_unpacked_size(path.name, data)
    elif not data.startswith(_OLE2_MAGIC):
        raise _refused(path.name, "it is not a workbook.",
                       "Choose the coding sheet (.xlsx) the coder sent back; if they saved it in another "
                       "format, ask them to save it as an Excel workbook (.xlsx).")
    return data


def _check_unpacked_size(name: str, data: bytes) -> None:
    """A zip-based workbook unpacks to at most :data:`MAX_UNPACKED_BYTES`, counted as it unpacks."""
    unpacked = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.infolist():
                with archive.open(member) as stream:
                    while block := stream.read(1 << 20):
                        unpacked += len(block)
                        if unpacked > MAX_UNPACKED_BYTES:
                            raise _refused(name, f"it unpacks to more than {describe_size(MAX_UNPACKED_BYTES)}, far "
                                                 "more than a coding sheet needs.",
                                           "Choose the coding sheet the coder sent back.")
    except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError, OSError) as error:
        raise _refused(name, "the workbook is damaged or incomplete.",
                       "Ask the coder to save it again (File → Save As → Excel Workbook) and send it once more.",
                       repr(error)) from error


def _sheets(path: Path, data: bytes) -> tuple[list[list[object]], list[list[object]]]:
    import python_calamine as calamine

    try:
        workbook = calamine.CalamineWorkbook.from_filelike(io.BytesIO(data))
    except Exception as error:  # calamine's errors for a file it cannot read  # noqa: BLE001
        kind = "it is protected with a password" if isinstance(error, calamine.PasswordError) else \
            "the workbook is damaged or cannot be read"
        raise _refused(path.name, kind + ".", "Ask the coder to save it again as an Excel workbook (.xlsx), "
                                              "without a password, and send it once more.", repr(error)) from error
    try:
        names = list(workbook.sheet_names)
        if CODING_SHEET not in names or ABOUT_SHEET not in names:
            raise _refused(path.name, "it is not a coding sheet written by TextLab (it lacks the sheets "
                                      f"“{CODING_SHEET}” and “{ABOUT_SHEET}”).", _EXPORT_AGAIN,
                           "sheets: " + ", ".join(names[:20]))
        try:
            coding = workbook.get_sheet_by_name(CODING_SHEET).to_python(skip_empty_area=False)
            about = workbook.get_sheet_by_name(ABOUT_SHEET).to_python(skip_empty_area=False)
        except Exception as error:  # noqa: BLE001
            raise _refused(path.name, "the workbook is damaged or cannot be read.",
                           "Ask the coder to save it again as an Excel workbook (.xlsx) and send it once more.",
                           repr(error)) from error
    finally:
        workbook.close()
    return coding, about


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True)
class _About:
    project_id: str
    coder: str
    written: str
    categories: tuple[str, ...]
    hashes: dict[str, str]  # key token → text hash


def _about(name: str, rows: list[list[object]]) -> _About:
    fields: dict[str, str] = {}
    categories: list[str] = []
    hashes: dict[str, str] = {}
    in_texts = False
    for row in rows:
        field, value = (_text(row[0]) if row else ""), (_text(row[1]) if len(row) > 1 else "")
        if in_texts:
            if field:
                hashes[field] = value
        elif field == ABOUT_TEXTS:
            in_texts = True
        elif field == ABOUT_CATEGORY:
            categories.append(value)
        elif field:
            fields.setdefault(field, value)
    if fields.get(ABOUT_FORMAT) != FORMAT:
        raise _refused(name, "it is not a coding sheet written by TextLab.", _EXPORT_AGAIN)
    try:
        version = int(fields.get(ABOUT_VERSION, ""))
    except ValueError:
        version = None
    if version is None or version > VERSION:
        raise _refused(name, "it was written by a newer TextLab.", "Update TextLab, then import the sheet again.")
    return _About(fields.get(ABOUT_PROJECT, ""), fields.get(ABOUT_CODER, ""), fields.get(ABOUT_WRITTEN, ""),
                  tuple(categories), hashes)


def _columns(name: str, header: list[object]) -> dict[str, int]:
    found = {_text(cell).strip(): column for column, cell in reversed(list(enumerate(header)))}
    needed = (KEY_HEADER, TEXT_HEADER, CATEGORY_HEADER)
    lacking = [column for column in needed if column not in found]
    if lacking:
        raise _refused(name, f"the sheet “{CODING_SHEET}” lacks its column{'s' * (len(lacking) > 1)} "
                             + ", ".join(f"“{column}”" for column in lacking) + ".", _EXPORT_AGAIN)
    return {column: found[column] for column in (*needed, COMMENT_HEADER) if column in found}


def _category(typed: str, categories: Sequence[str]) -> tuple[str | None, str]:
    """The category ``typed`` stands for, or None and a suggestion in words."""
    typed = typed.strip()
    if typed in categories:
        return typed, ""
    label = category_label(typed) or ""
    if label in categories:
        return label, ""
    alike = [category for category in categories if category.strip().casefold() == label.casefold()]
    if len(alike) == 1:
        return alike[0], ""
    folded = {category.casefold(): category for category in categories}
    closest = difflib.get_close_matches(label.casefold(), list(folded), n=1, cutoff=0.6)
    return None, (f" Did you mean “{folded[closest[0]]}”?" if closest else
                  " Choose one of: " + ", ".join(f"“{category}”" for category in categories[:20]) + ".")


def _cell(row: list[object], column: int | None) -> object:
    return row[column] if column is not None and column < len(row) else ""


def read_coding_sheet(path: str | Path, *, project_id: str, texts_by_key: Mapping[Row, str],
                      categories: Sequence[str], coder: str | None = None) -> SheetImport:
    """The codings in the coding sheet at ``path``, checked against the project: its id, its texts
    (key → text, as the project holds them now) and its categories; with ``coder`` given, a sheet
    written for another coder is refused too. Raises :class:`UserError` for a sheet refused whole."""
    path = Path(path)
    coding_rows, about_rows = _sheets(path, _read_bytes(path))
    about = _about(path.name, about_rows)
    if about.project_id != str(project_id):
        raise _refused(path.name, "it is a coding sheet of another project.",
                       "Open the project the sheet was exported from and import it there, or export a new "
                       "sheet from this project.", f"the sheet's project: {about.project_id}")
    if coder is not None and about.coder != coder:
        raise _refused(path.name, f"it is {about.coder}’s coding sheet, not {coder}’s.",
                       f"Import it as {about.coder}’s codings, or choose {coder}’s sheet.")
    if len(coding_rows) < 2:
        raise _refused(path.name, "the sheet holds no texts.", _EXPORT_AGAIN)
    columns = _columns(path.name, coding_rows[0])
    by_token = {key_token(key): key for key in texts_by_key}
    names = [str(category) for category in categories]
    problems: list[str] = []
    found: dict[str, list[tuple[int, str, str]]] = {}  # key token → (sheet row, category, comment)
    rows = not_coded = left_out = 0
    for number, row in enumerate(coding_rows[1:], start=2):
        token = _text(_cell(row, columns[KEY_HEADER]))
        text = _text(_cell(row, columns[TEXT_HEADER]))
        typed = _text(_cell(row, columns[CATEGORY_HEADER])).strip()
        comment = _text(_cell(row, columns.get(COMMENT_HEADER))).strip()
        if not token.strip():
            if typed or comment or text.strip():
                problems.append(f"Row {number} was added by hand: it has no key, so TextLab cannot tell which "
                                "text it is.")
                left_out += 1
            continue
        rows += 1
        problem = _row_problem(number, token, text, about, by_token, texts_by_key)
        if problem:
            problems.append(problem)
            left_out += 1
            continue
        if not typed:
            not_coded += 1
            if comment:
                problems.append(f"Row {number} has a comment but no category; it was not imported.")
            continue
        category, suggestion = _category(typed, names)
        if category is None and typed in about.categories:
            problems.append(f"Row {number}: “{typed[:80]}” was a category when the sheet was written but is no "
                            "longer one of the codebook; code the text again in TextLab.")
            left_out += 1
            continue
        if category is None:
            problems.append(f"Row {number}: “{typed[:80]}” is not a category of the codebook.{suggestion}")
            left_out += 1
            continue
        found.setdefault(token, []).append((number, category, comment))
    codings: list[SheetCoding] = []
    for token, entries in found.items():
        if len({(category, comment) for _, category, comment in entries}) > 1:
            numbers = ", ".join(str(number) for number, _, _ in entries)
            problems.append(f"Rows {numbers} hold the same text with different codings; none of them was "
                            "imported. Keep one of the rows and import the sheet again.")
            left_out += len(entries)
            continue
        _, category, comment = entries[0]
        codings.append(SheetCoding(by_token[token], category, comment))
    missing = len(set(about.hashes) - {_text(_cell(row, columns[KEY_HEADER])) for row in coding_rows[1:]})
    if not codings and not problems:
        raise _refused(path.name, "no category is filled in yet.",
                       "Ask the coder to choose a category for each text in the Category column, save the "
                       "workbook and send it back.")
    return SheetImport(about.project_id, about.coder, about.written, tuple(codings), tuple(problems),
                       rows, not_coded, left_out, missing)


def _row_problem(number: int, token: str, text: str, about: _About, by_token: Mapping[str, Row],
                 texts_by_key: Mapping[Row, str]) -> str:
    """Why row ``number`` cannot be imported, or ""."""
    recorded = about.hashes.get(token)
    if recorded is None:
        return f"Row {number} holds a text this sheet was not written with; it was not imported."
    if token not in by_token:
        return f"Row {number} holds a text the project no longer has; it was not imported."
    if text_hash(text) != recorded:
        return (f"The text in row {number} was changed in the sheet; the row was not imported. Texts must "
                "stay as TextLab wrote them.")
    if text_hash(texts_by_key[by_token[token]]) != recorded:
        return (f"The text in row {number} has changed in the project since the sheet was written; the row "
                "was not imported. Export a new sheet for it.")
    return ""
