"""The *Groups of texts* sheet: the scores per value of one column of the table (party, year,
outlet) that the Results step's "Groups of texts" tab showed — per model and group the test texts,
macro-F1 and share wrong with their intervals, and the verdict in words (``experiment/subgroup_scores.py``)."""

from __future__ import annotations

import math

from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.export.excel_style import Styles

SHEET = "Groups of texts"


def write_subgroups_sheet(workbook: Workbook, styles: Styles, scores) -> Worksheet:  # noqa: ANN001
    """``scores``: a SubgroupScores."""
    from guiapp.core.experiment.subgroup_scores import subgroup_table

    sheet = workbook.add_worksheet(SHEET)
    table = subgroup_table(scores)
    sheet.set_column(0, 1, 30)
    sheet.set_column(2, len(table.columns) - 2, 13)
    sheet.set_column(len(table.columns) - 1, len(table.columns) - 1, 80, styles.wrap)
    row = 0
    for sentence in scores.headline:
        sheet.write_string(row, 0, sentence)
        row += 1
    row += 1
    sheet.set_row(row, 30)
    for col, header in enumerate(table.columns):
        sheet.write_string(row, col, str(header), styles.header)
    for values in table.itertuples(index=False):
        row += 1
        for col, value in enumerate(values):
            if isinstance(value, int | float) and not isinstance(value, bool):
                if math.isfinite(float(value)):
                    sheet.write_number(row, col, float(value))
            elif value is not None:
                sheet.write_string(row, col, str(value))
    return sheet
