"""Tables that are as tall as their rows, so that the page scrolls rather than the table."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget

ROW_HEIGHT = 26  # the least height of a row: one line of text with some air


def fit_rows(table: QTableWidget, air: int, least: int = ROW_HEIGHT) -> int:
    """Make every row as tall as its (wrapped) text plus ``air`` pixels, at least ``least``; returns
    the height that shows the header and all rows without a vertical scroll bar (with room for the
    horizontal one when the columns are wider than the table)."""
    table.resizeRowsToContents()
    for row in range(table.rowCount()):
        table.setRowHeight(row, max(least, table.rowHeight(row) + air))
    rows = sum(table.rowHeight(row) for row in range(table.rowCount()))
    height = table.horizontalHeader().sizeHint().height() + rows + 2 * table.frameWidth() + 2
    if table.horizontalHeader().length() > table.viewport().width():
        height += table.horizontalScrollBar().sizeHint().height()
    return height
