"""Columns and rows of widgets in one call: the margins, the spacing and what goes in, in order."""

from __future__ import annotations

from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLayout, QVBoxLayout, QWidget

STRETCH = object()  # an item that takes up the free space (``addStretch(1)``; ``(STRETCH, n)``: ``addStretch(n)``)

Item = object  # a widget, a layout, an int (a gap of that many pixels), STRETCH or (widget or layout, stretch)


def _fill(layout: QBoxLayout, items: tuple[Item, ...], margins: tuple[int, int, int, int] | None,
          spacing: int | None) -> None:
    if margins is not None:
        layout.setContentsMargins(*margins)
    if spacing is not None:
        layout.setSpacing(spacing)
    for item in items:
        item, stretch = item if isinstance(item, tuple) else (item, None)
        if item is STRETCH:
            layout.addStretch(1 if stretch is None else stretch)
        elif isinstance(item, int):
            layout.addSpacing(item)
        elif isinstance(item, QLayout):
            layout.addLayout(item, stretch or 0)
        elif isinstance(item, QWidget):
            layout.addWidget(item, stretch or 0)
        else:
            raise TypeError(f"cannot lay out {item!r}")


def vbox(parent: QWidget | None, *items: Item, margins: tuple[int, int, int, int] | None = None,
         spacing: int | None = None) -> QVBoxLayout:
    """A vertical layout on ``parent`` holding ``items`` top to bottom (see :data:`Item`)."""
    layout = QVBoxLayout(parent) if parent is not None else QVBoxLayout()
    _fill(layout, items, margins, spacing)
    return layout


def hbox(parent: QWidget | None, *items: Item, margins: tuple[int, int, int, int] | None = None,
         spacing: int | None = None) -> QHBoxLayout:
    """A horizontal layout on ``parent`` holding ``items`` left to right (see :data:`Item`)."""
    layout = QHBoxLayout(parent) if parent is not None else QHBoxLayout()
    _fill(layout, items, margins, spacing)
    return layout
