"""The "By group" view when each group holds one category in the coding (speaker → party): the
score column shows the share right, its title says so, and a sentence above the table says why."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from guiapp.ui.steps.results.subgroup_view import SubgroupView
from tests.core.experiment.scores.test_subgroup_one_category import _study
from tests.ui.helpers import save_screenshot

MAPPING = {"text_columns": ["text"], "category_column": "party", "metadata_columns": ["speaker"]}


def _view(qtbot) -> SubgroupView:
    view = SubgroupView()
    qtbot.addWidget(view)
    view.resize(1000, 560)
    view.show()
    return view


def test_speakers_of_one_party_show_the_share_right_instead_of_macro_f1(qtbot):
    view = _view(qtbot)
    table, result = _study()
    view.set_result(result, table, MAPPING)
    view.choose_column("speaker")
    assert view.table.horizontalHeaderItem(2).text() == "Share right"
    assert "accuracy" in view.table.horizontalHeaderItem(2).toolTip()
    rows = view.rows()
    assert rows and all(row[2].startswith("8") and "%" in row[2] for row in rows)  # 6 of 7 right, not ≈ 0.3
    assert all("0." not in row[2] for row in rows)
    assert "macro-F1 is not meaningful" in view.headline_text()
    assert "single category in your coding" in view.headline_text()
    QApplication.sendPostedEvents()
    save_screenshot(view, "subgroups_one_category")


def test_a_mixed_column_marks_the_groups_that_show_the_share_right(qtbot):
    view = _view(qtbot)
    table, result = _study(420, mixed=True)
    view.set_result(result, table, MAPPING)
    view.choose_column("speaker")
    assert view.table.horizontalHeaderItem(2).text() == "Macro-F1 or share right"
    by_label = {row[0]: row[2] for row in view.rows()}
    assert "right" in by_label["Trump"] and "%" in by_label["Trump"]
    assert by_label["Moderator"].startswith("0.") and "right" not in by_label["Moderator"]
    assert "“Trump”" in view.headline_text() and "“Moderator”" not in view.headline_text()
    QApplication.sendPostedEvents()
    save_screenshot(view, "subgroups_mixed_categories")
