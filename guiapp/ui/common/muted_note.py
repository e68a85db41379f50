"""A muted, wrapped line of text under or beside what it explains: a summary, a hint or a note."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from guiapp.ui import theme


def muted_note(text: str = "", object_name: str = "") -> QLabel:
    """A label in the theme's muted colour that wraps its words; ``object_name`` names it for tests."""
    label = QLabel(text, objectName=object_name)
    label.setWordWrap(True)
    label.setStyleSheet(theme.MUTED_STYLE)
    return label
