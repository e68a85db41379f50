"""The shares of the categories in a corpus, one row each: the share with its interval drawn on a
common scale, the naive count of the model's answers as a faint mark beside it (for contrast), the
interval in numbers, the share among the coded texts alone, and how many texts were coded."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QHeaderView, QSizePolicy, QTableWidgetItem, QWidget

from guiapp.ui import theme
from guiapp.ui.common.interval_strip import draw_interval, draw_value
from guiapp.ui.common.read_only_table import ReadOnlyTable

GROUP, CATEGORY, SHARE, INTERVAL, STRIP, NAIVE, CODED_ONLY, N_CODED = range(8)
STRIP_WIDTH = 230
ALL_TEXTS = "all texts"
TITLES = ("Group", "Category", "Share", "95 % interval", "", "Counting the model's answers",
          "Coded texts alone", "Coded texts")
TIPS = ("The value of the column the shares are given per.",
        "The category.",
        "The share of the texts in this category, estimated from the model's answers and corrected by its "
        "mistakes on texts it never learned from.",
        "95 % of intervals made this way contain the true share.",
        "Dot and bar: the share and its interval. Hollow mark: what counting the model's answers gives.",
        "The share of texts the model puts in the category, with the usual interval. It ignores the model's "
        "mistakes, so it can be off by more than its interval says.",
        "The share among the coded texts alone: honest, but from far fewer texts, so its interval is wider.",
        "How many coded texts measured the model's mistakes here.")


def percent(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{100 * value:.1f} %"


def span(low: float, high: float) -> str:
    """An interval in few characters: "6.1–7.2 %"."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "–"
    return f"{100 * low:.1f}–{100 * high:.1f} %"


class ShareStrip(QWidget):
    """One share on a line from 0 to ``top``: its interval as a bar, the share as a dot, the naive
    count as a hollow mark."""

    def __init__(self, share: float, interval: tuple[float, float], naive: float, top: float,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.share, self.interval, self.naive, self.top = share, interval, naive, max(top, 1e-9)
        self.setMinimumWidth(60)  # the table gives it what the window leaves (at least 100)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(220, 24)

    def paintEvent(self, event) -> None:  # Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        margin, middle = 8.0, self.height() / 2
        width = max(1.0, self.width() - 2 * margin)

        def x(v: float) -> float:
            return margin + min(max(v, 0.0), self.top) / self.top * width

        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(theme.PAGE))
        painter.drawRoundedRect(QRectF(margin, middle - 3, width, 6), 3, 3)
        draw_interval(painter, x, middle, self.interval, 2.0)
        if math.isfinite(self.naive):
            painter.setPen(QPen(QColor(theme.HINT_TEXT), 1.6))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(x(self.naive) - 4, middle - 4, 8, 8))
        draw_value(painter, x, middle, self.share, 10)
        painter.end()


class SharesTable(ReadOnlyTable):
    """Rows of shares (``Share`` records of the findings): the whole corpus, or one group after another."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(TITLES, TIPS, 28, parent)
        self.setObjectName("sharesTable")
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for column in (CATEGORY, STRIP, NAIVE, CODED_ONLY):  # share what the window leaves (``_fit``)
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # never scrolls sideways
        self.setColumnWidth(STRIP, STRIP_WIDTH)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setWordWrap(False)

    def set_shares(self, shares: Sequence) -> None:  # noqa: ANN001 — Share records
        """Show ``shares``; the Group column only when they belong to groups."""
        shares = list(shares)
        top = max([s.high for s in shares if math.isfinite(s.high)] + [s.naive for s in shares], default=1.0)
        top = min(1.0, math.ceil(top * 20 + 0.5) / 20)  # a round share a little above the largest
        self.horizontalHeaderItem(STRIP).setText(f"0 – {percent(top)}")
        self.setRowCount(0)  # the strips drawn before go with their rows
        self.setRowCount(len(shares))
        for row, share in enumerate(shares):
            rough = bool(share.warning)
            interval = span(share.low, share.high) + (" ⚠" if rough else "")
            cells = (share.group if share.group is not None else ALL_TEXTS, share.category, percent(share.estimate),
                     interval, "", f"{percent(share.naive)}  ({span(share.naive_low, share.naive_high)})",
                     f"{percent(share.coded_only)}  ({span(share.coded_only_low, share.coded_only_high)})",
                     f"{share.n_coded:,}")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column in (SHARE, N_CODED):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == SHARE:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                if column in (NAIVE, CODED_ONLY) or rough:  # a rough interval (few coded texts) is greyed
                    item.setForeground(QColor(theme.HINT_TEXT if rough else theme.SOFT_TEXT))
                if share.warning:
                    item.setToolTip(share.warning)
                elif column in (CATEGORY, NAIVE, CODED_ONLY):
                    item.setToolTip(text)  # shortened with "…" when the window is narrow
                self.setItem(row, column, item)
            self.setCellWidget(row, STRIP, ShareStrip(share.estimate, (share.low, share.high), share.naive, top))
        self.setColumnHidden(GROUP, not any(share.group is not None for share in shares))
        self.resizeColumnsToContents()
        self._fit()

    def resizeEvent(self, event) -> None:  # Qt's name
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """Give the category, the strip and the two contrast columns the width the fixed columns leave,
        so that the table fits its window (texts too long are shortened with "…", the whole in the tooltip)."""
        free = self.viewport().width() - sum(self.columnWidth(c) for c in (GROUP, SHARE, INTERVAL, N_CODED)
                                             if not self.isColumnHidden(c))
        wanted = {c: max(self.sizeHintForColumn(c), self.horizontalHeader().sectionSizeHint(c))
                  for c in (CATEGORY, NAIVE, CODED_ONLY)}
        strip = int(min(STRIP_WIDTH, max(100, free - sum(wanted.values()))))
        self.setColumnWidth(STRIP, strip)
        rest = max(0, free - strip)
        total = sum(wanted.values()) or 1
        for column, width in wanted.items():
            self.setColumnWidth(column, int(min(width, rest * width / total)) if total > rest else width)

    def cell_text(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""
