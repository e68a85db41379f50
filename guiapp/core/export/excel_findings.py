"""The findings in a workbook: the categories' shares (overall and per group) as percentages, the
differences between groups, and how they were estimated. The results workbook gets them as its
*Findings* sheets; the Findings step's own workbook (``findings_export``) uses the same tables."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from guiapp.core.export.excel_cells import CellFormats, column_width, write_frame_rows
from guiapp.core.export.excel_style import Styles

# each column's number format (a style of ``Styles``): shares and their differences as percentages
SHARE_FORMATS = dict.fromkeys(("share", "low", "high", "standard error", "classify and count", "classify and count low",
                               "classify and count high", "mean probability", "coded texts alone",
                               "coded texts alone low", "coded texts alone high"), "percent")
DIFFERENCE_FORMATS = {**dict.fromkeys(("difference", "low", "high", "standard error", "classify and count"),
                                      "percent"), "p-value": "p_value"}
REGRESSION_FORMATS = {**dict.fromkeys(("estimate", "standard error", "z", "low", "high", "odds ratio",
                                       "odds ratio low", "odds ratio high"), "score"), "p-value": "p_value"}


def write_findings_sheets(workbook, styles: Styles, findings) -> None:  # noqa: ANN001
    """The *Findings* sheet of the results workbook (the shares, and below them how they were
    estimated) and *Findings differences* when groups were compared."""
    sheet = write_table_sheet(workbook, styles, "Findings", findings.to_frame(), SHARE_FORMATS)
    first = len(findings.shares) + 2
    sheet.write_string(first, 0, "How the shares were estimated", styles.header)
    for row, line in enumerate(how_estimated(findings), start=first + 1):
        sheet.write_string(row, 0, line)
    if findings.differences:
        write_table_sheet(workbook, styles, "Findings differences", findings.differences_frame(), DIFFERENCE_FORMATS)


def how_estimated(findings) -> list[str]:  # noqa: ANN001
    """What was assumed, the estimator, the warnings and the methods paragraph, a line each."""
    note = getattr(findings, "model_note", "")  # a language model's labels: a model's predictions, never the truth
    return [findings.assumption, f"Estimated by {findings.method}.", *([note] if note else []), *findings.warnings,
            "", findings.methods_paragraph()]


def write_table_sheet(workbook, styles: Styles, name: str, frame: pd.DataFrame,  # noqa: ANN001
                      number_formats: Mapping[str, str]):  # noqa: ANN202 — the worksheet
    """A sheet holding ``frame`` with a frozen, filterable header; ``number_formats``: column → the
    name of its style (``"percent"``, ``"p_value"``, ``"score"``)."""
    sheet = workbook.add_worksheet(name)
    formats = {}
    for column, title in enumerate(frame.columns):
        sheet.write_string(0, column, str(title), styles.header)
        sheet.set_column(column, column, column_width(str(title), frame.iloc[:, column]))
        if str(title) in number_formats:
            formats[column] = getattr(styles, number_formats[str(title)])
    write_frame_rows(sheet, frame, 1, CellFormats(styles.date, styles.datetime, styles.time), formats)
    sheet.freeze_panes(1, 0)
    sheet.autofilter(0, 0, len(frame), max(0, len(frame.columns) - 1))
    return sheet
