"""The mouse wheel scrolls; it never changes a setting by accident.

Qt lets the wheel change a drop-down (QComboBox) or a number box (QSpinBox, QDoubleSpinBox …)
that happens to be under the pointer — and gives it the keyboard focus while doing so. Scrolling a
panel full of them then silently changes whichever one passes under the pointer. One event filter
on the application (:func:`install_wheel_guard`, at start-up) makes every present and future one
behave as follows:

- inside a panel that can scroll in the wheel's direction, the wheel scrolls the panel, whether
  or not the box has the focus (the panel is what the user is moving through);
- elsewhere, the wheel changes a box only when the user gave it the keyboard focus (clicked it
  or tabbed to it), as in Qt Creator or a web browser's number field; the wheel never gives it
  the focus by itself.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QWidget

GUARDED = (QComboBox, QAbstractSpinBox)


def scrolling_panels(widget: QWidget, vertical: bool) -> list[QAbstractScrollArea]:
    """The scroll areas around ``widget``, innermost first, that can scroll in that direction."""
    panels = []
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            bar = parent.verticalScrollBar() if vertical else parent.horizontalScrollBar()
            if bar.maximum() > bar.minimum() and bar.isEnabled():
                panels.append(parent)
        if parent.isWindow():
            break
        parent = parent.parentWidget()
    return panels


class WheelGuard(QObject):
    """The application-wide event filter (see the module docstring)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.Polish, QEvent.Type.Wheel) or not isinstance(watched, GUARDED):
            return False
        if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:  # the wheel must not give it the focus
            watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        if kind == QEvent.Type.Polish:
            return False
        assert isinstance(event, QWheelEvent)
        delta = event.angleDelta() if not event.angleDelta().isNull() else event.pixelDelta()
        vertical = abs(delta.y()) >= abs(delta.x())
        panels = scrolling_panels(watched, vertical)
        if not panels and watched.hasFocus():
            return False  # the user chose this box: the wheel may change it
        for panel in panels:  # the innermost panel that still moves takes the wheel
            if self._scroll(panel, watched, event):
                break
        event.accept()
        return True  # the box itself never sees this wheel

    @staticmethod
    def _scroll(panel: QAbstractScrollArea, box: QWidget, event: QWheelEvent) -> bool:
        viewport = panel.viewport()
        position = box.mapTo(viewport, event.position().toPoint()) if viewport.isAncestorOf(box) else QPoint(
            viewport.width() // 2, viewport.height() // 2)
        forwarded = QWheelEvent(position, event.globalPosition(), event.pixelDelta(), event.angleDelta(),
                                event.buttons(), event.modifiers(), event.phase(), event.inverted(), event.source())
        forwarded.ignore()
        QApplication.sendEvent(viewport, forwarded)
        return forwarded.isAccepted()


_guard: WheelGuard | None = None


def install_wheel_guard(app: QApplication | None = None) -> WheelGuard | None:
    """Install the guard on the application once (later calls return the same guard)."""
    global _guard
    app = app or QApplication.instance()
    if app is None:
        return None
    if _guard is None or not shiboken6.isValid(_guard) or _guard.parent() is not app:
        _guard = WheelGuard(app)
        app.installEventFilter(_guard)
    return _guard
