"""The *Test documents* sheet: every test text with the researcher's coding and each model's answer.

One row per test text: the row in the researcher's spreadsheet (and the ID, when an ID column is
mapped), the text, the category the researcher coded, then per finished model (best first, as on
the Results step) its answer, how confident it was, and ✓ or ✗ for whether the answer is the
coding, coloured green or red. A last column counts the models that agree with the coding. The
header is frozen and filterable, so "only the texts the best model got wrong" is one click.
Written top to bottom (``constant_memory`` safe), in chunks that report progress.

Where a text can have several categories, the coding and each model's answer are lists of
categories joined by "; " ("Economy; Health"; "(none of the categories)" for none), each model
has one probability column per category (each category's own chance; they need not add up to
100 %), and ✓ means the model got all categories of the text right.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from xlsxwriter.format import Format
from xlsxwriter.utility import xl_rowcol_to_cell
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.explain.documents import DocumentsTable, format_value
from guiapp.core.export.excel_cells import EXACT_INTEGER, fast_writer, text_width
from guiapp.core.export.excel_predictions import BLOCK_FILLS
from guiapp.core.export.excel_style import INTEGER, PERCENT, Styles
from guiapp.core.export.multi_label_facts import categories_text

SHEET = "Test documents"
ROW_HEADER = "Row in your spreadsheet"
TEXT_HEADER = "Text"
NO_TEXT_HEADER = "Text (not kept with these results: see the row in your spreadsheet)"
CODING_HEADER = "Your coding"
AGREEING_HEADER = "Models that agree with your coding"
CODED_SEVERAL_HEADER = "Coded categories"  # a text can have several categories
ALL_RIGHT_HEADER = "Models that get all categories right"
RIGHT, WRONG = "✓", "✗"
TEXT_WIDTH = 70  # characters; longer texts wrap
MAX_TEXT_LINES = 8  # a row grows with its text up to this many lines; the whole text stays in the cell
EXCEL_MAX_CHARACTERS = 32_767
CHUNK_ROWS = 5_000
Column = tuple[list[Any], Callable[..., Any], Format]  # values (None: an empty cell), writer, format


def answer_headers(name: str) -> tuple[str, str, str]:
    return f"{name}: answer", f"{name}: confidence", f"{name}: agrees with you"


def several_headers(name: str, categories: list[str]) -> tuple[str, list[str], str]:
    """A model's columns where a text can have several categories: its categories, a probability per
    category, and whether all categories of the text are right."""
    return (f"{name}: predicted categories", [f"{name}: probability {category}" for category in categories],
            f"{name}: all categories right")


def cell_text(text: str) -> str:
    """The text as one cell can hold it (Excel keeps at most 32,767 characters)."""
    if len(text) <= EXCEL_MAX_CHARACTERS:
        return text
    return text[: EXCEL_MAX_CHARACTERS - 1] + "…"


def text_lines(text: str, width: int = TEXT_WIDTH) -> int:
    """About how many lines ``text`` takes when wrapped at ``width`` characters."""
    return sum(max(1, math.ceil(len(line) * 1.1 / width)) for line in text.split("\n")) if text else 1


def write_test_documents_sheet(
    workbook: Workbook,
    styles: Styles,
    result: ExperimentResult,
    on_event: EventCallback = ignore_events,
    start: float = 0.0,
    end: float = 1.0,
) -> Worksheet:
    """Add the sheet and fill it; progress runs from ``start`` to ``end``."""
    if result.multi_label:
        return _write_several_categories(workbook, styles, result, on_event, start, end)
    table = DocumentsTable.from_result(result)
    sheet = workbook.add_worksheet(SHEET)
    top = {"valign": "top"}
    fmt_row = workbook.add_format({**top, "num_format": INTEGER})
    fmt_text = workbook.add_format({**top, "text_wrap": True})
    fmt_top = workbook.add_format(top)
    fmt_share = workbook.add_format({**top, "num_format": PERCENT})
    fmt_mark = workbook.add_format({**top, "align": "center"})

    id_column = result.study_source.mapping.id_column
    has_ids = table.has_ids()
    has_texts = any(text for text in table.texts)
    categories = table.categories
    where = result.test_rows_in  # the sheet or test file the rows are counted in, if not obvious
    headers: list[tuple[str, float, Format]] = [(f"{ROW_HEADER} ({where})" if where else ROW_HEADER, 12, styles.header)]
    if has_ids:
        ids = [format_value(value) for value in table.ids[:500]]
        headers.append((str(id_column or "ID"), min(max([10.0, *map(text_width, ids)]), 30), styles.header))
    headers.append((TEXT_HEADER if has_texts else NO_TEXT_HEADER, TEXT_WIDTH if has_texts else 30, styles.header))
    label_width = min(max([12.0, *map(text_width, categories)]), 30)
    headers.append((CODING_HEADER, label_width, styles.header))
    for position, model in enumerate(table.models):
        fill = styles.block_header(BLOCK_FILLS[position % len(BLOCK_FILLS)])
        answer, confidence, agrees = answer_headers(model.name)
        headers.append((answer, label_width, fill))
        if model.has_confidence:
            headers.append((confidence, 12, fill))
        headers.append((agrees, 11, fill))
    if len(table.models) >= 2:
        headers.append((AGREEING_HEADER, 12, styles.header))
    lines = max(text_width(name) / width for name, width, _ in headers)
    sheet.set_row(0, 15 * min(max(math.ceil(lines), 1), 4))
    for col, (name, width, header_format) in enumerate(headers):
        sheet.set_column(col, col, width)
        sheet.write_string(0, col, name, header_format)
    sheet.freeze_panes(1, 2 if has_ids else 1)

    rows = len(table)
    last = len(headers) - 1
    sheet.autofilter(0, 0, max(rows, 1), last)
    mark_columns = [col for col, (name, _, _) in enumerate(headers) if name.endswith(": agrees with you")]
    for col in mark_columns:
        if rows:
            cell = xl_rowcol_to_cell(1, col, row_abs=False, col_abs=False)
            sheet.conditional_format(1, col, rows, col, {"type": "formula", "criteria": f'={cell}="{RIGHT}"',
                                                         "format": styles.agrees})
            sheet.conditional_format(1, col, rows, col, {"type": "formula", "criteria": f'={cell}="{WRONG}"',
                                                         "format": styles.differs})
    if not rows:
        sheet.write_string(1, 0, "There are no test texts in these results.", styles.muted)

    texts = [cell_text(str(text)) or None for text in table.texts] if has_texts else [None] * rows
    heights = [15 * min(text_lines(text or ""), MAX_TEXT_LINES) for text in texts] if has_texts else []
    columns = _columns(sheet, table, texts, has_ids, (fmt_row, fmt_top, fmt_text, fmt_share, fmt_mark))
    span = end - start
    for first in range(0, rows, CHUNK_ROWS):
        stop = min(first + CHUNK_ROWS, rows)
        for index in range(first, stop):
            row = index + 1
            if has_texts:
                sheet.set_row(row, heights[index])
            for col, (values, write, cell_format) in enumerate(columns):
                value = values[index]
                if value is not None:
                    write(row, col, value, cell_format)
        on_event(Progress(start + span * stop / rows, f"Writing the test documents: {stop:,} of {rows:,}",
                          done=stop, total=rows))
    return sheet


def _columns(sheet: Worksheet, table: DocumentsTable, texts: list[str | None], has_ids: bool,
             formats: tuple[Format, Format, Format, Format, Format]) -> list[Column]:
    """Each column of the sheet as (values, the writer of one value, its format); None: an empty cell.
    Values are prepared as whole columns, so that writing is one call per cell."""
    number, top, wrap, share, mark = formats
    write_number, write_string = fast_writer(sheet, "number"), fast_writer(sheet, "string")
    categories = table.categories
    columns: list[Column] = [(table.rows.tolist(), write_number, number)]
    if has_ids:
        columns.append(([_id_cell(value) for value in table.ids], _id_writer(sheet, number, top), top))
    columns.append((texts, write_string, wrap))
    columns.append(([categories[code] for code in table.human.tolist()], write_string, top))
    for model in table.models:
        columns.append(([categories[code] for code in model.predicted.tolist()], write_string, top))
        if model.has_confidence:
            confidence = np.round(model.confidence, 6)
            columns.append(([None if math.isnan(v) else v for v in confidence.tolist()], write_number, share))
        columns.append(([RIGHT if right else WRONG for right in model.correct.tolist()], write_string, mark))
    if len(table.models) >= 2:
        agreeing = np.sum([model.correct for model in table.models], axis=0)
        columns.append((agreeing.tolist(), write_number, number))
    return columns


def _id_cell(value: object) -> int | str | None:
    """An ID as the spreadsheet had it: whole numbers as numbers (exactly), anything else as text."""
    if isinstance(value, int | np.integer | float | np.floating) and not isinstance(value, bool | np.bool_):
        whole = float(value)
        if math.isfinite(whole) and whole.is_integer() and abs(whole) < EXACT_INTEGER:
            return int(whole)
    shown = format_value(value)
    return cell_text(shown) if shown else None


def _id_writer(sheet: Worksheet, number: Format, text: Format) -> Callable[..., Any]:
    """Writes an ID cell: a number with the whole-number format (no 1.2E+11), or text."""
    def write(row: int, col: int, value: int | str, _format: Format) -> None:
        if isinstance(value, int):
            sheet.write_number(row, col, value, number)
        else:
            sheet.write_string(row, col, value, text)
    return write


# -- a study where a text can have several categories ----------------------------------------------------
def answered_models(result: ExperimentResult) -> list:  # noqa: ANN401 — ModelResult
    """Finished models with an answer for every test text, best first (as on the Results step)."""
    n = len(result.test_true)
    return [model for model in result.ranked() if len(model.predictions) == n]


def several_categories_columns(result: ExperimentResult) -> list[tuple[str, list[Any], str]]:
    """Every column of the sheet of a multi-label study as (header, values, kind) — kinds: "row", "id",
    "text", "category", "probability", "mark", "count"; None is an empty cell. The CSV export writes
    the same columns."""
    n = len(result.test_true)
    categories = [str(category) for category in result.categories]
    rows = list(result.test_rows) if len(result.test_rows) == n else list(range(2, n + 2))
    where = result.test_rows_in
    columns: list[tuple[str, list[Any], str]] = [(f"{ROW_HEADER} ({where})" if where else ROW_HEADER, rows, "row")]
    if len(result.test_ids) == n and any(format_value(value) for value in result.test_ids):
        columns.append((str(result.study_source.mapping.id_column or "ID"), [_id_cell(v) for v in result.test_ids],
                        "id"))
    has_texts = len(result.test_texts) == n and any(result.test_texts)
    texts = [cell_text(str(text)) or None for text in result.test_texts] if has_texts else [None] * n
    columns.append((TEXT_HEADER if has_texts else NO_TEXT_HEADER, texts, "text"))
    coded = [set(map(int, answer)) for answer in result.test_true]
    columns.append((CODED_SEVERAL_HEADER, [categories_text(answer, categories) for answer in coded], "category"))
    right_counts = np.zeros(n, dtype=int)
    models = answered_models(result)
    for model in models:
        predicted, probability_headers, right_header = several_headers(model.name, categories)
        answers = [set(map(int, answer)) for answer in model.predictions]
        columns.append((predicted, [categories_text(answer, categories) for answer in answers], "category"))
        chances = np.asarray(model.probabilities, dtype=float) if model.probabilities is not None else None
        if chances is not None and chances.shape == (n, len(categories)):
            chances = np.round(chances, 6)
            for position, header in enumerate(probability_headers):
                columns.append((header, [None if math.isnan(v) else v for v in chances[:, position].tolist()],
                                "probability"))
        right = [mine == theirs for mine, theirs in zip(answers, coded, strict=True)]
        right_counts += np.asarray(right, dtype=int)
        columns.append((right_header, [RIGHT if ok else WRONG for ok in right], "mark"))
    if len(models) >= 2:
        columns.append((ALL_RIGHT_HEADER, right_counts.tolist(), "count"))
    return columns


def _write_several_categories(workbook: Workbook, styles: Styles, result: ExperimentResult,
                              on_event: EventCallback, start: float, end: float) -> Worksheet:
    sheet = workbook.add_worksheet(SHEET)
    top = {"valign": "top"}
    formats = {"row": workbook.add_format({**top, "num_format": INTEGER}), "text": workbook.add_format(
        {**top, "text_wrap": True}), "probability": workbook.add_format({**top, "num_format": PERCENT}),
        "mark": workbook.add_format({**top, "align": "center"}), "category": workbook.add_format(
        {**top, "text_wrap": True})}
    formats["count"] = formats["row"]
    columns = several_categories_columns(result)
    label_width = min(max([16.0, *(text_width(c) for c in result.categories)]) * 1.6, 40)
    widths = {"row": 12, "id": 14, "text": TEXT_WIDTH, "category": label_width, "probability": 12, "mark": 11,
              "count": 12}
    block = -1  # the model whose columns these are (their headers share its fill colour)
    for col, (header, _, kind) in enumerate(columns):
        if kind == "category" and header != CODED_SEVERAL_HEADER:
            block += 1
        in_block = block >= 0 and kind in ("category", "probability", "mark")
        fill = styles.block_header(BLOCK_FILLS[block % len(BLOCK_FILLS)]) if in_block else styles.header
        sheet.set_column(col, col, widths[kind] if kind != "text" or any(columns[col][1]) else 30)
        sheet.write_string(0, col, header, fill)
    lines = max(text_width(header) / widths[kind] for header, _, kind in columns)
    sheet.set_row(0, 15 * min(max(math.ceil(lines), 1), 5))
    has_ids = any(kind == "id" for _, _, kind in columns)
    sheet.freeze_panes(1, 2 if has_ids else 1)
    rows = len(result.test_true)
    sheet.autofilter(0, 0, max(rows, 1), len(columns) - 1)
    for col, (_, _, kind) in enumerate(columns):
        if kind == "mark" and rows:
            cell = xl_rowcol_to_cell(1, col, row_abs=False, col_abs=False)
            sheet.conditional_format(1, col, rows, col, {"type": "formula", "criteria": f'={cell}="{RIGHT}"',
                                                         "format": styles.agrees})
            sheet.conditional_format(1, col, rows, col, {"type": "formula", "criteria": f'={cell}="{WRONG}"',
                                                         "format": styles.differs})
        elif kind == "probability" and rows:
            sheet.conditional_format(1, col, rows, col, styles.probability_scale)
    if not rows:
        sheet.write_string(1, 0, "There are no test texts in these results.", styles.muted)
    write_number, write_string = fast_writer(sheet, "number"), fast_writer(sheet, "string")
    id_writer = _id_writer(sheet, formats["row"], workbook.add_format(top))
    texts = next(values for _, values, kind in columns if kind == "text")
    span = end - start
    for first in range(0, rows, CHUNK_ROWS):
        stop = min(first + CHUNK_ROWS, rows)
        for index in range(first, stop):
            row = index + 1
            if texts[index]:
                sheet.set_row(row, 15 * min(text_lines(texts[index]), MAX_TEXT_LINES))
            for col, (_, values, kind) in enumerate(columns):
                value = values[index]
                if value is None:
                    continue
                if kind == "id":
                    id_writer(row, col, value, None)
                elif kind in ("row", "probability", "count"):
                    write_number(row, col, value, formats[kind])
                else:
                    write_string(row, col, value, formats.get(kind, formats["text"]))
        on_event(Progress(start + span * stop / rows, f"Writing the test documents: {stop:,} of {rows:,}",
                          done=stop, total=rows))
    return sheet
