"""A place held for a widget that is made the first time it is shown or asked for.

The charts load pyqtgraph, which takes a good part of a second: the window opens without it, and
each chart is made when its page first shows it or when something is drawn in it. The widget then
takes the place holder's spot in its layout or splitter, with the same stretch; a tab's page, a
scroll area's content (or a holder outside any layout) holds the widget instead, edge to edge.

Until then the holder can ask of the layout what the widget will ask (its :class:`Footprint`), so
that a page lays itself out the same with or without the widget made: scroll areas keep the size
they first measured.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QSizePolicy, QSplitter, QStackedWidget, QVBoxLayout, QWidget

LARGEST = 16_777_215  # Qt's QWIDGETSIZE_MAX: no limit


class Footprint(NamedTuple):
    """What a widget, as made, asks of its layout."""

    hint: QSize
    minimum_hint: QSize
    minimum: QSize = QSize(0, 0)
    maximum: QSize = QSize(LARGEST, LARGEST)
    policy: QSizePolicy.Policy = QSizePolicy.Policy.Preferred  # across and down


class LazyWidget(QWidget):
    """Stands where ``make()``'s widget will stand (taking up its ``footprint``, if given);
    :meth:`widget` makes it on first use."""

    def __init__(self, make: Callable[[], QWidget], parent: QWidget | None = None, *,
                 footprint: Footprint | None = None) -> None:
        super().__init__(parent)
        self._make = make
        self._widget: QWidget | None = None
        self._footprint = footprint
        if footprint is not None:
            self.setMinimumSize(footprint.minimum)
            self.setMaximumSize(footprint.maximum)
            self.setSizePolicy(footprint.policy, footprint.policy)

    def is_made(self) -> bool:
        return self._widget is not None

    def widget(self) -> QWidget:
        """The widget, made now if need be."""
        if self._widget is None:
            self._widget = widget = self._make()
            if self._stand_aside_for(widget):
                self.hide()
            else:
                self._footprint = None
                self.setMinimumSize(0, 0)
                self.setMaximumSize(LARGEST, LARGEST)
                self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
                layout = QVBoxLayout(self)
                layout.setContentsMargins(0, 0, 0, 0)
                layout.addWidget(widget)
            parent = widget.parentWidget()
            explicitly_hidden = widget.isHidden() and widget.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide)
            if parent is not None and parent.isVisible() and not explicitly_hidden:
                widget.show()  # at once, not after the next turn of the event loop: the layout counts it now
        return self._widget

    def sizeHint(self) -> QSize:  # Qt's name
        return self._footprint.hint if self._footprint is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:  # Qt's name
        return self._footprint.minimum_hint if self._footprint is not None else super().minimumSizeHint()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.widget()

    def _stand_aside_for(self, widget: QWidget) -> bool:
        """Put ``widget`` in this holder's spot; False where there is no spot to give up."""
        parent = self.parentWidget()
        if isinstance(parent, QSplitter):
            parent.replaceWidget(parent.indexOf(self), widget)
            return True
        if parent is None or isinstance(parent, QStackedWidget) or parent.layout() is None:  # a tab, a scroll area
            return False
        return parent.layout().replaceWidget(self, widget) is not None
