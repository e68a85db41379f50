"""Header sort arrows that point the way the rows run: down when high-to-low, up when low-to-high.

Qt's header view asks the style for a "sort down" arrow when a column is sorted ascending and a
"sort up" arrow when descending (a macOS convention), so under Fusion a column sorted high-to-low
shows an arrow pointing up. Researchers read the arrow as the direction of the values; this proxy
style swaps the two before the arrow is drawn. Everything else is the base style's.
"""

from __future__ import annotations

from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleOptionHeader


class SortArrowStyle(QProxyStyle):
    def drawPrimitive(self, element, option, painter, widget=None) -> None:  # noqa: N802 (Qt's name)
        if element == QStyle.PrimitiveElement.PE_IndicatorHeaderArrow and isinstance(option, QStyleOptionHeader):
            flipped = QStyleOptionHeader(option)
            if option.sortIndicator == QStyleOptionHeader.SortIndicator.SortUp:
                flipped.sortIndicator = QStyleOptionHeader.SortIndicator.SortDown
            elif option.sortIndicator == QStyleOptionHeader.SortIndicator.SortDown:
                flipped.sortIndicator = QStyleOptionHeader.SortIndicator.SortUp
            option = flipped
        super().drawPrimitive(element, option, painter, widget)


def arrow_style(base: str = "Fusion") -> SortArrowStyle:
    """The application's style: ``base`` with sort arrows that follow the order of the values."""
    return SortArrowStyle(base)
