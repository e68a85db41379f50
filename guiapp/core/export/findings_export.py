"""The findings as a file: an Excel workbook with the shares (overall and per group), the differences
between groups, the regression and a sheet that says how they were estimated; or the shares as CSV.
Written whole or not at all, never over the files the texts came from."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import xlsxwriter

from guiapp.core.export.excel_findings import (
    DIFFERENCE_FORMATS,
    REGRESSION_FORMATS,
    SHARE_FORMATS,
    how_estimated,
    write_table_sheet,
)
from guiapp.core.export.excel_style import Styles
from guiapp.core.export.prediction_files import check_output_name
from guiapp.core.export.target import writing_to

FORMATS = (".xlsx", ".csv")


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
        write_table_sheet(workbook, styles, "Shares", shares, SHARE_FORMATS)
        if findings.differences:
            write_table_sheet(workbook, styles, "Differences", findings.differences_frame(), DIFFERENCE_FORMATS)
        if regression is not None:
            write_table_sheet(workbook, styles, "Regression", regression.to_frame(), REGRESSION_FORMATS)
        method = workbook.add_worksheet("How estimated")
        method.set_column(0, 0, 110, styles.wrap)
        lines = how_estimated(findings)
        if regression is not None:
            lines += ["", f"Regression {regression.formula} ({regression.kind}): {regression.method} "
                      f"{regression.assumption}"]
        method.write(0, 0, "How the findings were estimated", styles.title)
        for row, line in enumerate(lines, start=2):
            method.write_string(row, 0, line, styles.wrap)
        workbook.close()
    return Path(path)
