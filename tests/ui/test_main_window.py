"""The main window driven through its real widgets: open the example, map, read the report."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent

from guiapp.core.tables.rows import spreadsheet_row
from tests.ui.helpers import wait_for_report


def _shown_column(page, name):
    model = page.frame_model
    for column in range(model.columnCount()):
        if model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.UserRole) == name or str(
            model.headerData(column, Qt.Orientation.Horizontal)
        ).split("\n")[0] == name:
            return column
    raise AssertionError(f"column {name} not shown")


def test_the_steps_are_listed_and_only_data_is_usable_at_first(window):
    steps = [window.steps.item(i).text() for i in range(window.steps.count())]
    assert steps == ["1   Data", "2   Coding", "3   Models", "4   Run", "5   Results", "6   Documents", "7   Predict",
                     "8   Findings"]
    assert [window.steps.is_step_enabled(i) for i in range(7)] == [True, False, False, False, False, False, False]
    assert "Open your coded texts" in window.steps.item(2).toolTip()  # the Models step says why not yet
    assert window.data_page.stack.currentWidget() is window.data_page.welcome


def test_open_example_through_the_welcome_button(qtbot, window):
    page = window.data_page
    qtbot.mouseClick(page.welcome.example_button, Qt.MouseButton.LeftButton)
    report = wait_for_report(qtbot, window)

    assert page.stack.currentWidget() is page.workspace
    assert page.file_label.text().startswith("us_congress_bills.xlsx")
    assert "4,449 rows" in page.file_details.text()
    # The workbook has three sheets; the first (the bills) was read and the others can be picked.
    assert [page.sheet_combo.itemText(i) for i in range(page.sheet_combo.count())] == ["Bills", "Topic codebook", "About"]
    assert page.sheet_combo.isVisible()
    # The table shows every row; the vertical header gives spreadsheet rows.
    assert page.table_view.model().rowCount() == 4449
    assert page.table_view.model().headerData(0, Qt.Orientation.Vertical) in (2, "2")
    # The suggested mapping: titles as text, a topic column as category, the bill ID as ID.
    mapping = page.mapping()
    assert mapping.text_columns == ["Title"]
    assert mapping.category_column == "Topic"  # the words, not the numeric codes
    assert mapping.id_column == "Bill ID"
    # The report: 4,449 coded bills in 20 topics, the largest is Health with 617.
    assert report.n_rows == 4449 and report.n_coded == 4449 and report.n_uncoded == 0
    assert len(report.categories) == 20
    assert report.categories[0].count == 617
    assert report.tokens is not None and report.tokens.max < 512
    assert page.health_view.report() is report
    assert window.windowTitle().startswith("us_congress_bills.xlsx")


def test_changing_the_category_column_updates_the_report(qtbot, window):
    page = window.data_page
    window.open_example()
    wait_for_report(qtbot, window)
    combo = page.mapping_panel.category
    old = page.report
    combo.setCurrentIndex(combo.findText("Chamber"))
    qtbot.waitUntil(lambda: page.report is not None and page.report is not old and not page.is_busy(), timeout=30_000)
    assert [c.label for c in page.report.categories] == ["Senate", "House"]  # largest first: 3,180 Senate bills, 1,269 House bills
    assert page.mapping().category_column == "Chamber"


def test_mapping_problem_is_explained_inline(qtbot, window):
    page = window.data_page
    window.open_example()
    wait_for_report(qtbot, window)
    # Untick the only text column: no dialog, a plain explanation above the report.
    item = page.mapping_panel.text_list.findItems("Title", Qt.MatchFlag.MatchExactly)[0]
    item.setCheckState(Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: page.mapping_message.isVisible(), timeout=5000)
    assert "text" in page.mapping_message.text().lower()
    assert page.report is None
    item.setCheckState(Qt.CheckState.Checked)
    wait_for_report(qtbot, window)
    assert not page.mapping_message.isVisible()


def test_show_rows_filters_the_table(qtbot, window):
    page = window.data_page
    window.open_example()
    wait_for_report(qtbot, window)
    page.show_rows([5, 2, 100])
    view_model = page.table_view.model()
    assert view_model.rowCount() == 3
    assert [view_model.headerData(i, Qt.Orientation.Vertical) for i in range(3)] in (
        [spreadsheet_row(5), spreadsheet_row(2), spreadsheet_row(100)],
        [str(spreadsheet_row(r)) for r in (5, 2, 100)],
    )
    assert page.tabs.currentIndex() == 1 and page.subset_banner.isVisible()
    qtbot.mouseClick(page.show_all_button, Qt.MouseButton.LeftButton)
    assert view_model.rowCount() == 4449


def test_picking_another_sheet_reads_it(qtbot, window):
    page = window.data_page
    window.open_example()
    wait_for_report(qtbot, window)
    page.sheet_combo.setCurrentIndex(1)
    page.sheet_combo.activated.emit(1)
    qtbot.waitUntil(lambda: page.table is not None and page.table.sheet == "Topic codebook" and not page.is_busy(), timeout=30_000)
    assert page.table_view.model().rowCount() == 20


def test_drop_a_csv_file_opens_it(qtbot, window, tmp_path):
    path = tmp_path / "stance.csv"
    rows = ["text;label"] + [f"tweet number {i} about the topic;{'pro' if i % 2 else 'contra'}" for i in range(40)]
    path.write_text("\n".join(rows), encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    report = wait_for_report(qtbot, window)
    assert window.data_page.table.delimiter == ";"
    assert report.n_coded == 40
    assert sorted(c.label for c in report.categories) == ["contra", "pro"]


@pytest.mark.shared_data
def test_opens_a_real_csv_from_shared_data(qtbot, window, shared_data):
    path = shared_data / "davidson2017_hate_offensive" / "labeled_data.csv"
    window.open_path(path)
    page = window.data_page
    qtbot.waitUntil(lambda: page.table is not None and not page.is_busy(), timeout=60_000)
    # Pick the documented columns, as a researcher would.
    panel = page.mapping_panel
    for i in range(panel.text_list.count()):
        item = panel.text_list.item(i)
        item.setCheckState(Qt.CheckState.Checked if item.text() == "tweet" else Qt.CheckState.Unchecked)
    panel.category.setCurrentIndex(panel.category.findText("class"))
    qtbot.waitUntil(lambda: page.report is not None and page.mapping().category_column == "class"
                    and not page.is_busy() and [c.label for c in page.report.categories] == ["1", "2", "0"], timeout=120_000)
    counts = {c.label: c.count for c in page.report.categories}
    assert counts == {"1": 19190, "2": 4163, "0": 1430}
    assert page.report.n_rows == 24783


def test_recent_files_are_remembered(qtbot, window, tmp_path):
    path = tmp_path / "coded.csv"
    path.write_text("text,label\n" + "\n".join(f"text {i},{'a' if i % 2 else 'b'}" for i in range(30)), encoding="utf-8")
    window.open_path(path)
    wait_for_report(qtbot, window)
    assert window.recent_menu.actions()[0].toolTip() == str(path)
    assert window.data_page.welcome.recent.count() == 1


def test_save_study_file_writes_a_spec_the_cli_can_use(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from guiapp.core.study.spec import ExperimentSpec

    assert not window.save_spec_action.isEnabled()  # nothing to save before a table is open
    window.open_example()
    wait_for_report(qtbot, window)
    target = tmp_path / "bills.textlab.toml"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), ""))
    assert window.save_spec_action.isEnabled()
    window.save_spec_action.trigger()
    spec = ExperimentSpec.load(target)
    assert spec.data.sheet == "Bills"
    assert spec.data.mapping.text_columns == ["Title"] and spec.data.mapping.category_column == "Topic"
    assert spec.data.sha256 == window.data_page.table.sha256 and len(spec.data.sha256) == 64
    assert spec.source_path(target).name == "us_congress_bills.xlsx"
