"""A coefficient from 0 to 1 drawn on a short line: its interval as a bar with end marks, the value as
a dot, and coloured zones behind where a convention reads the coefficient (Krippendorff's alpha:
below 0.667, 0.667 to 0.8, 0.8 and more). The line starts below 0 only when the value or its interval
does. Tick labels that would overlap are left out, the less important first."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from guiapp.ui import theme


def draw_interval(painter: QPainter, x: Callable[[float], float], middle: float,
                  interval: tuple[float, float], width: float = 2.2) -> None:
    """An interval as a bar with end marks at height ``middle`` (``x``: value → pixel); nothing when unknown."""
    low, high = interval
    if math.isfinite(low) and math.isfinite(high):
        painter.setPen(QPen(QColor(theme.DARK_TEXT), width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        painter.drawLine(QPointF(x(low), middle), QPointF(x(high), middle))
        for end in (low, high):
            painter.drawLine(QPointF(x(end), middle - 5), QPointF(x(end), middle + 5))


def draw_value(painter: QPainter, x: Callable[[float], float], middle: float, value: float, size: float) -> None:
    """A value as a dot of ``size`` pixels; nothing when unknown."""
    if math.isfinite(value):
        painter.setPen(QPen(QColor(theme.WHITE), 1.5))
        painter.setBrush(QColor(theme.ACCENT))
        painter.drawEllipse(QRectF(x(value) - size / 2, middle - size / 2, size, size))


class IntervalStrip(QWidget):
    """A coefficient on a line from 0 (or below) to 1: its interval as a bar, the value as a dot,
    optional coloured zones behind (the usual reading of Krippendorff's alpha)."""

    def __init__(self, zones: Sequence[tuple[float, str]] = (), ticks: Sequence[float] = (0.0, 0.5, 1.0),
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.zones = tuple(zones)
        self.ticks = tuple(ticks)
        self.value = math.nan
        self.interval = (math.nan, math.nan)
        self.setMinimumWidth(160)
        self.setFixedHeight(34)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(240, 34)

    def show_value(self, value: float, interval: tuple[float, float]) -> None:
        self.value, self.interval = value, interval
        self.update()

    def low_end(self) -> float:
        """The left end of the line: 0, or lower when the value or its interval is below 0."""
        lows = [v for v in (self.value, *self.interval) if math.isfinite(v)]
        return min(0.0, math.floor(min(lows, default=0.0) * 4) / 4)

    def paintEvent(self, event) -> None:  # Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        left_end = self.low_end()
        margin = 8.0
        width = max(1.0, self.width() - 2 * margin)

        def x(v: float) -> float:
            return margin + (min(max(v, left_end), 1.0) - left_end) / (1.0 - left_end) * width

        middle = 10.0
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(theme.PAGE))
        painter.drawRoundedRect(QRectF(x(left_end), middle - 4, width, 8), 4, 4)
        start = left_end
        for end, colour in self.zones:
            painter.setBrush(QColor(colour))
            painter.drawRect(QRectF(x(max(start, left_end)), middle - 4, x(end) - x(max(start, left_end)), 8))
            start = end
        draw_interval(painter, x, middle, self.interval)
        draw_value(painter, x, middle, self.value, 11)
        font = QFont(self.font())
        font.setPointSizeF(max(6.5, font.pointSizeF() * 0.8))
        painter.setFont(font)
        painter.setPen(QColor(theme.HINT_TEXT))
        placed: list[tuple[float, float]] = []
        for tick in dict.fromkeys((left_end, *self.ticks)):  # by importance; one that would overlap is left out
            label = f"{tick:g}"
            advance = painter.fontMetrics().horizontalAdvance(label)
            left = min(max(0.0, x(tick) - advance / 2), self.width() - advance)
            if any(left < right + 4 and left + advance + 4 > other for other, right in placed):
                continue
            placed.append((left, left + advance))
            painter.drawText(QRectF(left, middle + 7, advance + 2, 16), Qt.AlignmentFlag.AlignLeft, label)
        painter.end()
