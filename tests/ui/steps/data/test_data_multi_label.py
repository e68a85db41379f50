"""The Data step of a study where a text can have several categories: the two layouts of the
categories in the column panel (one 0/1 column per category, or one column that lists them), the
mapping they make, and the data-health view's categories, combinations and heatmap."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.data.mapping_panel import MappingPanel


def _speeches() -> pd.DataFrame:
    """Twelve speeches (the last one not yet coded, the fifth coded with none of the topics), their
    topics both ways: one 0/1 column per topic and one column listing them."""
    economy = [1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0, None]
    health = [0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, None]
    crime = [0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, None]
    topics = ["; ".join(name for name, has in (("economy", e), ("health", h), ("crime", c)) if has) or None
              for e, h, c in zip(economy, health, crime, strict=True)]
    return pd.DataFrame({
        "speech": [f"Speech {i} on the state of the nation and what must change" for i in range(12)],
        "speaker": [f"MP {i % 4}" for i in range(12)],
        "year": [2000 + i for i in range(12)],
        "economy": economy, "health": health, "crime": crime,
        "topics": topics,
    })


@pytest.fixture
def panel(qtbot):
    widget = MappingPanel()
    qtbot.addWidget(widget)
    widget.set_table(_speeches(), ColumnMapping(text_columns=["speech"], category_column="topics"))
    widget.show()
    return widget


def _ticked(check_list) -> list[str]:
    return check_list.checked()


def test_ticking_the_box_offers_the_0_1_columns_ticked_for_you(panel, qtbot):
    assert not panel.several.isChecked()
    assert not panel.layout_choice.isVisible() and not panel.category_columns.isVisible()
    with qtbot.waitSignal(panel.mappingChanged, timeout=2000) as changed:
        panel.several.setChecked(True)
    assert panel.per_column.isChecked() and panel.per_column.isVisible()
    assert panel.category_columns.isVisible() and not panel.category.isVisible()
    assert _ticked(panel.category_columns) == ["economy", "health", "crime"]
    mapping = changed.args[0]
    assert mapping.multi_label and mapping.category_columns == ["economy", "health", "crime"]
    assert mapping.category_column is None and mapping.text_columns == ["speech"]
    assert "3 categories: “economy”, “health”, “crime”" in panel.category_hint()


def test_a_category_column_cannot_be_kept_for_later_nor_a_text_column_be_a_category(panel):
    panel.several.setChecked(True)
    assert "economy" not in panel.metadata.shown() and "speaker" in panel.metadata.shown()
    assert "speech" not in panel.category_columns.shown()
    # a column that is not a 0/1 column can be ticked, and the hint asks whether it is a category
    item = panel.category_columns.findItems("year", Qt.MatchFlag.MatchExactly)[0]
    item.setCheckState(Qt.CheckState.Checked)
    assert panel.mapping().category_columns == ["year", "economy", "health", "crime"]  # in the table's order
    assert "“year” does not hold only 0 and 1" in panel.category_hint()
    assert "year" not in panel.metadata.shown()


def test_one_column_that_lists_the_categories_with_its_separator_guessed(panel, qtbot):
    panel.several.setChecked(True)
    panel.one_list.setChecked(True)
    assert panel.category.isVisible() and panel.label_separator.isVisible()
    assert not panel.category_columns.isVisible()
    assert panel.label_separator.text() == ";"  # guessed from “economy; health”
    mapping = panel.mapping()
    assert mapping.multi_label and mapping.category_column == "topics" and mapping.category_columns == []
    assert mapping.label_separator == ";"
    assert "(3 different categories; 1.5 per coded text on average)" in panel.category_hint()
    # the researcher writes another separator: the mapping and the hint follow
    panel.label_separator.clear()
    qtbot.keyClicks(panel.label_separator, "|")
    assert panel.mapping().label_separator == "|"
    assert "No text has more than one category when they are separated by “|”" in panel.category_hint()


def test_unticking_gives_back_the_single_category_column_as_it_was(panel):
    before = panel.mapping()
    panel.several.setChecked(True)
    panel.several.setChecked(False)
    assert panel.mapping() == before
    assert "economy" in panel.metadata.shown()  # free again to keep for later
    assert not panel.category_columns.isVisible() and panel.category.isVisible()
    assert not panel.label_separator.isVisible()
    assert "different categories" in panel.category_hint()


def test_a_saved_mapping_comes_back_as_it_was_kept(qtbot):
    widget = MappingPanel()
    qtbot.addWidget(widget)
    kept = ColumnMapping(text_columns=["speech"], multi_label=True, category_columns=["health", "crime"])
    widget.set_table(_speeches(), kept)
    assert widget.several.isChecked() and widget.per_column.isChecked()
    assert widget.mapping() == kept  # not the guess: the study's own choice
    listed = ColumnMapping(text_columns=["speech"], multi_label=True, category_column="topics", label_separator="; ")
    widget.set_table(_speeches(), listed)
    assert widget.one_list.isChecked() and widget.label_separator.text() == "; "
    assert widget.mapping() == listed
    assert ColumnMapping.from_dict(listed.to_dict()) == listed


# -- the data-health view ---------------------------------------------------------------------------------
def _label_health():
    from guiapp.core.health.report import compute_health

    mapping = ColumnMapping(text_columns=["speech"], multi_label=True, category_columns=["economy", "health", "crime"])
    return compute_health(_speeches(), mapping, n_folds=5, test_share=None)


def test_the_health_view_shows_each_category_its_combinations_and_the_heatmap(qtbot):
    from guiapp.ui.steps.data.health_view import HealthReportView

    view = HealthReportView()
    qtbot.addWidget(view)
    view.resize(760, 1400)
    view.show()
    report = _label_health()
    view.set_report(report)
    chart = view.category_chart()
    assert chart.categories() == ["economy", "health", "crime"] and chart.counts() == [6, 6, 3]
    assert chart.flagged() == [False, False, True]  # 3 texts with crime: too few for 5 folds
    caption = view.findChild(QLabel, "category_caption").plain_text()
    assert "shares add up to more than 100 %" in caption
    assert "1 category in orange has too few training texts for 5-fold cross-validation" in caption
    assert "1 coded text has none of the categories" in caption
    combinations = view.combinations
    assert combinations.isVisible()
    lines = combinations.combination_lines()
    assert "economy + health: 2 coded texts" in lines and "none of the categories: 1 coded text" in lines
    heatmap = combinations.heatmap()
    assert heatmap.isVisible() and heatmap.categories() == ["crime", "economy", "health"]  # the study's order
    assert heatmap.cell_texts()[1] == ["2", "6", "2"]
    assert heatmap.pair_sentence(1, 0) == "2 coded texts have both “economy” and “crime”: 33 % of the 6 with “economy”."
    # a study with one category per text has no such section
    from tests.ui.sample_reports import ready_report

    view.set_report(ready_report())
    assert not combinations.isVisible()
    assert "largest first" in view.findChild(QLabel, "category_caption").plain_text()


# -- in the window ----------------------------------------------------------------------------------------------
def _wait_for_several(qtbot, page):
    qtbot.waitUntil(lambda: page.report is not None and page.report.label_health is not None and not page.is_busy(),
                    timeout=30_000)
    return page.report


def test_in_the_window_both_layouts_check_the_data_and_are_kept_in_the_study(qtbot, window):
    from tests.ui.helpers import SCREENSHOTS, save_screenshot, wait_for_report

    fixtures = Path(__file__).resolve().parents[3] / "fixtures"
    window.resize(1360, 900)
    window.open_path(fixtures / "multi_label_small.csv")
    wait_for_report(qtbot, window)
    page = window.data_page
    panel = page.mapping_panel
    assert page.report.label_health is None
    panel.several.setChecked(True)
    report = _wait_for_several(qtbot, page)
    assert panel.mapping().category_columns == ["economy", "health", "environment", "migration"]
    assert [c.label for c in report.label_health.categories] == ["economy", "environment", "health", "migration"]
    spec = page.data_spec()
    assert spec.mapping.multi_label and spec.mapping.category_columns == panel.mapping().category_columns
    assert spec.categories == ["economy", "environment", "health", "migration"]
    assert window.session.mapping == panel.mapping()  # what the study session keeps (projects, study files)
    qtbot.wait(50)
    save_screenshot(window, "data_multi_label_columns")
    page.health_view.content_widget().grab().save(str(SCREENSHOTS / "data_multi_label_health.png"))

    window.open_path(fixtures / "multi_label_small_delimited.csv")
    qtbot.waitUntil(lambda: page.table is not None and page.table.path.name == "multi_label_small_delimited.csv")
    wait_for_report(qtbot, window)
    panel.several.setChecked(True)
    assert panel.one_list.isChecked()  # no 0/1 columns here: the column that lists them
    panel.category.setCurrentText("topics")
    assert panel.label_separator.text() == ";"
    report = _wait_for_several(qtbot, page)
    assert page.mapping().category_column == "topics" and page.mapping().label_separator == ";"
    assert len(report.label_health.categories) == 4
    qtbot.wait(50)
    save_screenshot(window, "data_multi_label_one_column")

    panel.several.setChecked(False)  # back to one category per text
    qtbot.waitUntil(lambda: page.report is not None and page.report.label_health is None and not page.is_busy(),
                    timeout=30_000)
    assert not page.mapping().multi_label


def test_a_separate_file_of_test_texts_is_counted_with_several_categories():
    from guiapp.ui.steps.data.heldout_file_choice import read_test_file

    fixtures = Path(__file__).resolve().parents[3] / "fixtures"
    mapping = ColumnMapping(text_columns=["text"], multi_label=True,
                            category_columns=["economy", "health", "environment", "migration"])
    count, frame = read_test_file(str(fixtures / "multi_label_small.csv"), None, mapping)
    assert count == 90 and len(frame) == 96  # 6 rows have every category cell empty: not coded
    listed = ColumnMapping(text_columns=["text"], multi_label=True, category_column="topics")
    count, _ = read_test_file(str(fixtures / "multi_label_small_delimited.csv"), None, listed)
    assert count == 90
