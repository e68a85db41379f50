"""A row of widgets that wraps onto the next line when it is too narrow — like words in a
paragraph — so that a row of buttons or filters never makes its panel scroll sideways. A widget
wider than the whole row gets the row's width (an
:class:`~guiapp.ui.common.eliding_button.ElidingButton` then shortens its text).

It is a widget that places its children itself rather than a ``QLayout`` subclass: a layout
written in Python has to hold Qt's layout items, which Qt may delete behind its back."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QWidget


def together(*widgets: QWidget) -> QWidget:
    """Widgets that stay together on one line of a :class:`FlowRow` (a label and its box)."""
    group = QWidget()
    row = QHBoxLayout(group)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(6)
    for widget in widgets:
        row.addWidget(widget)
    return group


class FlowRow(QWidget):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6, line_spacing: int = 6) -> None:
        super().__init__(parent)
        self._widgets: list[QWidget] = []
        self._spacing = spacing
        self._line_spacing = line_spacing
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def add_widget(self, widget: QWidget) -> None:
        hidden = widget.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide) and widget.isHidden()
        widget.setParent(self)
        widget.installEventFilter(self)  # shown or hidden: place the row again
        self._widgets.append(widget)
        if not hidden:  # a widget hidden on purpose stays hidden
            widget.show()
        self._changed()

    def widgets(self) -> list[QWidget]:
        return list(self._widgets)

    # -- sizes ------------------------------------------------------------------------------------------
    def hasHeightForWidth(self) -> bool:  # noqa: N802 — Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._arrange(width, move=False)

    def sizeHint(self) -> QSize:
        """Everything on one line (what the row would like)."""
        shown = self._shown()
        width = sum(self._wish(w).width() for w in shown) + self._spacing * max(len(shown) - 1, 0)
        height = max((self._wish(w).height() for w in shown), default=0)
        margins = self.contentsMargins()
        return QSize(width + margins.left() + margins.right(), height + margins.top() + margins.bottom())

    def minimumSizeHint(self) -> QSize:
        """The widest single widget (the narrowest the row can be without cutting one)."""
        margins = self.contentsMargins()
        width = max((self._narrowest(w) for w in self._shown()), default=0)
        return QSize(width + margins.left() + margins.right(), min(self.sizeHint().height(), self.heightForWidth(
            width + margins.left() + margins.right())))

    # -- events -----------------------------------------------------------------------------------------
    def resizeEvent(self, event) -> None:  # noqa: ANN001, N802
        super().resizeEvent(event)
        self._arrange(self.width(), move=True)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # a child's size hint changed
            self._changed()
        elif event.type() == QEvent.Type.ChildRemoved:
            child = event.child()
            self._widgets = [w for w in self._widgets if w is not child]
            self._changed()
        return super().event(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() in (QEvent.Type.Show, QEvent.Type.Hide) and watched in self._widgets:
            self._changed()
        return False

    # -- placing ----------------------------------------------------------------------------------------
    def _changed(self) -> None:
        self.updateGeometry()
        self._arrange(self.width(), move=True)

    def _shown(self) -> list[QWidget]:
        return [w for w in self._widgets if not w.isHidden()]

    @staticmethod
    def _wish(widget: QWidget) -> QSize:
        return widget.sizeHint().expandedTo(widget.minimumSize()).boundedTo(widget.maximumSize())

    def _narrowest(self, widget: QWidget) -> int:
        shrinks = bool(widget.sizePolicy().horizontalPolicy().value & QSizePolicy.PolicyFlag.ShrinkFlag.value)
        width = widget.minimumSizeHint().width() if shrinks else self._wish(widget).width()
        return max(width, widget.minimumWidth())

    def _arrange(self, width: int, move: bool) -> int:
        """Place the widgets in ``width`` (when ``move``); returns the height they need."""
        margins = self.contentsMargins()
        room = max(width - margins.left() - margins.right(), 0)
        lines: list[list[tuple[QWidget, QSize]]] = [[]]
        x = 0
        for widget in self._shown():
            wish = self._wish(widget)
            item_width = max(min(wish.width(), room), self._narrowest(widget))
            height = widget.heightForWidth(item_width) if widget.hasHeightForWidth() else wish.height()
            if lines[-1] and x + item_width > room:
                lines.append([])
                x = 0
            lines[-1].append((widget, QSize(item_width, max(height, wish.height() if height < 0 else height))))
            x += item_width + self._spacing
        y = margins.top()
        for number, line in enumerate(lines):
            tallest = max((size.height() for _, size in line), default=0)
            left = margins.left()
            for widget, size in line:
                if move:
                    widget.setGeometry(QRect(QPoint(left, y + (tallest - size.height()) // 2), size))
                left += size.width() + self._spacing
            y += tallest + (self._line_spacing if number < len(lines) - 1 else 0)
        return y + margins.bottom()
