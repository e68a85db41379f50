"""The "Identical texts" section of the data-health report: each text that appears in more than
one row, with the rows (as numbered in the spreadsheet), their categories and whether they were
coded differently. A click on a line asks for those rows in the table."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.health.duplicates import repeated_words
from guiapp.core.health.findings import HealthReport
from guiapp.ui import theme
from guiapp.ui.steps.data.health_parts import muted_label, plural
from guiapp.ui.steps.data.report_table import fit_lines, report_table

DUPLICATE_ROWS_SHOWN = 4  # row numbers listed per identical-text group before "… +N more"
DUPLICATE_TABLE_MAX_LINES = 10


class IdenticalTexts:
    """Fills ``frame`` (a section of the report, laid out by ``layout``) with ``duplicates_caption``
    and ``duplicates_table``; ``line_chosen(line)`` is called when a line is clicked or activated."""

    def __init__(self, frame: QWidget, layout: QVBoxLayout, line_chosen: Callable[[int], None]) -> None:
        self.caption = muted_label("", frame, "duplicates_caption")
        layout.addWidget(self.caption)
        table = report_table(frame, "duplicates_table", ["Text", "Rows", "Categories", "Coded differently"], [
            "The beginning of the text that appears more than once.",
            "Where the text appears: row numbers as in your spreadsheet.",
            "The categories these rows were coded with.",
            "Marked when the same text was given different categories: decide which one is right.",
        ])
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setCursor(Qt.CursorShape.PointingHandCursor)
        header = table.horizontalHeader()
        for column, mode in enumerate([QHeaderView.ResizeMode.Stretch, QHeaderView.ResizeMode.ResizeToContents,
                                       QHeaderView.ResizeMode.Stretch, QHeaderView.ResizeMode.ResizeToContents]):
            header.setSectionResizeMode(column, mode)
        header.setMinimumSectionSize(60)
        table.cellClicked.connect(lambda line, _column: line_chosen(line))
        table.activated.connect(lambda index: line_chosen(index.row()))
        layout.addWidget(table)
        self.table = table

    def show(self, report: HealthReport) -> None:
        groups = report.duplicate_groups
        table = self.table
        table.setVisible(bool(groups))
        table.clearContents()
        table.setRowCount(len(groups))
        warn_brush = QColor(theme.SEVERITY_COLORS["warning"][1])
        for line, group in enumerate(groups):
            numbers = [str(report.spreadsheet_row(p)) for p in group.rows[:DUPLICATE_ROWS_SHOWN]]
            rows_text = ", ".join(numbers)
            if len(group.rows) > DUPLICATE_ROWS_SHOWN:
                rows_text += f" … +{len(group.rows) - DUPLICATE_ROWS_SHOWN:,} more"
            cells = [
                " ".join(group.text_preview.split()) or "(empty)",
                rows_text,
                ", ".join(group.categories) if group.categories else "not coded",
                "Yes" if group.conflicting else "",
            ]
            for column, value in enumerate(cells):
                item = QTableWidgetItem(value)
                full = group.text_preview if column == 0 else (
                    ", ".join(str(report.spreadsheet_row(p)) for p in group.rows[:200]) if column == 1 else value
                )
                item.setToolTip(f"{full}\n\nClick to show these {len(group.rows):,} rows in the table.".lstrip())
                if group.conflicting:
                    item.setBackground(warn_brush)
                    if column == 3:
                        bold = item.font()
                        bold.setBold(True)
                        item.setFont(bold)
                        item.setForeground(QColor(theme.SEVERITY_COLORS["warning"][2]))
                table.setItem(line, column, item)
        lines = min(len(groups), DUPLICATE_TABLE_MAX_LINES)
        fit_lines(table, lines)
        table.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAsNeeded if len(groups) > lines else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )
        if not groups:
            self.caption.set_plain_text("No text appears more than once.")
            return
        n_conflicting = sum(g.conflicting for g in groups)
        text = (f"{repeated_words(report.n_repeated_texts)} (spaces and capitals ignored): "
                f"{plural(len(groups), 'text')} {'appears' if len(groups) == 1 else 'appear'} in more than one row")
        if n_conflicting:
            text += f"; {n_conflicting:,} of them {'was' if n_conflicting == 1 else 'were'} coded differently (marked)"
        self.caption.set_plain_text(text + ". Click a line to see its rows in the table.")
