"""A layout that places its widgets side by side and wraps them onto the next line when the row is
too narrow — like words in a paragraph — so a row of buttons or filters never makes its panel
scroll sideways. An item wider than the whole row gets the row's width (an
:class:`~guiapp.ui.widgets.eliding_button.ElidingButton` then shortens its text)."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QWidget


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6, line_spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._line_spacing = line_spacing
        if parent is None:
            self.setContentsMargins(0, 0, 0, 0)

    # -- QLayout -------------------------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """Everything on one line (what the layout would like)."""
        shown = self._shown()
        width = sum(item.sizeHint().width() for item in shown) + self._spacing * max(len(shown) - 1, 0)
        height = max((item.sizeHint().height() for item in shown), default=0)
        return QSize(width, height).grownBy(self.contentsMargins())

    def minimumSize(self) -> QSize:
        """The widest single item (the narrowest the layout can be without cutting one)."""
        size = QSize()
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        return size.grownBy(self.contentsMargins())

    # -- placing ---------------------------------------------------------------------------------------
    def _shown(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _arrange(self, rect: QRect, move: bool) -> int:
        """Place the items in ``rect`` (when ``move``); returns the height they need."""
        margins: QMargins = self.contentsMargins()
        area = rect.marginsRemoved(margins)
        lines: list[list[tuple[QLayoutItem, QSize]]] = [[]]
        x = 0
        for item in self._shown():
            hint = item.sizeHint()
            width = max(min(hint.width(), area.width()), item.minimumSize().width())
            if lines[-1] and x + width > area.width():
                lines.append([])
                x = 0
            lines[-1].append((item, QSize(width, hint.height())))
            x += width + self._spacing
        y = area.y()
        for number, line in enumerate(lines):
            height = max((size.height() for _, size in line), default=0)
            left = area.x()
            for item, size in line:
                if move:
                    top = y + (height - size.height()) // 2
                    item.setGeometry(QRect(QPoint(left, top), size))
                left += size.width() + self._spacing
            y += height + (self._line_spacing if number < len(lines) - 1 else 0)
        return y - area.y() + margins.top() + margins.bottom()


def flow_row(*widgets: QWidget, spacing: int = 6) -> QWidget:
    """A widget holding ``widgets`` in a :class:`FlowLayout` (e.g. buttons that wrap)."""
    row = QWidget()
    layout = FlowLayout(row, spacing=spacing)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget)
    row.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    return row
