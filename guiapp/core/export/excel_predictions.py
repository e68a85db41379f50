"""The *Predictions* sheet: the user's table, untouched, and each model's block beside it.

Written row by row in chunks, so it works in XlsxWriter's ``constant_memory`` mode and can report
progress and be cancelled between chunks. Probabilities are shown as percentages (stored rounded
to 6 decimals, the precision of the model's float32 output) with a colour scale from white (0 %)
to green (100 %); each model's header cells share one fill colour.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.events import EventCallback, Progress
from guiapp.core.export.excel_cells import (
    CellFormats,
    column_width,
    text_width,
    write_frame_rows,
)
from guiapp.core.export.excel_style import Styles
from guiapp.core.export.predictions import (
    ModelColumns,
    ModelPredictions,
    model_columns,
    model_frame,
)

SHEET = "Predictions"
CHUNK_ROWS = 5_000
PROBABILITY_DECIMALS = 6
BLOCK_FILLS = ["#DCE6F1", "#E2EFDA", "#FCE4D6", "#EDE1F2", "#FFF2CC", "#DDEBF7"]


def _model_chunk(block: ModelColumns, start: int, stop: int) -> pd.DataFrame:
    frame = model_frame(block, start, stop)
    for column in block.probabilities:
        frame[column] = np.round(frame[column].to_numpy(dtype=np.float64), PROBABILITY_DECIMALS)
    return frame


def _widths(sheet: Worksheet, table: pd.DataFrame, blocks: list[ModelColumns]) -> float:
    """Set every column's width; returns the tallest header's line count (for the header row)."""
    sample = min(len(table), 500)
    lines = 1.0
    for col in range(table.shape[1]):
        header = str(table.columns[col])
        width = column_width(header, table.iloc[:sample, col])
        sheet.set_column(col, col, width)
        lines = max(lines, text_width(header) / width)
    for block in blocks:
        frame = model_frame(block, 0, sample)
        for offset, name in enumerate(block.names):
            if name in block.probabilities:
                width = column_width(name, pd.Series(["100.0 %"]), header_cap=16)
            else:
                width = column_width(name, frame[name], header_cap=18)
            sheet.set_column(block.first + offset, block.first + offset, width)
            lines = max(lines, text_width(name) / width)
    return min(lines, 4.0)


def write_predictions_sheet(
    workbook: Workbook,
    styles: Styles,
    table: pd.DataFrame,
    models: Sequence[ModelPredictions],
    on_event: EventCallback,
    start: float = 0.0,
    end: float = 1.0,
) -> Worksheet:
    """Add the sheet and fill it; progress runs from ``start`` to ``end``."""
    sheet = workbook.add_worksheet(SHEET)
    blocks = model_columns(table, models)
    rows = len(table)
    lines = _widths(sheet, table, blocks)
    sheet.set_row(0, 15 * max(1.0, np.ceil(lines)))
    sheet.freeze_panes(1, 0)
    for col, name in enumerate(table.columns):
        sheet.write_string(0, col, str(name), styles.header)
    for block in blocks:
        header = styles.block_header(BLOCK_FILLS[block.block % len(BLOCK_FILLS)])
        for offset, name in enumerate(block.names):
            sheet.write_string(0, block.first + offset, name, header)
    last_column = (blocks[-1].first + len(blocks[-1].names) - 1) if blocks else table.shape[1] - 1
    if last_column >= 0:
        sheet.autofilter(0, 0, max(rows, 1), last_column)
    for block in blocks:
        first = block.first + 1
        last = block.first + len(block.probabilities)
        if rows:
            sheet.conditional_format(1, first, rows, last, styles.probability_scale)
    cells = CellFormats(styles.date, styles.datetime, styles.time)
    percent = {
        block.first + 1 + position: styles.percent
        for block in blocks
        for position in range(len(block.probabilities))
    }
    span = end - start
    for first in range(0, rows, CHUNK_ROWS):
        stop = min(first + CHUNK_ROWS, rows)
        parts = [table.iloc[first:stop].reset_index(drop=True)]
        parts += [_model_chunk(block, first, stop) for block in blocks]
        chunk = pd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
        write_frame_rows(sheet, chunk, first + 1, cells, percent)
        on_event(
            Progress(
                start + span * stop / rows,
                f"Writing predictions: {stop:,} of {rows:,} rows",
                done=stop,
                total=rows,
            )
        )
    return sheet
