"""The Results step shows exactly the numbers of an ExperimentResult, in the user's words."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QPushButton

from guiapp.core.models.conventional import describe_params
from guiapp.ui.steps.results.results_page import (
    EMPTY_TEXT,
    OVERLAP_TEXT,
    TAB_NAMES,
    ResultsPage,
)
from guiapp.ui.theme import BAR_COLOR, BEST_COLOR, CHOSEN_BACKGROUND
from guiapp.ui.common.chart_base import SAVE_ACTION_TEXT
from guiapp.ui.common.confusion_heatmap import ConfusionHeatmap
from guiapp.ui.steps.results.results_charts import F1BarChart, format_seconds
from tests.ui.helpers import save_screenshot, settle_chart
from tests.ui.sample_results import FAILED_MESSAGE, policy_result, sample_result


@pytest.fixture(scope="module")
def result():
    return sample_result()


@pytest.fixture
def page(qtbot, result):
    view = ResultsPage()
    qtbot.addWidget(view)
    view.resize(1090, 760)
    view.show()
    view.show_result(result)
    return view


def test_empty_state_before_any_result(qtbot):
    view = ResultsPage()
    qtbot.addWidget(view)
    assert view.stack.currentWidget() is view.empty
    assert view.empty_label.text() == EMPTY_TEXT
    view.show_result(sample_result())
    assert view.stack.currentWidget() is view.content
    view.clear()
    assert view.stack.currentWidget() is view.empty and view.model_names() == []


def test_headline_names_the_best_model_with_its_interval(page, result):
    best = result.best()
    low, high = best.test.macro_f1_ci
    assert page.headline_text() == (
        f"Recommended: {best.name}, macro-F1 {best.test.macro_f1:.2f} "
        f"(95 % interval {low:.2f}–{high:.2f}) on 1,335 test texts. {result.recommendation().reason}"
    )
    assert "chosen before the test texts were looked at" in page.headline_text()
    assert f"<b>{best.name}</b>" in page.headline_label.text()
    assert "Macro-F1:" in page.headline_label.toolTip()


def test_caution_when_the_top_intervals_overlap(page, result):
    first, second = result.ranked()[:2]
    assert first.test.macro_f1_ci[0] <= second.test.macro_f1_ci[1]  # the sample's top two overlap
    assert page.caution_text() == OVERLAP_TEXT


def test_no_caution_when_the_best_model_is_clearly_ahead(qtbot):
    clear = sample_result()
    best, second = clear.ranked()[:2]
    best.test.macro_f1_ci = (second.test.macro_f1_ci[1] + 0.01, best.test.macro_f1_ci[1] + 0.02)
    view = ResultsPage()
    qtbot.addWidget(view)
    view.show()
    view.show_result(clear)
    assert view.caution_text() == ""


def test_bars_are_sorted_best_first_with_the_best_highlighted(page, result):
    chart = page.f1_chart
    ranked = result.ranked()
    values = chart.bar_values()
    assert [name for name, *_ in values] == [model.name for model in ranked]
    assert [value for _, value, _, _ in values] == [model.test.macro_f1 for model in ranked]
    assert [v for _, v, _, _ in values] == sorted((v for _, v, _, _ in values), reverse=True)
    assert chart.bar_colours() == [BEST_COLOR] + [BAR_COLOR] * (len(ranked) - 1)
    assert list(chart.bar_item().opts["width"]) == [model.test.macro_f1 for model in ranked]
    assert chart.best_name() == ranked[0].name
    assert chart.axis_labels() == [model.name for model in ranked]
    assert chart.getPlotItem().getAxis("bottom").labelText == "macro-F1 (agreement with your coding)"


def test_whiskers_are_the_intervals(page, result):
    chart = page.f1_chart
    ranked = result.ranked()
    for (low, high), model in zip(chart.whiskers(), ranked, strict=True):
        assert low == pytest.approx(model.test.macro_f1_ci[0])
        assert high == pytest.approx(model.test.macro_f1_ci[1])
    assert chart.value_labels()[0] == (
        f"{ranked[0].test.macro_f1:.2f}  ({ranked[0].test.macro_f1_ci[0]:.2f}–{ranked[0].test.macro_f1_ci[1]:.2f})"
    )


def test_every_bar_label_fits_inside_the_chart(qtbot, page):
    chart = page.f1_chart
    for width in (1000, 640, 480, 1000, 640):  # wide after narrow too
        chart.resize(width, chart.height())
        settle_chart(chart)  # synchronously: no timing on a busy machine
        assert chart.width() == width
        right = chart.getPlotItem().getViewBox().sceneBoundingRect().right()
        for item in chart._value_items:
            assert item.sceneBoundingRect().right() <= right + 1, (width, item.toPlainText())


def test_failed_models_are_listed_with_their_message(page, result):
    failed = [model for model in result.models if not model.ok]
    assert page.failed_texts() == [f"{failed[0].name}: {FAILED_MESSAGE}"]
    assert page.failed_label.isVisible()
    assert "Did not finish (1)" in page.failed_label.text() and "ran out of memory" in page.failed_label.text()
    assert failed[0].name not in page.model_names()  # nothing to show in the details


def test_picker_lists_models_best_first_and_follows_a_click_on_a_bar(page, result):
    ranked = result.ranked()
    assert page.model_names() == [model.name for model in ranked]
    assert page.picker.itemText(0) == f"1. {ranked[0].name}  ({ranked[0].test.macro_f1:.2f})"
    assert page.chosen_model() is ranked[0]
    page.f1_chart.modelClicked.emit(ranked[2].name)
    assert page.chosen_model() is ranked[2]
    assert page.summary_label.text().startswith(f"macro-F1 {ranked[2].test.macro_f1:.2f}")
    assert "rank 3 of 4" in page.summary_label.text()


def test_per_category_table_shows_the_results_numbers(page, result):
    page.choose_model(result.ranked()[1].name)
    model = result.ranked()[1]
    table = page.category_table
    shown = {row[0]: row[1:] for row in table.rows()}
    assert [table.horizontalHeaderItem(c).text() for c in range(5)] == [
        "Category", "Precision", "Recall", "F1", "Test texts (support)"]
    for score in model.test.per_category:
        assert shown[score.category] == [f"{score.precision:.2f}", f"{score.recall:.2f}", f"{score.f1:.2f}",
                                         f"{score.support:,}"]
    f1_order = [float(row[3]) for row in table.rows()]
    assert f1_order == sorted(f1_order, reverse=True)  # weakest category last
    table.sortItems(4, Qt.SortOrder.AscendingOrder)  # numbers sort as numbers, not as text
    supports = [int(row[4].replace(",", "")) for row in table.rows()]
    assert supports == sorted(supports)
    assert table.horizontalHeaderItem(1).toolTip().startswith("Precision: Of the texts the model put")
    assert "the model put" in table.item(0, 2).toolTip()


def test_heatmap_cells_show_counts_and_row_shares(page, result):
    page.show_tab("Confusion matrix")
    heatmap = page.heatmap
    model = result.ranked()[0]
    matrix = model.test.confusion
    assert heatmap.matrix() == matrix
    assert heatmap.categories() == result.categories
    texts = heatmap.cell_texts()
    for r, row in enumerate(matrix):
        for c, count in enumerate(row):
            share = count / sum(row)
            assert texts[r][c] == f"{count:,}\n{share * 100:.0f} %"
    assert heatmap.row_labels() == result.categories
    assert heatmap.column_labels() == result.categories
    assert not heatmap.columns_turned()
    plot = heatmap.getPlotItem()
    assert plot.getAxis("left").labelText == "Your coding"
    assert plot.getAxis("bottom").labelText == "Model's prediction"
    # agreement cells are blue, mistakes orange, stronger for larger shares
    diagonal = heatmap.cell_colour(0, 0)
    assert diagonal.blue() > diagonal.red()
    mistake = heatmap.cell_colour(0, 1)
    assert mistake.red() > mistake.blue()


def test_heatmap_with_twenty_categories_stays_readable(qtbot):
    heatmap = ConfusionHeatmap()
    qtbot.addWidget(heatmap)
    result = policy_result()
    model = result.ranked()[0]
    heatmap.set_matrix(result.categories, model.test.confusion)
    heatmap.resize(heatmap.minimumSize())
    heatmap.show()
    qtbot.waitExposed(heatmap)
    assert heatmap.minimumWidth() >= 20 * ConfusionHeatmap.MIN_CELL
    assert heatmap.columns_turned()  # long names are written sideways under the columns
    shown = heatmap.column_labels()
    assert len(shown) == 20 and all(len(name) <= len(full) for name, full in zip(shown, result.categories, strict=True))
    assert heatmap.cell_texts()[0][0].startswith(f"{model.test.confusion[0][0]:,}\n")
    empty = [(r, c) for r in range(20) for c in range(20) if model.test.confusion[r][c] == 0]
    assert empty and all(heatmap.cell_texts()[r][c] == "" for r, c in empty)


def test_tuning_tab_marks_the_chosen_setting(page, result):
    page.show_tab("Tuning")
    model = result.ranked()[0]
    assert page.chosen_label.plain_text() == f"Chosen setting: {describe_params(model.classifier, model.chosen_params)}"
    folds = page.folds_label.plain_text()
    assert folds.startswith(f"Its macro-F1 on each of the {len(model.cv_scores)} folds of cross-validation:")
    assert f"mean {sum(model.cv_scores) / len(model.cv_scores):.2f}" in folds
    table = page.grid_table
    rows = table.rows()
    assert len(rows) == len(model.grid)
    means = [float(row[1]) for row in rows]
    assert means == sorted(means, reverse=True)
    chosen = table.chosen_row()
    assert chosen is not None
    assert rows[chosen][0].startswith("✔ ") and rows[chosen][0].endswith("(chosen)")
    assert [i for i, row in enumerate(rows) if row[0].startswith("✔")] == [chosen]
    assert table.item(chosen, 1).background().color().name() == CHOSEN_BACKGROUND
    best_point = max(model.grid, key=lambda point: point.mean)
    assert rows[chosen][1] == f"{best_point.mean:.2f}" and rows[chosen][2] == f"± {best_point.std:.2f}"


def test_time_tab_shows_stage_durations_and_a_chart(page, result):
    page.show_tab("Time")
    model = result.ranked()[0]
    rows = page.times_table.rows()
    assert rows[0] == ["Turning the texts into numbers", format_seconds(model.seconds["features"])]
    assert rows[-1] == ["Total", format_seconds(model.seconds["total"])]
    assert page.time_chart.seconds() == [m.seconds["total"] for m in result.ranked()]
    assert format_seconds(75) == "1 min 15 s" and format_seconds(3.25) == "3.2 s"


def test_every_chart_can_be_saved(page, tmp_path):
    for chart in (page.f1_chart, page.heatmap, page.time_chart):
        assert chart.context_menu().actions()[0].text() == SAVE_ACTION_TEXT
        png = chart.export(tmp_path / f"{chart.objectName() or 'chart'}.png")
        assert not QImage(str(png)).isNull()
        svg = chart.export(tmp_path / f"{chart.objectName() or 'chart'}.svg")
        assert svg.read_text(encoding="utf-8").lstrip().startswith("<")
    names = {button.objectName() for button in page.findChildren(QPushButton)}
    assert {"saveF1Chart", "saveHeatmap", "saveTimeChart"} <= names


def test_tabs_are_the_four_details(page):
    assert [page.tabs.tabText(i) for i in range(page.tabs.count())] == list(TAB_NAMES)


def test_a_result_where_no_model_finished(qtbot):
    result = sample_result(models=[("word_vectors", "xgboost", None)])
    view = ResultsPage()
    qtbot.addWidget(view)
    view.show()
    view.show_result(result)
    assert view.headline_text().startswith("No model finished")
    assert view.f1_chart.message() == F1BarChart.EMPTY_TEXT
    assert view.failed_texts() == [f"XGBoost · Word vectors: {FAILED_MESSAGE}"]
    assert not view.tabs.isEnabled() and view.model_names() == []


# -- screenshots (screenshots/, gitignored) ---------------------------------------------------------------
def test_screenshots_of_the_results_page(qtbot, page):
    page.resize(1090, 740)  # the page's room in a 1280 × 820 window
    qtbot.wait(30)
    save_screenshot(page, "results_page")
    page.show_tab("Tuning")
    qtbot.wait(30)
    save_screenshot(page, "results_page_tuning")
    page.show_tab("Time")
    qtbot.wait(30)
    save_screenshot(page, "results_page_time")
    page.show_tab("Confusion matrix")
    page.resize(810, 610)  # a 1000 × 700 window
    qtbot.wait(30)
    save_screenshot(page, "results_page_small")


def test_screenshot_of_twenty_categories(qtbot):
    view = ResultsPage()
    qtbot.addWidget(view)
    view.resize(1090, 740)
    view.show()
    view.show_result(policy_result())
    view.show_tab("Confusion matrix")
    qtbot.wait(30)
    save_screenshot(view, "results_page_20_categories")
    save_screenshot(view.heatmap, "results_confusion_20_categories")
    view.show_tab("Per category")
    qtbot.wait(30)
    save_screenshot(view, "results_page_20_categories_table")


def test_a_category_neither_coded_nor_predicted_in_the_test_texts_has_no_score(qtbot):
    from guiapp.core.experiment.scores.metrics import CategoryScores
    from guiapp.ui.steps.results.results_tables import CategoryScoresTable

    table = CategoryScoresTable()
    qtbot.addWidget(table)
    table.set_scores([CategoryScores("economy", 0.8, 0.9, 0.85, 20, 22), CategoryScores("defence", 0.0, 0.0, 0.0, 0, 3),
                      CategoryScores("fisheries", 0.0, 0.0, 0.0, 0, 0)])
    rows = {row[0]: row for row in table.rows()}
    assert rows["fisheries"][1:4] == ["—", "—", "—"]
    assert "does not count in the macro-F1" in table.item(table.rows().index(rows["fisheries"]), 3).toolTip()
    defence = table.rows().index(rows["defence"])
    assert rows["defence"][3] == "0.00" and "counts as 0 in the macro-F1" in table.item(defence, 3).toolTip()


def test_the_recommended_model_is_the_green_bar_even_when_another_scored_higher(qtbot):
    from guiapp.ui.steps.results.results_charts import F1BarChart

    chart = F1BarChart()
    qtbot.addWidget(chart)
    chart.set_scores([("stacking", 0.79, 0.73, 0.83), ("logistic regression", 0.77, 0.71, 0.81)],
                     recommended="logistic regression")
    assert [name for name, *_ in chart.bar_values()] == ["stacking", "logistic regression"]  # highest first
    assert chart.bar_colours() == [BAR_COLOR, BEST_COLOR]
    assert chart.best_name() == "logistic regression"
