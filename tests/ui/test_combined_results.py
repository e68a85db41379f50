"""The Results step shows a combined model like any model, says what it combines and how, and
compares the models pairwise (in a background job)."""

from __future__ import annotations

import pytest

from guiapp.core.experiment.runner import run_experiment
from guiapp.ui.pages.results_page import TAB_NAMES, ResultsPage
from tests.core.experiment.test_runner import QUICK, study
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return run_experiment(study(QUICK), table=coded_texts(180), n_jobs=1,
                          artefacts_dir=tmp_path_factory.mktemp("models"))


def test_a_combined_model_is_shown_with_its_parts_weights_and_times(qtbot, result):
    page = ResultsPage()
    qtbot.addWidget(page)
    page.resize(1100, 820)
    page.show()
    page.show_result(result)
    assert "Combined: weighted vote" in page.model_names() and "Combined: stacking" in page.model_names()
    page.choose_model("Combined: weighted vote")
    page.show_tab("Tuning")
    assert page.tabs.tabText(TAB_NAMES.index("Tuning")) == "How it combines"
    assert "combines 2 models" in page.summary_label.text()
    described = page.tuning_label.plain_text()
    assert described.startswith("A weighted vote: it averages the probabilities of")
    assert result.models[0].name in described and result.models[1].name in described
    assert "out-of-fold" in page.chosen_label.plain_text() and "held-out parts" in page.folds_label.plain_text()
    assert not page.grid_table.isVisible()
    page.choose_model("Combined: stacking")
    assert page.tuning_label.plain_text().startswith("Stacking: a logistic regression")
    page.choose_model(result.models[0].name)  # a single model: its tuning again
    assert page.tabs.tabText(TAB_NAMES.index("Tuning")) == "Tuning" and page.grid_table.isVisible()
    page.show_tab("Is the best really better?")
    qtbot.waitUntil(lambda: page.comparison.comparisons is not None, timeout=30000)
    assert "highest macro-F1" in page.comparison.headline_text()
    assert page.comparison.pairs_table.rowCount() == 6  # 4 models: every pair
    save_screenshot(page, "results_combined_comparison")
