"""What a file really is, from its first bytes (and a zip file's table of contents).

Users rename files, save web pages as ".xls" and pick the wrong file from a download folder;
the file's own bytes tell us which reader to use, or which plain-language error to give.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from guiapp.core.errors import DataError

OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # old .xls/.doc, and encrypted Office files
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"

# Files people pick by mistake: how we name them to the user.
_NOT_A_TABLE = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"%PDF", "a PDF document"),
    (b"{\\rtf", "an RTF (rich text) document"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "a program file"),
)
_ZIP_DOCUMENTS = (
    ("word/", "a Word document"),
    ("ppt/", "a PowerPoint presentation"),
)

# The kinds :func:`identify` returns.
WORKBOOK = "workbook"  # zip-based (xlsx/xlsm/xlsb/ods) or OLE2 (xls): python-calamine reads it
GZIP = "gzip"
PARQUET = "parquet"
TEXT = "text"  # anything else: delimited text, or an error found when decoding it
HTML = "html"


def identify(path: Path) -> str:
    """The kind of content in ``path``; raises :class:`DataError` for files that are clearly
    not a table (images, PDFs, Word files, encrypted or damaged workbooks)."""
    with open(path, "rb") as handle:
        head = handle.read(512)
    name = path.name
    for magic, description in _NOT_A_TABLE:
        if head.startswith(magic):
            raise not_a_table(name, description)
    if head.startswith(OLE2_MAGIC):
        if _is_encrypted_office_file(path):
            raise password_protected(name)
        return WORKBOOK
    if head.startswith(ZIP_MAGICS):
        _check_zip_is_workbook(path)
        return WORKBOOK
    if head.startswith(GZIP_MAGIC):
        return GZIP
    if head.startswith(PARQUET_MAGIC):
        return PARQUET
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith(b"<?xml"):
        if b"urn:schemas-microsoft-com:office:spreadsheet" in _read_start(path, 8192):
            raise DataError(
                f'"{name}" is an "XML Spreadsheet 2003" file, an old Excel format that '
                "TextLab cannot read.",
                "Open it in Excel, save it with File → Save As → Excel Workbook (.xlsx) and "
                "open that copy.",
            )
        if b"<html" not in _read_start(path, 8192).lower():
            raise not_a_table(name, "an XML document")
        return HTML
    if start.startswith((b"<!doctype html", b"<html", b"<table")):
        return HTML
    return TEXT


def _read_start(path: Path, size: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(size)


def unreadable_file(name: str, what_it_is: str, what_to_do: str, details: str = "") -> DataError:
    """The error for a file TextLab cannot read as a table: ``"<name>" is <what_it_is>`` and what to do."""
    return DataError(f'"{name}" is {what_it_is}', what_to_do, details=details)


def not_a_table(name: str, description: str) -> DataError:
    return unreadable_file(name, f"{description}, not a spreadsheet.",
                           "Choose the spreadsheet (.xlsx, .xls, .ods) or the CSV/text file that holds your "
                           "coded texts.")


def password_protected(name: str, details: str = "") -> DataError:
    return unreadable_file(name, "protected with a password, so TextLab cannot read it.",
                           "Open it in Excel, remove the password (File → Info → Protect Workbook → Encrypt "
                           "with Password, then clear the password), save a copy and open that copy here.", details)


def damaged_workbook(name: str, details: str = "") -> DataError:
    return unreadable_file(name, "damaged or incomplete: it cannot be read as a spreadsheet.",
                           "It may not have finished downloading or copying. Copy or download it again, or open "
                           "it in Excel or LibreOffice (which can often repair it) and save a copy.", details)


def _is_encrypted_office_file(path: Path) -> bool:
    """Encrypted .xlsx/.docx files are OLE2 containers with an "EncryptedPackage" stream; the
    stream's name is stored in UTF-16 in the container's directory."""
    needle = "EncryptedPackage".encode("utf-16-le")
    overlap = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            if needle in overlap + chunk:
                return True
            overlap = chunk[-len(needle) :]
    return False


def _check_zip_is_workbook(path: Path) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, EOFError, ValueError) as error:
        raise damaged_workbook(path.name, details=repr(error)) from error
    if any(n.startswith("xl/") for n in names) or "mimetype" in names or "content.xml" in names:
        return
    for prefix, description in _ZIP_DOCUMENTS:
        if any(n.startswith(prefix) for n in names):
            raise not_a_table(path.name, description)
    raise DataError(
        f'"{path.name}" is a zip archive, not a spreadsheet.',
        "Unpack it with your archive program and open the spreadsheet or CSV file inside.",
        details="archive contents: " + ", ".join(names[:20]),
    )
