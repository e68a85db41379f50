"""The Results step shows a combined model like any model, says what it combines and how, and
compares the models pairwise (in a background job)."""

from __future__ import annotations

import pytest

from guiapp.core.experiment.run.runner import run_experiment
from guiapp.ui.steps.results.results_page import TAB_NAMES, ResultsPage
from tests.core.experiment.run.test_runner import QUICK, study
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
    page.show_tab("Real difference?")
    qtbot.waitUntil(lambda: page.comparison.comparisons is not None, timeout=30000)
    assert "highest macro-F1" in page.comparison.headline_text()
    assert page.comparison.pairs_table.rowCount() == 6  # 4 models: every pair
    save_screenshot(page, "results_combined_comparison")


def test_a_transformer_best_on_the_edge_of_its_grid_offers_a_wider_grid(qtbot, window, result):
    import copy

    from guiapp.ui.main_window import MODELS_STEP, RESULTS_STEP

    shown = copy.deepcopy(result)
    transformer = shown.models[0]
    transformer.name, transformer.representation, transformer.classifier = "Fine-tuned MiniLM", "transformer", "fine_tune"
    transformer.chosen_params = {"learning_rate": 1e-4, "epochs": 6}
    transformer.grid = []
    transformer.spec = {"tuning": "one validation split (20% of the training texts)", "setting_choice": {
        "chosen": 0, "best": 0, "rule": "cheapest within noise", "standard_error": 0.03, "interval": [0.7, 0.8],
        "within_noise": [0], "edges": {"epochs": "highest"},
        "extended_grid": {"learning_rate": [5e-5, 1e-4], "epochs": [2, 4, 6, 8]}}}
    window.session.set_result(shown, {})
    window.go_to_step(RESULTS_STEP)
    page = window.results_page
    page.choose_model("Fine-tuned MiniLM")
    page.show_tab("Tuning")
    assert page.extend_button.isVisible()
    page.extend_button.click()
    assert window.steps.currentRow() == MODELS_STEP
    assert window.models_page.settings.grids["fine_tune"]["epochs"] == [2, 4, 6, 8]
    page.choose_model(result.models[1].name)
    assert not page.extend_button.isVisible()
