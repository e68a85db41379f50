"""Tables with column names but no data, and why: nothing below the header, or formulas that
were never calculated.

Programs that write .xlsx files without Excel (scripts, some web exports) may store formulas
without their results; every reader but Excel then sees empty cells. Looked for only when a
sheet turned out empty, by streaming the sheet's XML out of the zip.
"""

from __future__ import annotations

import posixpath
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from guiapp.core.errors import DataError

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
            with archive.open(member) as xml:
                for _, element in ET.iterparse(xml, events=("end",)):
                    if _local(element.tag) != "c":
                        continue
                    parts = {_local(child.tag): child for child in element}
                    if "f" in parts and not (parts.get("v") is not None and (parts["v"].text or "").strip()):
                        return True
                    element.clear()
    except (zipfile.BadZipFile, ET.ParseError, KeyError, OSError):
        return False
    return False


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
