"""Work that waits while a widget is hidden. A page or panel that follows the study session does
its work at once when it is on screen, and otherwise once, when it is next shown: a coding made on
one step never waits for another step, out of sight, to measure or count again."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class WhenShown(QObject):
    """Runs ``work`` for ``widget``: now (:meth:`now_or_when_shown` while it is visible) or when it is
    next shown (:meth:`when_shown`, or :meth:`now_or_when_shown` while it is hidden); several
    requests while hidden run it once."""

    def __init__(self, widget: QWidget, work: Callable[[], None]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._work = work
        self._waiting = False
        widget.installEventFilter(self)

    def now_or_when_shown(self) -> None:
        if self._widget.isVisible():
            self._waiting = False
            self._work()
        else:
            self._waiting = True

    def when_shown(self) -> None:
        self._waiting = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._widget and event.type() == QEvent.Type.Show and self._waiting:
            self._waiting = False
            self._work()
        return False
