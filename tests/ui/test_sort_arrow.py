"""A column sorted high-to-low shows an arrow pointing down (and low-to-high, up)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QStyleFactory, QTableView

from guiapp.ui.window.sort_arrow_style import SortArrowStyle


def _header_image(qtbot, ours: bool, order):
    style = SortArrowStyle("Fusion") if ours else QStyleFactory.create("Fusion")
    model = QStandardItemModel(3, 2)
    model.setHorizontalHeaderLabels(["macro-F1", "model"])
    view = QTableView()
    qtbot.addWidget(view)
    style.setParent(view)  # lives as long as the view
    view.setStyle(style)
    view.horizontalHeader().setStyle(style)
    view.setModel(model)
    view.resize(300, 120)
    view.horizontalHeader().setSortIndicatorShown(True)
    view.horizontalHeader().setSortIndicator(0, order)
    view.show()
    qtbot.waitExposed(view)
    header = view.horizontalHeader()
    return header.grab().toImage().copy(header.sectionSize(0) - 30, 0, 28, header.height())  # the arrow's corner


def _arrow_rows(image) -> list[int]:
    """The arrow's width in each pixel row: the first run of rows with 3 or more dark pixels."""
    widths = [sum(1 for x in range(image.width()) if image.pixelColor(x, y).lightness() < 160)
              for y in range(image.height())]
    start = next(y for y, width in enumerate(widths) if width >= 3)
    end = next((y for y in range(start, len(widths)) if widths[y] < 3), len(widths))
    return widths[start:end]


def test_high_to_low_points_down_and_low_to_high_points_up(qtbot):
    descending = _header_image(qtbot, True, Qt.SortOrder.DescendingOrder)
    ascending = _header_image(qtbot, True, Qt.SortOrder.AscendingOrder)
    assert descending == _header_image(qtbot, False, Qt.SortOrder.AscendingOrder)  # the arrows swapped
    assert ascending == _header_image(qtbot, False, Qt.SortOrder.DescendingOrder)
    down, up = _arrow_rows(descending), _arrow_rows(ascending)
    assert down and up and down != up
    assert down[0] > down[-1] and up[0] < up[-1]  # down: wide at the top; up: wide at the bottom
