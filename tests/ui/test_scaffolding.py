"""The shared scaffolding of the pages: the scroll area, the splitter that places its divider by a
rule until the user moves it, the tables as tall as their rows, and the Advanced dialog's tabs."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QTableWidget, QTableWidgetItem, QWidget

from guiapp.ui.steps.models.advanced_form_parts import AdvancedTab
from guiapp.ui.common.fitting_splitter import FittingSplitter
from guiapp.ui.common.scroll_area import ScrollArea, fill
from guiapp.ui.steps.results.table_height import fit_rows


def test_a_scroll_area_has_no_frame_follows_its_content_and_can_refuse_to_scroll_sideways(qtbot):
    content = QLabel("a long text")
    area = ScrollArea(content, name="someScroll", sideways=False)
    qtbot.addWidget(area)
    assert area.widget() is content and area.widgetResizable() and area.objectName() == "someScroll"
    assert area.frameShape() == QFrame.Shape.NoFrame
    assert area.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    framed = ScrollArea(QLabel("x"), framed=True)
    qtbot.addWidget(framed)
    assert framed.frameShape() != QFrame.Shape.NoFrame
    assert framed.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAsNeeded


def test_fill_gives_the_whole_parent_to_one_child(qtbot):
    parent, child = QWidget(), QLabel("x")
    qtbot.addWidget(parent)
    layout = fill(parent, child)
    assert layout.contentsMargins().left() == 0 and layout.itemAt(0).widget() is child


def test_the_splitter_follows_its_rule_until_the_user_moves_the_divider(qtbot):
    splitter = FittingSplitter(Qt.Orientation.Vertical, lambda total: total // 4, name="testSplitter")
    splitter.addWidget(QLabel("top"))
    splitter.addWidget(QLabel("bottom"))
    qtbot.addWidget(splitter)
    splitter.resize(300, 400 + splitter.handleWidth())
    splitter.show()
    qtbot.waitExposed(splitter)
    assert splitter.sizes() == [100, 300]
    splitter.resize(300, 800 + splitter.handleWidth())  # a taller window: the rule again, on the new height
    qtbot.waitUntil(lambda: splitter.sizes() == [200, 600])

    splitter.moveSplitter(500, 1)  # the user drags the divider: it stays where it was put
    assert splitter.user_sized
    placed = splitter.sizes()
    splitter.resize(300, 801 + splitter.handleWidth())
    qtbot.waitUntil(lambda: sum(splitter.sizes()) == 801)
    assert abs(splitter.sizes()[0] - placed[0]) <= 1
    splitter.fit()  # asked to fit, it still keeps the user's place
    assert abs(splitter.sizes()[0] - placed[0]) <= 1

    splitter.reset()  # a new result: the rule places it again
    assert not splitter.user_sized and splitter.sizes() == [200, 601]


def test_a_table_is_as_tall_as_its_header_and_rows(qtbot):
    table = QTableWidget(3, 2)
    qtbot.addWidget(table)
    for row in range(3):
        table.setItem(row, 0, QTableWidgetItem(f"row {row}"))
    height = fit_rows(table, air=6, least=30)
    assert all(table.rowHeight(row) >= 30 for row in range(3))
    rows = sum(table.rowHeight(row) for row in range(3))
    assert height >= table.horizontalHeader().sizeHint().height() + rows


class _Box(QWidget):
    changed = Signal()

    def __init__(self, valid: bool) -> None:
        super().__init__()
        self.valid, self.checked = valid, False

    def is_valid(self) -> bool:
        self.checked = True
        return self.valid


def test_an_advanced_tab_relays_every_change_and_checks_every_box(qtbot):
    boxes = {"a": _Box(False), "b": _Box(True)}
    tab = AdvancedTab("What this tab is for.", boxes)
    qtbot.addWidget(tab)
    with qtbot.waitSignal(tab.changed):
        boxes["b"].changed.emit()
    assert not tab.is_valid()
    assert all(box.checked for box in boxes.values())  # every box marks its own problems, not only the first
