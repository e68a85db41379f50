"""Tables with column names but no data, and why: nothing below the header, or formulas that
were never calculated.

Programs that write .xlsx files without Excel (scripts, some web exports) may store formulas
without their results; every reader but Excel then sees empty cells. Looked for only when a
sheet turned out empty, or one of its columns did (:func:`uncalculated_formula_notices`), by
streaming the sheet's XML out of the zip.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from guiapp.core.errors import DataError

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

_RELATIONSHIP_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"


class EmptyTableError(DataError):
    """The file was read but holds no rows of data. ``reason``: "no_rows" (a header row only)
    or "formulas" (formulas without calculated values)."""

    def __init__(self, message: str, hint: str, reason: str, details: str = "") -> None:
        super().__init__(message, hint, details)
        self.reason = reason


def no_data_rows(file_name: str, sheet: str | None) -> EmptyTableError:
    where = f'The sheet "{sheet}" in "{file_name}"' if sheet else f'"{file_name}"'
    return EmptyTableError(
        f"{where} has a header row but no rows of data.",
        f"Check that you chose the right {'file and sheet' if sheet else 'file'}, and that the "
        "texts are in the rows below the column names.",
        "no_rows",
    )


def uncalculated_formulas(file_name: str, sheet: str) -> EmptyTableError:
    return EmptyTableError(
        f'The cells of the sheet "{sheet}" in "{file_name}" hold formulas that were never '
        "calculated, so there are no values to read.",
        "Open the file in Excel or LibreOffice, save it, and load it again (saving calculates "
        "the formulas).",
        "formulas",
    )


def has_uncalculated_formulas(path: Path, sheet: str) -> bool:
    """Whether the sheet of an .xlsx/.xlsm file has a formula cell without a stored value."""
    try:
        with zipfile.ZipFile(path) as archive:
            member = _sheet_member(archive, sheet)
            if member is None:
                return False
            return any(formula and not value for _, formula, value, _ in _cells(archive, member))
    except (zipfile.BadZipFile, ET.ParseError, KeyError, OSError):
        return False


def _cells(archive: zipfile.ZipFile, member: str) -> Iterator[tuple[str, bool, bool, bool]]:
    """Each cell of a sheet's XML, streamed: ``(column letters, has a formula, has a stored value,
    has inline text)``."""
    with archive.open(member) as xml:
        for _, element in ET.iterparse(xml, events=("end",)):
            if _local(element.tag) != "c":
                continue
            letters = "".join(char for char in element.get("r", "") if char.isalpha()).upper()
            parts = {_local(child.tag): child for child in element}
            value = parts.get("v")
            yield (letters, "f" in parts, value is not None and bool((value.text or "").strip()),
                   parts.get("is") is not None)
            element.clear()


_FORMULA_TAG = re.compile(rb"<(?:\w+:)?f[\s>/]")
_CHUNK = 1 << 20


def uncalculated_formula_notices(path: Path, sheet: str, frame: pd.DataFrame) -> list[str]:
    """A notice for each column of ``frame`` that is empty in every row because its cells hold
    formulas that were never calculated (.xlsx/.xlsm only; [] when no column is empty)."""
    empty = [position for position in range(frame.shape[1]) if frame.iloc[:, position].isna().all()]
    if not empty or path.suffix.lower() not in (".xlsx", ".xlsm"):
        return []
    counts, first_column = _formulas_without_values(path, sheet)
    notices = []
    for letters, count in sorted(counts.items(), key=lambda item: (len(item[0]), item[0])):
        position = _column_number(letters) - first_column
        if position in empty:
            name = frame.columns[position]
            notices.append(
                f"The column '{name}' (column {letters} of the sheet “{sheet}”) holds {count:,} formulas that were never "
                "calculated, so TextLab sees only empty cells there. The program that wrote the file did not "
                "calculate them: open it in Excel or LibreOffice, save it, and load it again."
            )
    return notices


def _formulas_without_values(path: Path, sheet: str) -> tuple[dict[str, int], int]:
    """``(column letters → formula cells without a stored value, number of the sheet's first used
    column)`` of an .xlsx sheet; ({}, 0) when it has none or cannot be read."""
    counts: dict[str, int] = {}
    first = 0
    try:
        with zipfile.ZipFile(path) as archive:
            member = _sheet_member(archive, sheet)
            if member is None or not _has_formula_tag(archive, member):
                return {}, 0
            for letters, formula, value, inline in _cells(archive, member):
                if letters and (value or formula or inline):
                    number = _column_number(letters)
                    first = number if first == 0 else min(first, number)
                    if formula and not value:
                        counts[letters] = counts.get(letters, 0) + 1
    except (zipfile.BadZipFile, ET.ParseError, KeyError, OSError, ValueError):
        return {}, 0
    return counts, first


def _has_formula_tag(archive: zipfile.ZipFile, member: str) -> bool:
    """A quick look through the sheet's bytes for a formula element before parsing it."""
    with archive.open(member) as stream:
        tail = b""
        while chunk := stream.read(_CHUNK):
            if _FORMULA_TAG.search(tail + chunk):
                return True
            tail = chunk[-16:]
    return False


def _column_number(letters: str) -> int:
    """"A" → 1, "Z" → 26, "AA" → 27."""
    number = 0
    for char in letters:
        number = number * 26 + ord(char) - ord("A") + 1
    return number


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _sheet_member(archive: zipfile.ZipFile, sheet: str) -> str | None:
    """The path of a sheet's XML inside an .xlsx: workbook.xml names it, its rels file says
    where it is."""
    names = set(archive.namelist())
    if "xl/workbook.xml" not in names or "xl/_rels/workbook.xml.rels" not in names:
        return None
    workbook = ET.fromstring(archive.read("xl/workbook.xml"))
    target_id = next(
        (e.get(_RELATIONSHIP_ID) for e in workbook.iter() if _local(e.tag) == "sheet"
         and e.get("name") == sheet),
        None,
    )
    rels = ET.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    for relation in rels.iter():
        if _local(relation.tag) == "Relationship" and relation.get("Id") == target_id:
            target = relation.get("Target", "")
            member = target.lstrip("/") if target.startswith("/") else posixpath.normpath(
                posixpath.join("xl", target))
            return member if member in names else None
    return None
