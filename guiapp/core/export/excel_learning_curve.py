"""The *Learning curve* sheet: per model and number of coded training texts, the mean test macro-F1
and its lowest and highest over the random draws, the per-category means, and the plain reading
(``experiment/curves/learning_curve_reading.py``) — the numbers of the Results step's "Learning curve" tab.

A language model with your codebook learns nothing from the coded texts; its curve is over the
examples per category shown in its prompt (``ModelCurve.over_examples``). Its rows give that number
in a column of its own, "Examples per category in the prompt" (there only when the curve has such
a model), and leave "Coded training texts" empty, so the two are never read as one axis."""

from __future__ import annotations

from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.export.excel_cells import text_width, write_cells
from guiapp.core.export.excel_style import Styles

SHEET = "Learning curve"
EXAMPLES_HEADER = "Examples per category in the prompt"  # a language model with your codebook's curve
MAX_FROZEN_ROWS = 8  # the sentences above the table stay in view with its header, unless they are many


def write_learning_curve_sheet(workbook: Workbook, styles: Styles, curve) -> Worksheet:  # noqa: ANN001
    """``curve``: a LearningCurveResult."""
    from guiapp.core.experiment.curves.learning_curve_reading import read_curves

    sheet = workbook.add_worksheet(SHEET)
    examples = any(model.over_examples for model in curve.models)  # a column of its own for such curves
    headers = ["Model", "Coded training texts", *([EXAMPLES_HEADER] if examples else []), "Mean test macro-F1", "Lowest", "Highest", "Draws",
               *(f"F1: {category}" for category in curve.categories)]
    names = [model.name for model in curve.models]
    sheet.set_column(0, 0, min(max([24.0, *(text_width(name) for name in names)]), 50))
    sheet.set_column(1, len(headers) - 1, 14)
    formats = [None, styles.count, *([styles.count] if examples else []), styles.score, styles.score, styles.score, styles.count,
               *[styles.score] * len(curve.categories)]
    row = 0
    for reading in read_curves(curve):
        sheet.write_string(row, 0, reading.words)
        row += 1
    row += 1
    sheet.set_row(row, 30)
    for col, header in enumerate(headers):
        sheet.write_string(row, col, header, styles.header)
    header_row = row
    sheet.freeze_panes(header_row + 1 if header_row <= MAX_FROZEN_ROWS else 0, 1)
    row += 1
    for model in curve.models:
        if not model.ok:
            sheet.write_string(row, 0, f"{model.name}: {model.message or model.status}", styles.muted)
            row += 1
            continue
        for point in model.summary():
            sizes = ([None, point.size] if model.over_examples else [point.size, None]) if examples else [point.size]
            write_cells(sheet, row, [model.name, *sizes, point.mean, point.low, point.high, point.repeats,
                                     *point.category_means], formats)
            row += 1
    if row > header_row + 1:
        sheet.autofilter(header_row, 0, row - 1, len(headers) - 1)
    return sheet
