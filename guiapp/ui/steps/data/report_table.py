"""The small read-only tables of the data-health report (identical texts, combinations of
categories): one look, and a height that shows a given number of lines without scrolling."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QSizePolicy, QTableWidget, QWidget


def report_table(parent: QWidget, name: str, headers: Sequence[str], tips: Sequence[str]) -> QTableWidget:
    """A table with titled columns (each with its tooltip), no row numbers, not editable, one line a
    row, alternating colours, never scrolling sideways, and as tall as :func:`fit_lines` makes it."""
    table = QTableWidget(0, len(headers), parent)
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(list(headers))
    for column, tip in enumerate(tips):
        table.horizontalHeaderItem(column).setToolTip(tip)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setWordWrap(False)
    table.setAlternatingRowColors(True)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return table


def fit_lines(table: QTableWidget, lines: int) -> None:
    """Make ``table`` exactly as tall as its header and its first ``lines`` rows."""
    height = table.horizontalHeader().sizeHint().height() + sum(
        table.verticalHeader().sectionSize(i) for i in range(lines)) + 2 * table.frameWidth() + 2
    table.setFixedHeight(height)
