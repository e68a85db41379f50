"""The *Word attributions* sheet (top words per explained document) and, when explanations were
checked, the small *Explanation faithfulness* sheet (mean comprehensiveness and sufficiency per
model and method). Same look as the other sheets: bold frozen header, widths, number formats;
written top to bottom, so ``constant_memory`` mode works too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.export.attributions_table import attribution_rows, faithfulness_summary
from guiapp.core.export.excel_cells import CellFormats, column_width, text_width, write_frame_rows
from guiapp.core.export.excel_style import Styles

SHEET = "Word attributions"
FAITHFULNESS_SHEET = "Explanation faithfulness"
SCORE_FORMAT = "+0.000;-0.000;0.000"
NOTE_LINES = [
    "Comprehensiveness: how much the probability of the category drops when the top k words are removed "
    "(large = the model relied on them).",
    "Sufficiency: how much it drops when only the top k words are kept (small = they are enough for the decision).",
]


def _write_table(sheet: Worksheet, styles: Styles, frame: pd.DataFrame, first_row: int,
                 column_formats: dict[int, object], caps: dict[str, int] | None = None) -> None:
    caps = caps or {}
    for col, header in enumerate(frame.columns):
        width = column_width(str(header), frame.iloc[:, col], header_cap=16, cap=caps.get(str(header), 50))
        sheet.set_column(col, col, width)
        sheet.write_string(first_row, col, str(header), styles.header)
    lines = max((text_width(str(h)) / 16 for h in frame.columns), default=1.0)
    sheet.set_row(first_row, 15 * min(max(lines, 1.0), 3.0))
    formats = CellFormats(styles.date, styles.datetime, styles.time)
    write_frame_rows(sheet, frame, first_row + 1, formats, column_formats)  # type: ignore[arg-type]


def write_attributions_sheets(workbook: Workbook, styles: Styles, documents: Iterable[Sequence]) -> list[Worksheet]:
    """Add the sheet(s); returns them."""
    documents = list(documents)
    score = workbook.add_format({"num_format": SCORE_FORMAT})
    rows = attribution_rows(documents)
    sheet = workbook.add_worksheet(SHEET)
    columns = list(rows.columns)
    column_formats = {columns.index("Probability"): styles.percent}
    for name in ("Score", "Comprehensiveness", "Sufficiency"):
        column_formats[columns.index(name)] = score
    _write_table(sheet, styles, rows, 0, column_formats, {"Text (beginning)": 40})
    sheet.freeze_panes(1, 1)
    if len(rows):
        sheet.autofilter(0, 0, len(rows), len(columns) - 1)
    else:
        sheet.write_string(1, 0, "No explained documents.", styles.muted)
    sheets = [sheet]
    summary = faithfulness_summary(documents)
    if len(summary):
        small = workbook.add_worksheet(FAITHFULNESS_SHEET)
        names = list(summary.columns)
        formats = {names.index("Mean comprehensiveness"): score, names.index("Mean sufficiency"): score,
                   names.index("Documents"): styles.count}
        _write_table(small, styles, summary, 0, formats)
        small.freeze_panes(1, 0)
        for offset, sentence in enumerate(NOTE_LINES):  # below the table: rows stay top to bottom
            small.write_string(len(summary) + 2 + offset, 0, sentence, styles.muted)
        sheets.append(small)
    return sheets
