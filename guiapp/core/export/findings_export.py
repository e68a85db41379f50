"""The findings as a file: an Excel workbook with the shares (overall and per group), the differences
between groups, the regression and a sheet that says how they were estimated; or the shares as CSV.
Written whole or not at all, never over the files the texts came from."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd
import xlsxwriter

from guiapp.core.export.excel_cells import CellFormats, column_width, write_frame_rows
from guiapp.core.export.excel_style import Styles
from guiapp.core.export.prediction_files import check_output_name
from guiapp.core.export.target import writing_to

FORMATS = (".xlsx", ".csv")
SHARE_COLUMNS = {  # the columns that hold shares (or differences of shares), written as percentages
    "Shares": {"share", "low", "high", "standard error", "classify and count", "classify and count low",
               "classify and count high", "mean probability", "coded texts alone", "coded texts alone low",
               "coded texts alone high"},
    "Differences": {"difference", "low", "high", "standard error", "classify and count"},
}


def write_findings(path: str | Path, findings, regression=None, *, overwrite: bool = True,  # noqa: ANN001
                   protected: Iterable[str | Path] = ()) -> Path:
    """Write ``findings`` (and ``regression``, when one was fitted) to ``path`` (.xlsx or .csv)."""
    suffix = check_output_name(path, FORMATS, ".xlsx (Excel) or .csv")
    shares = findings.to_frame()
    if suffix == ".csv":
        with writing_to(path, overwrite, protected) as temporary:
            shares.to_csv(temporary, index=False, encoding="utf-8-sig")
        return Path(path)
    with writing_to(path, overwrite, protected) as temporary:
        workbook = xlsxwriter.Workbook(str(temporary), {"nan_inf_to_errors": True})
        styles = Styles(workbook)
        _sheet(workbook, styles, "Shares", shares)
        if findings.differences:
            _sheet(workbook, styles, "Differences", findings.differences_frame())
        if regression is not None:
            _sheet(workbook, styles, "Regression", regression.to_frame())
        method = workbook.add_worksheet("How estimated")
        method.set_column(0, 0, 110, styles.wrap)
        lines = [findings.assumption, f"Estimated by {findings.method}.", *findings.warnings, "",
                 findings.methods_paragraph()]
        if regression is not None:
            lines += ["", f"Regression {regression.formula} ({regression.kind}): {regression.method} "
                      f"{regression.assumption}"]
        method.write(0, 0, "How the findings were estimated", styles.title)
        for row, line in enumerate(lines, start=2):
            method.write_string(row, 0, line, styles.wrap)
        workbook.close()
    return Path(path)


def _sheet(workbook, styles: Styles, name: str, frame: pd.DataFrame) -> None:  # noqa: ANN001
    sheet = workbook.add_worksheet(name)
    shares = {}
    for column, title in enumerate(frame.columns):
        sheet.write_string(0, column, str(title), styles.header)
        sheet.set_column(column, column, column_width(str(title), frame.iloc[:, column]))
        if str(title) in SHARE_COLUMNS.get(name, ()):
            shares[column] = styles.percent
    write_frame_rows(sheet, frame, 1, CellFormats(styles.date, styles.datetime, styles.time), shares)
    sheet.freeze_panes(1, 0)
    sheet.autofilter(0, 0, len(frame), max(0, len(frame.columns) - 1))
