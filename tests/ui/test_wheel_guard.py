"""The mouse wheel over a drop-down or number box scrolls the panel around it and never changes
the setting; outside a scrolling panel only a box the user clicked into takes the wheel."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from guiapp.ui.common.wheel_guard import install_wheel_guard
from tests.ui.helpers import wait_for_report


def wheel(widget: QWidget, notches: int = -1) -> None:
    """Turn the mouse wheel over the middle of ``widget`` (negative: towards the user, i.e. down)."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


@pytest.fixture
def guard(qapp):
    return install_wheel_guard(qapp)


@pytest.fixture
def panel(qtbot, guard):
    """A scrolling panel, taller than its window, with a drop-down and number boxes in it."""
    area = QScrollArea()
    content = QWidget()
    column = QVBoxLayout(content)
    combo = QComboBox()
    combo.addItems(["— none —", "id", "debate", "speaker"])
    spin = QSpinBox()
    spin.setRange(0, 100)
    spin.setValue(5)
    double = QDoubleSpinBox()
    double.setValue(0.5)
    for widget in (combo, spin, double):
        column.addWidget(widget)
        column.addSpacing(400)
    area.setWidget(content)
    area.setWidgetResizable(True)
    qtbot.addWidget(area)
    area.resize(300, 300)
    area.show()
    qtbot.waitExposed(area)
    return area, combo, spin, double


def test_the_wheel_over_a_drop_down_scrolls_the_panel_and_keeps_the_choice(panel):
    area, combo, _spin, _double = panel
    combo.setCurrentIndex(1)
    bar = area.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    wheel(combo, -1)
    assert combo.currentText() == "id"
    assert bar.value() > 0  # the panel moved instead


def test_number_boxes_keep_their_value_and_the_panel_scrolls(panel):
    area, _combo, spin, double = panel
    bar = area.verticalScrollBar()
    area.ensureWidgetVisible(spin)
    before = bar.value()
    wheel(spin, 1)  # up: towards the top of the panel
    wheel(double, -2)
    assert spin.value() == 5 and double.value() == 0.5
    assert bar.value() != before


def test_a_focused_box_in_a_scrolling_panel_still_does_not_change(qtbot, panel):
    area, combo, _spin, _double = panel
    area.activateWindow()
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    wheel(combo, -1)
    assert combo.currentIndex() == 0
    assert area.verticalScrollBar().value() > 0


def test_outside_a_scrolling_panel_only_a_box_the_user_clicked_takes_the_wheel(qtbot, guard):
    window = QWidget()
    column = QVBoxLayout(window)
    spin, other = QSpinBox(), QSpinBox()
    for box in (spin, other):
        box.setRange(0, 10)
        column.addWidget(box)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert spin.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel does not give it the focus
    wheel(spin, 1)
    assert spin.value() == 0  # only pointed at
    window.activateWindow()
    qtbot.mouseClick(spin, Qt.MouseButton.LeftButton, pos=QPoint(5, spin.height() // 2))
    qtbot.waitUntil(spin.hasFocus)
    wheel(spin, 1)
    assert spin.value() == 1  # clicked into: the wheel steps it
    wheel(other, 1)
    assert other.value() == 0


def test_scrolling_the_data_steps_column_roles_never_changes_them(qtbot, window):
    window.resize(1024, 700)
    window.open_example()
    wait_for_report(qtbot, window)
    panel = window.data_page.mapping_panel
    before = panel.mapping()
    scroll = next(parent for parent in _ancestors(panel) if isinstance(parent, QScrollArea))
    bar = scroll.verticalScrollBar()
    assert bar.maximum() > 0, "the test needs a panel that scrolls at this size"
    for combo in (panel.id_column, panel.category, panel.split):
        bar.setValue(0)
        wheel(combo, -3)
        wheel(combo, 2)
    assert panel.mapping() == before
    assert window.data_page.mapping() == before
    bar.setValue(0)
    wheel(panel.id_column, -1)
    assert bar.value() > 0


def _ancestors(widget: QWidget):
    parent = widget.parentWidget()
    while parent is not None:
        yield parent
        parent = parent.parentWidget()
