"""The *Learning curve* sheet: per model and number of coded training texts, the mean test macro-F1
and its lowest and highest over the random draws, the per-category means, and the plain reading
(``experiment/learning_curve_reading.py``) — the numbers of the Results step's "Learning curve" tab."""

from __future__ import annotations

from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.export.excel_style import Styles

SHEET = "Learning curve"


def write_learning_curve_sheet(workbook: Workbook, styles: Styles, curve) -> Worksheet:  # noqa: ANN001
    """``curve``: a LearningCurveResult."""
    from guiapp.core.experiment.learning_curve_reading import read_curves

    sheet = workbook.add_worksheet(SHEET)
    headers = ["Model", "Coded training texts", "Mean test macro-F1", "Lowest", "Highest", "Draws",
               *(f"F1: {category}" for category in curve.categories)]
    sheet.set_column(0, 0, 40)
    sheet.set_column(1, len(headers) - 1, 14)
    row = 0
    for reading in read_curves(curve):
        sheet.write_string(row, 0, reading.words)
        row += 1
    row += 1
    sheet.set_row(row, 30)
    for col, header in enumerate(headers):
        sheet.write_string(row, col, header, styles.header)
    row += 1
    for model in curve.models:
        if not model.ok:
            sheet.write_string(row, 0, f"{model.name}: {model.message or model.status}", styles.muted)
            row += 1
            continue
        for point in model.summary():
            sheet.write_string(row, 0, model.name)
            sheet.write_number(row, 1, point.size, styles.count)
            for col, value in enumerate((point.mean, point.low, point.high), start=2):
                sheet.write_number(row, col, float(value))
            sheet.write_number(row, 5, point.repeats)
            for col, value in enumerate(point.category_means, start=6):
                sheet.write_number(row, col, float(value))
            row += 1
    return sheet
