"""Coding sheets: a workbook that lets a coder without TextLab code their texts in Excel or
LibreOffice, read back by ``coding_sheet_reading.py``.

:func:`write_coding_sheet` writes one workbook for one coder:

- **Code these texts**: one row per text — a hidden key column (how the sheet is read back, never by
  row position), the row's label, the text (wrapped), any extra columns the researcher chose, then
  *Category*, with a drop-down of the categories (an Excel data validation whose error alert says in
  words what to do), and *Comment*. The sheet is protected without a password so that only Category
  and Comment can be edited (sorting and filtering stay allowed); the header row is frozen.
- **Codebook**: each category with its definition and examples, locked.
- **About** (hidden, locked): the project's id, the coder, the categories, each text's key with the
  hash of its text (:func:`text_hash`), the date it was written, the format and its version.

Texts are written as Excel can hold them (:func:`sheet_text`): line breaks as ``\\n``, control
characters that a workbook cannot store left out, and a text longer than a cell holds cut with "…".
The hash is of that form, so reading compares like with like.

Keys are the log's rows (a whole number or a text); in the sheet each is written as a text that
keeps its kind (:func:`key_token`), so the row 7 and the row named "7" stay apart.

Plain inputs only: ``texts`` is a sequence of :class:`SheetText` (or a mapping key → text),
``codebook`` a :class:`~guiapp.core.coding.codebook.Codebook`, ``categories`` the names offered in
the drop-down, ``extra_columns`` a mapping column name → (mapping key → value).
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from guiapp.core.atomic import write_bytes_atomic
from guiapp.core.coding.codebook import Codebook
from guiapp.core.coding.coding_record import Row
from guiapp.core.errors import UserError

FORMAT = "textlab-coding-sheet"
VERSION = 1

CODING_SHEET = "Code these texts"
CODEBOOK_SHEET = "Codebook"
ABOUT_SHEET = "About"

KEY_HEADER = "Key"
LABEL_HEADER = "Row"
TEXT_HEADER = "Text"
CATEGORY_HEADER = "Category"
COMMENT_HEADER = "Comment"
RESERVED_HEADERS = (KEY_HEADER, LABEL_HEADER, TEXT_HEADER, CATEGORY_HEADER, COMMENT_HEADER)

# The About sheet: a field's name in column A, its value in column B; after TEXTS_HEADER, one text's
# key and hash per row.
ABOUT_FORMAT = "format"
ABOUT_VERSION = "version"
ABOUT_PROJECT = "project"
ABOUT_CODER = "coder"
ABOUT_WRITTEN = "written"
ABOUT_CATEGORY = "category"
ABOUT_TEXTS = "texts (key, text hash)"

CELL_MAX_CHARS = 32_767  # the most characters an Excel cell holds
_LITERAL_LIST_MAX = 255  # the most characters Excel allows in a drop-down written as a list
_NOT_IN_CELLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_CODEBOOK_FIRST_ROW = 3  # row 1 says how to code, row 2 is the header (rows counted from 0)


@dataclass(frozen=True)
class SheetText:
    """One text for the coder: its key (the log's row), the text, and the row's label as the
    researcher sees it ("" shows the key)."""

    key: Row
    text: str
    label: str = ""


def key_token(key: Row) -> str:
    """The key as the sheet holds it: ``7`` → ``"n:7"``, ``"7"`` → ``"t:7"``."""
    if isinstance(key, bool) or not isinstance(key, int | str):
        raise TypeError(f"a text's key is a whole number or a text, not {type(key).__name__}")
    return f"n:{key}" if isinstance(key, int) else f"t:{key}"


def sheet_text(text: str) -> str:
    """``text`` as a workbook cell holds it: line breaks as ``\\n``, control characters that a
    workbook cannot store left out, at most :data:`CELL_MAX_CHARS` characters (cut with "…")."""
    text = _NOT_IN_CELLS.sub("", str(text).replace("\r\n", "\n").replace("\r", "\n"))
    return text if len(text) <= CELL_MAX_CHARS else text[: CELL_MAX_CHARS - 1] + "…"


def text_hash(text: str) -> str:
    """A short fingerprint of the text as the sheet shows it (:func:`sheet_text`)."""
    return hashlib.sha256(sheet_text(text).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _as_sheet_texts(texts: Sequence[SheetText] | Mapping[Row, str]) -> list[SheetText]:
    if isinstance(texts, Mapping):
        return [SheetText(key, text) for key, text in texts.items()]
    return [item if isinstance(item, SheetText) else SheetText(*item) for item in texts]


def _check(coder: str, items: list[SheetText], categories: Sequence[str],
           extra_columns: Mapping[str, Mapping[Row, object]]) -> None:
    if not str(coder).strip():
        raise UserError("The coding sheet needs the coder's name.",
                        "Choose the coder the sheet is for, then export it again.")
    if not items:
        raise UserError(f"There are no texts for {coder} to code, so there is no coding sheet to write.",
                        "Assign texts to this coder first.")
    tokens = [key_token(item.key) for item in items]
    if len(set(tokens)) != len(tokens):
        twice = next(item.key for item, token in zip(items, tokens) if tokens.count(token) > 1)
        raise UserError(f"The text in row {twice} is listed twice for the coding sheet.",
                        "List each text once.")
    names = [str(name) for name in categories]
    if not names or any(not name.strip() for name in names):
        raise UserError("The coding sheet needs the categories to choose from, each with a name.",
                        "Add the categories to the codebook, then export the sheet again.")
    if len(set(names)) != len(names):
        raise UserError("A category is listed twice for the coding sheet.", "Give each category its own name.")
    for name in extra_columns:
        if str(name) in RESERVED_HEADERS:
            raise UserError(f"An extra column cannot be called “{name}”: the coding sheet uses that name itself.",
                            "Choose other columns to show beside the texts, or rename this one.")


def _literal_list(names: list[str]) -> list[str] | None:
    """The categories as a drop-down list written into the validation, or None where Excel
    cannot hold them that way (too long, or a name with a comma or a quote)."""
    if any("," in name or '"' in name for name in names):
        return None
    return names if len(",".join(names)) <= _LITERAL_LIST_MAX else None


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return value if value == value and abs(value) != float("inf") else ""
    return sheet_text(str(value))


def write_coding_sheet(path: str | Path, *, project_id: str, coder: str,
                       texts: Sequence[SheetText] | Mapping[Row, str], codebook: Codebook,
                       categories: Sequence[str],
                       extra_columns: Mapping[str, Mapping[Row, object]] | None = None,
                       written: datetime | None = None) -> Path:
    """Write the coding sheet for ``coder`` to ``path`` (replacing it whole, never half-written) and
    return the path. ``written`` is the time recorded in the sheet (default: now)."""
    import xlsxwriter

    items = _as_sheet_texts(texts)
    extra_columns = dict(extra_columns or {})
    names = [str(name) for name in categories]
    _check(coder, items, names, extra_columns)
    written = written or datetime.now(UTC)
    buffer = io.BytesIO()
    workbook = xlsxwriter.Workbook(buffer, {"in_memory": True, "strings_to_formulas": False,
                                            "strings_to_urls": False, "strings_to_numbers": False})
    styles = {
        "header": workbook.add_format({"bold": True, "bg_color": "#DDE6F0", "border": 1, "text_wrap": True,
                                       "valign": "top", "locked": True}),
        "locked": workbook.add_format({"locked": True, "valign": "top"}),
        "text": workbook.add_format({"locked": True, "text_wrap": True, "valign": "top"}),
        "open": workbook.add_format({"locked": False, "valign": "top", "bg_color": "#FFF8DC", "border": 1,
                                     "border_color": "#C8C8C8"}),
        "open_wrap": workbook.add_format({"locked": False, "valign": "top", "text_wrap": True,
                                          "bg_color": "#FFF8DC", "border": 1, "border_color": "#C8C8C8"}),
        "title": workbook.add_format({"bold": True, "font_size": 12, "locked": True}),
    }
    _write_coding(workbook, styles, items, names, extra_columns)
    _write_codebook(workbook, styles, codebook, names)
    _write_about(workbook, styles, project_id, coder, items, names, written)
    workbook.close()
    target = Path(path)
    try:
        write_bytes_atomic(target, buffer.getvalue())
    except OSError as error:
        raise UserError(f"TextLab cannot write the coding sheet to {target}.",
                        "Choose a folder where you may save files, and close the file if Excel has it open.",
                        str(error)) from error
    return target


def _write_coding(workbook, styles, items: list[SheetText], names: list[str],
                  extra_columns: dict[str, Mapping[Row, object]]) -> None:
    sheet = workbook.add_worksheet(CODING_SHEET)
    headers = [KEY_HEADER, LABEL_HEADER, TEXT_HEADER, *map(str, extra_columns), CATEGORY_HEADER, COMMENT_HEADER]
    category_column, comment_column = len(headers) - 2, len(headers) - 1
    for column, header in enumerate(headers):
        sheet.write_string(0, column, header, styles["header"])
    for row, item in enumerate(items, start=1):
        sheet.write_string(row, 0, key_token(item.key), styles["locked"])
        sheet.write_string(row, 1, sheet_text(item.label or str(item.key)), styles["locked"])
        sheet.write_string(row, 2, sheet_text(item.text), styles["text"])
        for column, values in enumerate(extra_columns.values(), start=3):
            value = _cell(values.get(item.key))
            if isinstance(value, str):
                sheet.write_string(row, column, value, styles["text"])
            else:
                sheet.write_number(row, column, value, styles["locked"])
        sheet.write_blank(row, category_column, None, styles["open"])
        sheet.write_blank(row, comment_column, None, styles["open_wrap"])
    last = len(items)
    sheet.set_column(0, 0, 12, styles["locked"], {"hidden": True})
    sheet.set_column(1, 1, 10, styles["locked"])
    sheet.set_column(2, 2, 70, styles["text"])
    if extra_columns:
        sheet.set_column(3, 2 + len(extra_columns), 16, styles["text"])
    sheet.set_column(category_column, category_column, max(18, min(40, max(map(len, names)) + 4)))
    sheet.set_column(comment_column, comment_column, 40)
    literal = _literal_list(names)
    source = literal if literal is not None else (
        f"='{CODEBOOK_SHEET}'!$A${_CODEBOOK_FIRST_ROW + 1}:$A${_CODEBOOK_FIRST_ROW + len(names)}")
    sheet.data_validation(1, category_column, max(last, 1), category_column, {
        "validate": "list", "source": source, "ignore_blank": True, "dropdown": True,
        "input_title": "Category", "input_message": "Choose the category of this text from the list.",
        "error_title": "Not a category of the codebook",
        "error_message": "Choose one of the categories from the drop-down list; the Codebook sheet "
                         "says what each one means. Leave the cell empty to skip the text.",
        "error_type": "stop",
    })
    sheet.freeze_panes(1, 0)
    sheet.autofilter(0, 0, max(last, 1), comment_column)
    sheet.protect("", {"sort": True, "autofilter": True, "format_columns": True, "format_rows": True,
                       "select_locked_cells": True, "select_unlocked_cells": True})
    sheet.activate()


def _write_codebook(workbook, styles, codebook: Codebook, names: list[str]) -> None:
    sheet = workbook.add_worksheet(CODEBOOK_SHEET)
    sheet.write_string(0, 0, "What each category means. Code the texts on the sheet “Code these texts”: choose "
                             "a category in the Category column and add a comment where you are unsure.",
                       styles["title"])
    for column, header in enumerate(("Category", "Definition", "Examples")):
        sheet.write_string(_CODEBOOK_FIRST_ROW - 1, column, header, styles["header"])
    for row, name in enumerate(names, start=_CODEBOOK_FIRST_ROW):
        category = codebook.category(name)
        sheet.write_string(row, 0, sheet_text(name), styles["text"])
        sheet.write_string(row, 1, sheet_text(category.definition if category else ""), styles["text"])
        examples = "\n\n".join(category.examples) if category else ""
        sheet.write_string(row, 2, sheet_text(examples), styles["text"])
    sheet.set_column(0, 0, 24)
    sheet.set_column(1, 1, 60)
    sheet.set_column(2, 2, 60)
    sheet.freeze_panes(_CODEBOOK_FIRST_ROW, 0)
    sheet.protect("", {"format_columns": True, "format_rows": True})


def _write_about(workbook, styles, project_id: str, coder: str, items: list[SheetText], names: list[str],
                 written: datetime) -> None:
    sheet = workbook.add_worksheet(ABOUT_SHEET)
    rows: list[tuple[str, str]] = [
        (ABOUT_FORMAT, FORMAT), (ABOUT_VERSION, str(VERSION)), (ABOUT_PROJECT, str(project_id)),
        (ABOUT_CODER, str(coder)), (ABOUT_WRITTEN, written.isoformat(timespec="seconds")),
        *((ABOUT_CATEGORY, name) for name in names), (ABOUT_TEXTS, ""),
        *((key_token(item.key), text_hash(item.text)) for item in items),
    ]
    for row, (field, value) in enumerate(rows):
        sheet.write_string(row, 0, field, styles["locked"])
        sheet.write_string(row, 1, sheet_text(value), styles["locked"])
    sheet.set_column(0, 1, 36)
    sheet.protect("")
    sheet.hide()
