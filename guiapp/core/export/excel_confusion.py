"""The *Confusion matrices* sheet: one block per finished model, counts of test texts.

Rows are your coding, columns the model's prediction, both in the order of the categories, with
row and column totals; the diagonal is where the model agrees with you. A colour scale per block
makes the large counts stand out. Written top to bottom (``constant_memory`` safe).

Where a text can have several categories there is no such matrix (a text is not in one category
but in several): the sheet *Per-category tables* holds instead, per model, one row per category
with its 2×2 table — the test texts you coded with the category that the model also put there or
missed, and those you did not code with it that the model added or also left out.
"""

from __future__ import annotations

from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.export.excel_cells import text_width, write_cells
from guiapp.core.export.excel_style import Styles

SHEET = "Confusion matrices"
CORNER = "Your coding ↓  ·  model's prediction →"
TOTAL = "Total"
MULTI_LABEL_SHEET = "Per-category tables"
# the cells of a category's 2×2 table: (header, row of the coding, column of the prediction)
CATEGORY_CELLS = (
    ("Coded yes · model yes (agree)", 1, 1),
    ("Coded yes · model no (missed)", 1, 0),
    ("Coded no · model yes (added)", 0, 1),
    ("Coded no · model no (agree)", 0, 0),
)
CATEGORY_TABLE_HEADERS = ("Category", *(header for header, _, _ in CATEGORY_CELLS), "Coded (test texts)",
                          "Predicted (test texts)", "Test texts")
MISTAKE_SCALE = {"type": "2_color_scale", "min_color": "#FFFFFF", "max_color": "#F4B183"}  # white to orange
CATEGORY_TABLE_NOTE = ("Each row is one category's 2×2 table: of the test texts, how many you coded with the category "
                       "(yes) or not (no), against whether the model put them in it (yes) or not (no). “Agree” cells "
                       "are where the model decided as you coded; “missed” and “added” are its mistakes.")


def write_confusion_sheet(workbook: Workbook, styles: Styles, result: ExperimentResult) -> Worksheet:
    if result.multi_label:
        return write_category_tables_sheet(workbook, styles, result)
    sheet = workbook.add_worksheet(SHEET)
    categories = result.categories
    label_width = max([text_width(CORNER) * 0.8, *(text_width(c) for c in categories)])
    sheet.set_column(0, 0, min(label_width, 50))
    count_width = max([10.0, *(min(text_width(word), 30) for c in categories for word in c.split())])
    sheet.set_column(1, len(categories) + 1, count_width)
    sheet.freeze_panes(0, 1)
    row = 0
    models = result.finished_models()
    if not models:
        sheet.write_string(0, 0, "No model finished, so there are no confusion matrices.", styles.muted)
    for model in models:
        matrix = model.test.confusion  # type: ignore[union-attr]
        sheet.write_string(row, 0, model.name, styles.title)
        row += 1
        sheet.set_row(row, 30)
        sheet.write_string(row, 0, CORNER, styles.header)
        for col, category in enumerate(categories, start=1):
            sheet.write_string(row, col, category, styles.header)
        sheet.write_string(row, len(categories) + 1, TOTAL, styles.header)
        first = row + 1
        for position, category in enumerate(categories):
            row += 1
            sheet.write_string(row, 0, category, styles.label)
            counts = matrix[position]
            for col, count in enumerate(counts, start=1):
                sheet.write_number(row, col, int(count), styles.count)
            sheet.write_number(row, len(categories) + 1, int(sum(counts)), styles.bold)
        row += 1
        sheet.write_string(row, 0, TOTAL, styles.label)
        for col in range(len(categories)):
            sheet.write_number(row, col + 1, int(sum(line[col] for line in matrix)), styles.bold)
        sheet.write_number(row, len(categories) + 1, int(sum(map(sum, matrix))), styles.bold)
        if categories:
            sheet.conditional_format(first, 1, first + len(categories) - 1, len(categories), styles.count_scale)
        row += 3
    return sheet


def category_table_rows(result: ExperimentResult, model: ModelResult) -> list[list[object]]:
    """One row per category: its name, the four cells of its 2×2 table, coded, predicted and all test texts."""
    rows = []
    for category, table in zip(result.categories, model.test.category_confusions or [], strict=True):  # type: ignore[union-attr]
        cells = [int(table[coded][predicted]) for _, coded, predicted in CATEGORY_CELLS]
        coded, predicted = cells[0] + cells[1], cells[0] + cells[2]
        rows.append([category, *cells, coded, predicted, sum(cells)])
    return rows


def write_category_tables_sheet(workbook: Workbook, styles: Styles, result: ExperimentResult) -> Worksheet:
    """The sheet of a study where a text can have several categories (see the module docstring)."""
    sheet = workbook.add_worksheet(MULTI_LABEL_SHEET)
    label_width = max([16.0, *(text_width(c) for c in result.categories)])
    sheet.set_column(0, 0, min(label_width, 50))
    sheet.set_column(1, len(CATEGORY_TABLE_HEADERS) - 1, 15)
    sheet.freeze_panes(0, 1)
    sheet.write_string(0, 0, CATEGORY_TABLE_NOTE, styles.muted)
    row = 2
    models = result.finished_models()
    if not models:
        sheet.write_string(row, 0, "No model finished, so there are no per-category tables.", styles.muted)
    formats = [None, *[styles.count] * (len(CATEGORY_TABLE_HEADERS) - 1)]
    for model in models:
        sheet.write_string(row, 0, model.name, styles.title)
        row += 1
        sheet.set_row(row, 45)
        for col, header in enumerate(CATEGORY_TABLE_HEADERS):
            sheet.write_string(row, col, header, styles.header)
        first = row + 1
        for values in category_table_rows(result, model):
            row += 1
            sheet.write_string(row, 0, str(values[0]), styles.label)
            write_cells(sheet, row, [None, *values[1:]], formats)
        if row >= first:  # per column of cells: agreements from white to blue, mistakes from white to orange
            for col in range(1, len(CATEGORY_CELLS) + 1):
                agree = CATEGORY_TABLE_HEADERS[col].endswith("(agree)")
                sheet.conditional_format(first, col, row, col, styles.count_scale if agree else MISTAKE_SCALE)
        row += 3
    return sheet
