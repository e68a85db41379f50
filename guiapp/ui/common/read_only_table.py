"""A table to read, not to edit, as the Results and Findings steps show their numbers: column titles
with a tooltip each, whole rows selected, every other row tinted, no row numbers."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QWidget


class ReadOnlyTable(QTableWidget):
    """Empty at first, with a column for each of ``titles`` (``tips``: their tooltips, in order) and
    rows ``row_height`` pixels high."""

    def __init__(self, titles: Sequence[str], tips: Sequence[str], row_height: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(0, len(titles), parent)
        self.set_titles(titles, tips)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(row_height)

    def set_titles(self, titles: Sequence[str], tips: Sequence[str]) -> None:
        """The column titles and their tooltips (e.g. other ones for a study with several categories)."""
        self.setHorizontalHeaderLabels(list(titles))
        for column, tip in enumerate(tips):
            self.horizontalHeaderItem(column).setToolTip(tip)
