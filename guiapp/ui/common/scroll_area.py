"""The scroll area every page and panel uses: no frame of its own, its content as wide as the area
(it grows taller and the area scrolls, rather than squeezing the content), sideways scrolling only
where the content cannot narrow further."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget


class ScrollArea(QScrollArea):
    """``content`` in a scroll area. ``framed``: keep the area's frame; ``sideways=False``: never a
    horizontal scroll bar (the content must then fit any width); ``whole=True`` with it: the area is
    never narrower than its content can be, so nothing is cut off at the side."""

    def __init__(self, content: QWidget | None = None, parent: QWidget | None = None, *, name: str = "",
                 framed: bool = False, sideways: bool = True, whole: bool = False) -> None:
        super().__init__(parent)
        if name:
            self.setObjectName(name)
        self.setWidgetResizable(True)
        if not framed:
            self.setFrameShape(QFrame.Shape.NoFrame)
        self._whole = whole and not sideways
        if not sideways:
            self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        if content is not None:
            self.setWidget(content)

    def minimumSizeHint(self) -> QSize:  # Qt's name
        hint = super().minimumSizeHint()
        content = self.widget()
        if not self._whole or content is None:
            return hint
        width = content.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()
        return QSize(max(hint.width(), width), hint.height())


def fill(parent: QWidget, child: QWidget) -> QVBoxLayout:
    """Make ``child`` (a scroll area, a stack of pages) take all of ``parent``, edge to edge."""
    layout = QVBoxLayout(parent)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(child)
    return layout
