"""A tab of the Advanced dialog that holds one box per representation or classifier, under a
sentence that says what the tab is for; ``changed`` after every edit in any box."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class AdvancedTab(QWidget):
    """``boxes``: name -> a box with a ``changed`` signal and ``is_valid()``, shown in this order."""

    changed = Signal()

    def __init__(self, intro: str, boxes: dict, parent: QWidget | None = None) -> None:  # noqa: ANN001 — boxes
        super().__init__(parent)
        self.boxes = boxes
        label = QLabel(intro)
        label.setWordWrap(True)
        column = QVBoxLayout(self)
        column.addWidget(label)
        for box in boxes.values():
            box.changed.connect(self.changed)
            column.addWidget(box)
        column.addStretch(1)

    def is_valid(self) -> bool:
        return all([box.is_valid() for box in self.boxes.values()])  # noqa: C419 - check (and mark) every box
