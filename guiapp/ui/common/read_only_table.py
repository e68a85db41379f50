"""Tables to read, not to edit: :class:`ReadOnlyTable` as the Results and Findings steps show their
numbers (column titles with a tooltip each, whole rows selected, every other row tinted, no row
numbers, rows of one height); :func:`read_only_table` for lists of words whose rows grow with
their wrapped text (codebook versions, codings to re-check)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QWidget


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


def read_only_table(columns: Sequence[str], object_name: str, *, widths: Iterable[tuple[int, int]] = (),
                    stretch: Iterable[int] = (), rows_selectable: bool = True) -> QTableWidget:
    """A table with ``columns`` as headers, no row numbers and no editing; ``widths``: (column,
    pixels) pairs; ``stretch``: the columns that share the width left; ``rows_selectable``: whole
    rows can be chosen (else nothing can)."""
    table = QTableWidget(0, len(columns), objectName=object_name)
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    if rows_selectable:
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    else:
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.verticalHeader().hide()
    table.setWordWrap(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    for column in stretch:
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
    for column, width in widths:
        table.setColumnWidth(column, width)
    return table
