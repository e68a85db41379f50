"""A section title inside a Results tab: the label's own font, a little larger, semi-bold."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel


def section_title(text: str, scale: float = 1.15) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * scale)
    font.setWeight(QFont.Weight.DemiBold)
    label.setFont(font)
    return label
