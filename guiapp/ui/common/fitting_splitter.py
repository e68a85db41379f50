"""A splitter of two panes that places its divider by a rule of the page — the room a chart needs,
a share of the width — each time it is shown or resized, until the user drags the divider; from
then on the user's place is kept, until the page asks for the rule again (:meth:`reset`)."""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QSplitter, QWidget


class FittingSplitter(QSplitter):
    """``first_size(total)``: the length of the first pane when both panes share ``total`` pixels
    (the second gets the rest). ``stretch``: how a resize the rule does not handle is shared."""

    def __init__(self, orientation: Qt.Orientation, first_size: Callable[[int], int], *, name: str = "",
                 stretch: tuple[int, int] = (1, 1), parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        if name:
            self.setObjectName(name)
        # The rule is usually a method of the page that holds this splitter: keep it weakly, so that the
        # page and the splitter make no reference cycle (a widget tree freed by Python's cycle collector
        # is torn down in no particular order, which Qt does not survive).
        self._first_size = weakref.WeakMethod(first_size) if inspect.ismethod(first_size) else lambda: first_size
        self.user_sized = False  # the user dragged the divider: the rule no longer places it
        self.setChildrenCollapsible(False)
        self.setStretchFactor(0, stretch[0])
        self.setStretchFactor(1, stretch[1])
        self.splitterMoved.connect(self._moved)

    def fit(self, total: int | None = None) -> None:
        """Place the divider by the rule, unless the user has placed it. ``total``: the length both
        panes share (default: what they have now)."""
        if self.user_sized:
            return
        total = sum(self.sizes()) if total is None else total
        if total <= 0:
            return
        rule = self._first_size()
        if rule is None:
            return
        first = rule(total)
        self.setSizes([first, total - first])

    def reset(self) -> None:
        """Forget where the user placed the divider and place it by the rule (e.g. for a new result)."""
        self.user_sized = False
        self.fit()

    def _moved(self, *_args) -> None:
        self.user_sized = True

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 — Qt's name
        # before the panes are laid out: their sizes are still the old ones, the event has the new
        length = event.size().width() if self.orientation() == Qt.Orientation.Horizontal else event.size().height()
        self.fit(length - self.handleWidth())
        super().resizeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.fit()  # what the panes show may have grown while the page was hidden
