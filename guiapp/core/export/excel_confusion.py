"""The *Confusion matrices* sheet: one block per finished model, counts of test texts.

Rows are your coding, columns the model's prediction, both in the order of the categories, with
row and column totals; the diagonal is where the model agrees with you. A colour scale per block
makes the large counts stand out. Written top to bottom (``constant_memory`` safe).
"""

from __future__ import annotations

from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.experiment.results import ExperimentResult
from guiapp.core.export.excel_cells import text_width
from guiapp.core.export.excel_style import Styles

SHEET = "Confusion matrices"
CORNER = "Your coding ↓  ·  model's prediction →"
TOTAL = "Total"


def write_confusion_sheet(workbook: Workbook, styles: Styles, result: ExperimentResult) -> Worksheet:
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
