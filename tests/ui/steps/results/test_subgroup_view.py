"""The Results step's view of the groups of test texts (party, year …): what the user sees."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from guiapp.ui.steps.results.subgroup_view import SubgroupView
from tests.core.experiment.scores.test_subgroup_scores import _result, _table
from tests.ui.helpers import save_screenshot

MAPPING = {"text_columns": ["text"], "category_column": "label", "id_column": "id", "metadata_columns": ["year"]}


def _view(qtbot) -> SubgroupView:
    view = SubgroupView()
    qtbot.addWidget(view)
    view.resize(1000, 520)
    view.show()
    return view


def _study():
    table = _table()
    positions = np.arange(1, 600, 2)
    return table, _result(table, positions, lambda row: row["party"] == "Green" and row.name % 4 == 1)


def test_the_groups_of_the_chosen_column_and_model_are_shown_and_the_worse_one_is_marked(qtbot):
    view = _view(qtbot)
    table, result = _study()
    view.set_result(result, table, MAPPING)
    combo = view.column_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["party", "year"]
    assert combo.currentText() == "year"  # a column the user marked as information about the texts comes first
    view.choose_column("party")
    assert [row[0] for row in view.rows()] == ["Green", "Labour", "Liberal"]
    green = view.rows()[0]
    assert green[1] == "100" and green[3].startswith("50%") and green[5] == "More mistakes than the other texts"
    assert view.flagged_rows() == [0]
    assert "SVM makes more mistakes on texts whose “party” is “Green”" in view.headline_text()
    assert view.table.item(0, 0).toolTip().startswith("Texts with “party” Green (100)")
    assert view.table.horizontalHeaderItem(0).text() == "party"
    QApplication.sendPostedEvents()  # the layout pass after the table's height changed
    save_screenshot(view, "subgroups_party")
    view.model_combo.setCurrentIndex(1)  # NB: right everywhere
    assert view.model_combo.currentData() == "NB" and view.flagged_rows() == []
    assert [row[3].split()[0] for row in view.rows()] == ["0%", "0%", "0%"]


def test_double_clicking_a_group_names_its_column_and_value(qtbot):
    view = _view(qtbot)
    table, result = _study()
    view.set_result(result, table, MAPPING)
    view.choose_column("party")
    rect = view.table.visualItemRect(view.table.item(2, 1))
    with qtbot.waitSignal(view.groupChosen, timeout=2000) as signal:
        qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert signal.args == ["party", "Liberal"]
    view.table.sortItems(0, Qt.SortOrder.DescendingOrder)  # as a click on the column title does
    assert [row[0] for row in view.rows()] == ["Liberal", "Labour", "Green"]
    with qtbot.waitSignal(view.groupChosen, timeout=2000) as signal:
        view.table.cellDoubleClicked.emit(2, 0)
    assert signal.args == ["party", "Green"]


def test_large_studies_are_scored_in_the_background(qtbot, monkeypatch):
    from guiapp.ui.steps.results import subgroup_view
    monkeypatch.setattr(subgroup_view, "BACKGROUND_WORK", 0)
    view = _view(qtbot)
    table, result = _study()
    table["year"] = 1900 + np.arange(600) % 120
    view.set_result(result, table, MAPPING)
    assert view.is_busy() and view.headline_text().startswith("Working out the scores per value of “year”")
    qtbot.waitUntil(lambda: view.scores is not None, timeout=5000)
    assert view.rows()[0][0] == "1901–1923"
    assert view.scores.ranges
    with qtbot.waitSignal(view.groupChosen, timeout=2000) as signal:
        view.table.cellDoubleClicked.emit(0, 3)
    assert signal.args == ["year", (1901, 1923)]  # a range of numbers: its smallest and largest value


def test_tables_without_a_usable_column_and_other_tables_are_said_in_words(qtbot):
    view = _view(qtbot)
    table, result = _study()
    only_text = table[["text", "label", "id"]]
    view.set_result(result, only_text, MAPPING)
    assert "no column to group the texts by" in view.headline_text()
    assert not view.column_combo.isEnabled() and not view.table.isVisible()
    view.set_result(result, table.iloc[::-1].reset_index(drop=True), MAPPING)  # sorted since the run
    assert "has been sorted or changed" in view.headline_text() and view.rows() == []
    view.clear()
    assert view.column_combo.count() == 0 and view.headline_text().startswith("No study results yet")


def test_a_study_with_a_test_file_reads_the_groups_from_it(qtbot):
    view = _view(qtbot)
    train, test = _table(300, seed=2), _table(240, seed=3)
    test["outlet"] = ["Times"] * 120 + ["Sun"] * 120
    result = _result(test, np.arange(240), lambda row: row["outlet"] == "Sun", how="test file")
    view.set_result(result, train, MAPPING, test_table=test)
    view.choose_column("outlet")
    assert [row[:2] for row in view.rows()] == [["Sun", "120"], ["Times", "120"]]
    assert view.flagged_rows() == [0]
    assert isinstance(view.scores.to_dict(), dict) and pd.notna(view.scores.models[0].groups[0].macro_f1)
