"""A table cell that wraps its text over a few lines and ends the last one with “…” when the text is
longer (a coded text in a list of texts; the whole text stays in the cell's tooltip).

Qt's own delegate wraps but then cuts the text at the cell's edge, half a line showing."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPointF, QSize, Qt
from PySide6.QtGui import QFontMetricsF, QPainter, QPalette, QTextLayout, QTextOption
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

PADDING = 6  # pixels between the cell's edge and its text


class ElidedTextDelegate(QStyledItemDelegate):
    """Draws a cell's text wrapped over at most ``lines`` lines, vertically centred."""

    def __init__(self, lines: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines = max(1, int(lines))

    def row_height(self, widget: QWidget) -> int:
        """The height of a row that shows ``lines`` lines of ``widget``'s font."""
        return int(QFontMetricsF(widget.font()).lineSpacing() * self.lines + 2 * PADDING + 2)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(hint.width(), int(QFontMetricsF(option.font).lineSpacing() * self.lines + 2 * PADDING))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = opt.rect.adjusted(PADDING, PADDING, -PADDING, -PADDING)
        if not text or rect.width() <= 0:
            return
        shown = wrapped_lines(text, opt.font, rect.width(), self.lines)
        metrics = QFontMetricsF(opt.font)
        spacing = metrics.lineSpacing()
        top = rect.top() + max(0.0, (rect.height() - spacing * len(shown)) / 2)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.save()
        painter.setClipRect(opt.rect)
        painter.setFont(opt.font)
        painter.setPen(opt.palette.color(role))
        for number, line in enumerate(shown):
            painter.drawText(QPointF(rect.left(), top + number * spacing + metrics.ascent()), line)
        painter.restore()


def wrapped_lines(text: str, font, width: float, most: int) -> list[str]:  # a QFont
    """``text`` broken into lines no wider than ``width`` pixels, at most ``most`` of them; the last
    ends with “…” when the text goes on."""
    text = " ".join(text.split())
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.beginLayout()
    spans: list[tuple[int, int]] = []
    while len(spans) < most:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        spans.append((line.textStart(), line.textLength()))
    layout.endLayout()
    units = text.encode("utf-16-le")  # Qt counts UTF-16 code units, Python code points

    def piece(start: int, length: int | None = None) -> str:
        end = len(units) if length is None else 2 * (start + length)
        return units[2 * start:end].decode("utf-16-le", errors="ignore")

    lines = [piece(start, length).rstrip() for start, length in spans]
    if spans:
        start, length = spans[-1]
        if start + length < len(units) // 2:
            rest = piece(start)
            lines[-1] = QFontMetricsF(font).elidedText(rest, Qt.TextElideMode.ElideRight, width)
    return lines
