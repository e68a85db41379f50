"""The *Groups of texts* sheet: the scores per value of one column of the table (party, year,
outlet) that the Results step's "Groups of texts" tab showed — per model and group the test texts,
macro-F1 and share wrong with their intervals, and the verdict in words (``experiment/scores/subgroup_scores.py``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from xlsxwriter.format import Format
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.export.excel_cells import column_width, write_cells
from guiapp.core.export.excel_style import Styles

SHEET = "Groups of texts"
MAX_FROZEN_ROWS = 8  # the sentences above the table stay in view with its header, unless they are many
SENTENCE_WIDTH = 80


def column_format(header: str, series: pd.Series, styles: Styles) -> Format | None:
    """By what a column holds: shares as percentages, counts whole, scores with three decimals;
    None for text (a column of numbers with gaps, e.g. a score left out for some groups, counts
    as numbers)."""
    values = series.dropna().tolist()
    if not values or not all(isinstance(v, int | float | np.number) and not isinstance(v, bool | np.bool_)
                             for v in values):
        return None
    name = header.lower()
    if "share" in name or "rate" in name:
        return styles.percent
    if "texts" in name or all(float(v).is_integer() and not isinstance(v, float | np.floating) for v in values):
        return styles.count
    return styles.score


def write_subgroups_sheet(workbook: Workbook, styles: Styles, scores) -> Worksheet:  # noqa: ANN001
    """``scores``: a SubgroupScores."""
    from guiapp.core.experiment.scores.subgroup_scores import subgroup_table

    sheet = workbook.add_worksheet(SHEET)
    table = subgroup_table(scores)
    formats = [column_format(str(header), table[header], styles) for header in table.columns]
    for col, header in enumerate(table.columns):
        series = table[header]
        if str(header) == "sentence":
            sheet.set_column(col, col, SENTENCE_WIDTH, styles.wrap)
        elif formats[col] is not None:
            sheet.set_column(col, col, column_width(str(header), pd.Series(["100.0 %"]), header_cap=14))
        else:
            sheet.set_column(col, col, column_width(str(header), series, header_cap=16, cap=40))
    row = 0
    for sentence in scores.headline:
        sheet.write_string(row, 0, sentence)
        row += 1
    row += 1
    sheet.set_row(row, 30)
    for col, header in enumerate(table.columns):
        sheet.write_string(row, col, str(header), styles.header)
    header_row = row
    sheet.freeze_panes(header_row + 1 if header_row <= MAX_FROZEN_ROWS else 0, 2)
    for values in table.itertuples(index=False):
        row += 1
        write_cells(sheet, row, list(values), formats, styles.wrap)
    if row > header_row:
        sheet.autofilter(header_row, 0, row, len(table.columns) - 1)
    return sheet
