"""Row numbers as a user sees them in their spreadsheet.

A table read from a file remembers where its rows sit in that file: the spreadsheet row of its
first row of data (row 2 below a header in row 1; row 3 below a title row and the header; a text
file's header after two title lines: row 4, as Excel and LibreOffice number the lines they show)
and, for a workbook of several sheets, the sheet. It is kept in the frame's ``attrs``, which pandas
carries through copies, selections and Parquet snapshots, so every part that shows a row — the
data check, the Documents step, explanations, exports, predictions of uncoded rows — names the row
the researcher sees. The frame's index holds the positions of the rows in the table as read, so
a selection of rows (the uncoded ones, say) keeps each row's own number.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

ATTR = "textlab_rows"
FIRST_DATA_ROW = 2  # below a header in row 1


@dataclass(frozen=True)
class RowOrigin:
    """Where a table's rows sit in its file."""

    first_row: int = FIRST_DATA_ROW  # the spreadsheet row of the table's first row of data
    sheet: str | None = None  # named only when the workbook has several sheets

    def column_name(self) -> str:
        """The heading of a column of row numbers in an export."""
        return f"Row in sheet “{self.sheet}”" if self.sheet else "Row in your spreadsheet"


def row_origin(frame: pd.DataFrame | None) -> RowOrigin:
    """The origin recorded on ``frame`` (a header in row 1 when none was recorded)."""
    if frame is None:
        return RowOrigin()
    recorded = frame.attrs.get(ATTR)
    if not isinstance(recorded, dict):
        return RowOrigin()
    first = recorded.get("first_row")
    sheet = recorded.get("sheet")
    if not isinstance(first, int) or isinstance(first, bool) or first < 1:
        first = FIRST_DATA_ROW
    return RowOrigin(first, sheet if isinstance(sheet, str) and sheet else None)


def set_row_origin(frame: pd.DataFrame, origin: RowOrigin) -> pd.DataFrame:
    """Record ``origin`` on ``frame`` (in place) and return it."""
    frame.attrs[ATTR] = {"first_row": int(origin.first_row), "sheet": origin.sheet}
    return frame


def copy_row_origin(source: pd.DataFrame, target: pd.DataFrame) -> pd.DataFrame:
    """Give ``target`` (a frame built from ``source``'s rows) the same origin."""
    return set_row_origin(target, row_origin(source))


def spreadsheet_row(position: int, first_row: int = FIRST_DATA_ROW) -> int:
    """The row number a user sees for the table's row at ``position`` (0 = first row of data)."""
    return int(position) + int(first_row)


def table_positions(frame: pd.DataFrame) -> np.ndarray:
    """Each row's position in the table as read: the index, where it holds those positions (a
    selection of rows keeps them), else 0, 1, 2 …"""
    import pandas as pd
    index = frame.index
    if pd.api.types.is_integer_dtype(index.dtype) and (len(index) == 0 or int(index.min()) >= 0):
        return np.asarray(index, dtype=np.int64)
    return np.arange(len(frame), dtype=np.int64)


def spreadsheet_rows(frame: pd.DataFrame) -> np.ndarray:
    """The spreadsheet row of every row of ``frame``, in order."""
    return table_positions(frame) + row_origin(frame).first_row


def positions_of_rows(frame: pd.DataFrame, rows: Iterable[int]) -> np.ndarray:
    """Positions in ``frame`` (0-based, as read) of the spreadsheet ``rows``: the inverse of
    :func:`spreadsheet_rows` for a table as read."""
    return np.asarray(list(rows), dtype=np.int64) - row_origin(frame).first_row
