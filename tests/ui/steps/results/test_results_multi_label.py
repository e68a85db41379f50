"""The Results step of a study where a text can have several categories: the headline keeps its form
and gains a line of micro-F1, exact match and Hamming loss; the models are compared on them; the scores
per category show each F1's interval and threshold; a grid of per-category 2×2 tables replaces the
confusion matrix (and "Check my codings…"); the paired comparison shows the paired bootstrap. A
single-label result shown afterwards looks as before. Screenshots go to screenshots/."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from guiapp.core.experiment.scores.comparisons import compare_models
from guiapp.core.experiment.scores.multilabel_metrics import (
    MULTI_LABEL_MEASURES,
    multilabel_test_result,
)
from guiapp.ui.steps.results.results_page import CATEGORY_TABLES_TAB, ResultsPage
from guiapp.ui.theme import AGREE_RGB, DISAGREE_RGB
from guiapp.ui.steps.results.category_confusions import CARD_WIDTH, cell_colour
from tests.core.export.test_multi_label_export import multi_label_result
from tests.ui.helpers import save_screenshot, settle_chart
from tests.ui.sample_results import sample_result

POLICY = ["Economy", "Health care", "Immigration", "Environment", "Education", "Defence", "Civil rights",
          "Agriculture", "Housing", "Transport", "Energy", "Foreign trade", "Social welfare", "Law and crime",
          "Science and technology", "Government operations"]


@pytest.fixture(scope="module")
def result():
    return multi_label_result()


@pytest.fixture
def page(qtbot, result):
    view = ResultsPage()
    qtbot.addWidget(view)
    view.resize(1090, 760)
    view.show()
    view.show_result(result)
    return view


def wide_result():
    """The sample study with 16 categories and 60 test texts (predictions with some mistakes)."""
    study = multi_label_result()
    rng = np.random.default_rng(4)
    truth = (rng.random((60, len(POLICY))) < np.linspace(0.35, 0.08, len(POLICY))).astype(np.uint8)
    study.categories = list(POLICY)
    study.test_true = [[int(k) for k in np.flatnonzero(row)] for row in truth]
    study.test_rows, study.test_ids = list(range(2, 62)), list(range(60))
    study.test_texts = [f"Bill {i}" for i in range(60)]
    study.split = dict(study.split, n_test=60, n_train=140)
    for position, model in enumerate(study.models):
        flips = rng.random(truth.shape) < (0.06 + 0.05 * position)
        predicted = np.where(flips, 1 - truth, truth).astype(np.uint8)
        model.test = multilabel_test_result(truth, predicted, POLICY, samples=100, seed=position)
        model.predictions = [[int(k) for k in np.flatnonzero(row)] for row in predicted]
        model.probabilities = np.where(predicted == 1, 0.8, 0.2).tolist()
        model.thresholds = [0.5] * len(POLICY)
    return study


def test_headline_keeps_its_form_and_a_line_adds_the_other_measures(page, result):
    best = result.best()
    low, high = best.test.macro_f1_ci
    assert page.headline_text().startswith(
        f"Recommended: {best.name}, macro-F1 {best.test.macro_f1:.2f} (95 % interval {low:.2f}–{high:.2f}) "
        "on 12 test texts.")
    line = page.measures_line
    assert line.isVisible()
    assert line.texts() == [
        f"Micro-F1 {best.test.micro_f1:.2f}",
        "All categories of a text right: 75 % of the 12 test texts",
        f"Hamming loss {best.test.hamming_loss:.3f} (6.2 % of the yes/no decisions wrong)",
    ]
    assert MULTI_LABEL_MEASURES["micro_f1"][1][1:] in line.micro.toolTip()
    assert MULTI_LABEL_MEASURES["accuracy"][1][1:] in line.exact.toolTip()
    assert MULTI_LABEL_MEASURES["hamming_loss"][1][1:] in line.hamming.toolTip()
    assert "several categories" in page.headline_label.toolTip()


def test_the_models_are_compared_on_every_measure(page, result):
    table = page.models_table
    assert table.isVisible()
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == [
        "Model", "Macro-F1", "95 % interval", "Micro-F1", "All categories right", "Hamming loss"]
    rows = table.rows()
    for row, model in zip(rows, result.ranked(), strict=True):
        test = model.test
        assert row == [model.name, f"{test.macro_f1:.2f}", f"{test.macro_f1_ci[0]:.2f}–{test.macro_f1_ci[1]:.2f}",
                       f"{test.micro_f1:.2f}", f"{test.accuracy * 100:.0f} %", f"{test.hamming_loss:.3f}"]
    assert "Hamming loss:" in table.horizontalHeaderItem(5).toolTip()


def test_scores_per_category_show_the_f1_interval_and_the_threshold(page, result):
    best = result.best()
    table = page.category_table
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == [
        "Category", "Precision", "Recall", "F1", "F1 interval (95 %)", "Coded (test texts)", "Predicted (test texts)",
        "Threshold"]
    shown = {row[0]: row[1:] for row in table.rows()}
    for scores, threshold in zip(best.test.per_category, best.thresholds, strict=True):
        low, high = scores.f1_ci
        assert shown[scores.category] == [f"{scores.precision:.2f}", f"{scores.recall:.2f}", f"{scores.f1:.2f}",
                                          f"{low:.2f}–{high:.2f}", str(scores.support), str(scores.predicted),
                                          f"{threshold:.2f}"]
    assert "tuned on the training texts" in page.category_caption.plain_text()
    assert "threshold" in page.category_caption.explained_terms()


def shown(page) -> None:
    """Let the layout settle, as it does on screen, before a picture."""
    QApplication.processEvents()
    settle_chart(page.f1_chart)
    QApplication.processEvents()


def test_a_grid_of_yes_no_tables_replaces_the_confusion_matrix(page, result):
    page.show_tab("Confusion matrix")
    shown(page)
    index = page.tabs.currentIndex()
    assert page.tabs.tabText(index) == CATEGORY_TABLES_TAB
    assert page.check_codings_button.isHidden() and page.save_heatmap_button.isHidden()
    assert page.heatmap_scroll.isHidden() and not page._heatmap_slot.is_made()  # no matrix drawn
    grid = page.category_grid
    assert grid.categories() == result.categories
    health = grid.card("Health")  # coded 4, the model put 5 there: one added
    assert health.cell_texts() == [["4\n100 %", "0\n0 %"], ["1\n12 %", "7\n88 %"]]
    assert health.footer.text() == "F1 0.89 (0.50–1.00) · threshold 0.50"
    colours = health.cell_colours()
    assert colours[0][0] == cell_colour(4, 1.0, True).name() and colours[1][0] == cell_colour(1, 1 / 8, False).name()
    blue, orange = cell_colour(4, 1.0, True), cell_colour(1, 1 / 8, False)
    assert blue.blue() > blue.red() and abs(blue.blue() - AGREE_RGB[2]) < 30  # agreement: blue
    assert orange.red() > orange.blue() and DISAGREE_RGB[0] > DISAGREE_RGB[2]  # a mistake: orange
    assert "the model added 1 (12 %) to it" in health.cells[1][0].toolTip()
    assert "Rows: whether you coded" in page.confusion_caption.plain_text()
    save_screenshot(page, "results_multi_label_tables")


def test_the_paired_comparison_shows_the_bootstrap(page, qtbot, result):
    qtbot.waitUntil(lambda: page.comparison.comparisons is not None, timeout=20_000)
    found = compare_models(result)
    view = page.comparison
    assert view.headline_text() == "\n".join(found.headline)
    table = view.pairs_table
    assert table.horizontalHeaderItem(2).text() == "Macro-F1: A − B"
    pair = found.test_set[0]
    row = table.rows()[0]
    assert row[:3] == [pair.model_a, pair.model_b, f"{pair.mean_difference:+.3f}".replace("-", "−")]
    assert table.item(0, 0).toolTip() == found.test_set_sentences[0]
    assert "paired bootstrap" in view.pairs_caption.plain_text()
    assert view.agreement_table.horizontalHeaderItem(1).text() == "All categories right"
    assert "Economy:" in view.agreement_table.item(0, 2).toolTip()
    page.show_tab("Real difference?")
    shown(page)
    save_screenshot(page, "results_multi_label_difference")
    view.resize(1040, view.sizeHint().height())
    QApplication.processEvents()
    save_screenshot(view, "results_multi_label_difference_tables")


def test_screenshots_of_the_overview_and_the_scores_per_category(page):
    page.show_tab("Per category")
    shown(page)
    save_screenshot(page, "results_multi_label_overview")


def test_sixteen_categories_wrap_into_columns_and_scroll_down(qtbot):
    view = ResultsPage()
    qtbot.addWidget(view)
    view.resize(1090, 760)
    view.show()
    wide = wide_result()
    view.show_result(wide)
    view.show_tab("Confusion matrix")
    shown(view)
    grid = view.category_grid
    assert grid.categories() == POLICY
    assert grid.columns() == view.category_scroll.viewport().width() // (CARD_WIDTH + 10) >= 3
    assert grid.width() <= view.category_scroll.viewport().width()  # never sideways
    assert view.category_scroll.verticalScrollBar().maximum() > 0  # the rest is a scroll away
    assert all(card.title.toolTip() == card.category for card in grid.cards())
    save_screenshot(view, "results_multi_label_16_categories")
    view.category_scroll.verticalScrollBar().setValue(view.category_scroll.verticalScrollBar().maximum())
    save_screenshot(view, "results_multi_label_16_categories_end")


def test_a_single_label_result_afterwards_looks_as_before(page):
    single = sample_result()
    page.show_result(single)
    assert page.measures_line.isHidden() and page.models_table.isHidden()
    assert page.tabs.tabText(1) == "Confusion matrix"
    assert not page.check_codings_button.isHidden() and not page.heatmap_scroll.isHidden()
    assert page.category_scroll.isHidden()
    assert [page.category_table.horizontalHeaderItem(c).text() for c in range(page.category_table.columnCount())] == [
        "Category", "Precision", "Recall", "F1", "Test texts (support)"]
    assert "accuracy" in page.summary_label.text() and "micro-F1" not in page.summary_label.text()


def test_the_category_columns_are_not_taken_for_counts_of_coders(page, result, monkeypatch):
    """The 0/1 column of each category looks like a count of coders per category; a text with several
    categories makes such counts meaningless, so the models are not held against "coders"."""
    import pandas as pd

    rows = 40  # the training texts first; the test texts are spreadsheet rows 30 to 41
    answers = [[i % 4, (i + 1) % 4] for i in range(rows)]  # most texts have two categories: like two coders
    coded = {name: [int(k in answer) for answer in answers] for k, name in enumerate(result.categories)}
    table = pd.DataFrame({"Text": [f"Training text {i}" for i in range(rows - 12)] + result.test_texts,
                          "ID": [f"T{i:02d}" for i in range(rows - 12)] + result.test_ids, **coded})
    monkeypatch.setattr(page, "tables", lambda: (table, result.study_source.mapping, None))
    page._show_coders(result)
    assert not page.comparison.coders_busy() and page.comparison.coders_title.isHidden()


def test_choosing_csv_in_the_export_dialog_writes_a_folder_of_tables(page, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from guiapp.ui.steps.results.results_export import EXCEL_FILTER

    chosen = EXCEL_FILTER.split(";;")[1]
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "speeches.csv"), chosen))
    with qtbot.waitSignal(page.statusMessage, timeout=60_000) as said:
        page.export.excel_button.click()
    assert said.args[0] == f"Saved 4 CSV files in {tmp_path / 'speeches'}"
    assert sorted(path.name for path in (tmp_path / "speeches").iterdir()) == [
        "model comparison.csv", "per-category tables.csv", "scores per category.csv", "test texts.csv"]
    assert "multi-label" not in page.export.excel_button.toolTip() and "yes/no table" in page.export.excel_button.toolTip()
    qtbot.waitUntil(page.export.excel_button.isEnabled, timeout=10_000)
