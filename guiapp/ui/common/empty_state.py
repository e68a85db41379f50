"""The centred "nothing here yet" panel a step shows before it has anything: a title and a line
that says what to do first."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from guiapp.ui import theme


class EmptyState(QWidget):
    def __init__(self, title: str, text: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = heading = QLabel(title, objectName=f"{name}EmptyTitle")
        heading.setStyleSheet(f"{theme.heading_style(18)} {theme.text_style(theme.DARK_TEXT)}")
        heading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label = QLabel(text, objectName=f"{name}EmptyText")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setWordWrap(True)
        self.label.setStyleSheet(f"font-size: 14px; {theme.NOTE_STYLE}")
        column = QVBoxLayout(self)
        column.addStretch(1)
        column.addWidget(heading)
        column.addWidget(self.label)
        column.addStretch(2)

    def set_words(self, title: str, text: str) -> None:
        """Say something else (the step cannot be used for another reason)."""
        self.heading.setText(title)
        self.label.setText(text)
