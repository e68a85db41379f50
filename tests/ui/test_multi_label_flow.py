"""A study where a text can have several categories, by clicks through the window: the Data step's
box, the Models step, the run, and the steps that work with one category per text only saying so."""

from __future__ import annotations

import shutil
from pathlib import Path

from guiapp.ui.steps import CODING_STEP, FINDINGS_STEP, MODELS_STEP, RESULTS_STEP
from tests.ui.helpers import wait_for_report

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "multi_label_small.csv"


def test_a_multi_label_study_from_the_data_step_to_the_results(qtbot, window, tmp_path):
    from guiapp.core.experiment.runner import run_experiment

    source = tmp_path / "speeches.csv"
    shutil.copy(FIXTURE, source)
    window.open_path(source)
    wait_for_report(qtbot, window)
    panel = window.data_page.mapping_panel
    panel.several.setChecked(True)
    qtbot.waitUntil(lambda: window.data_page.mapping().multi_label)
    mapping = window.data_page.mapping()
    assert mapping.category_columns == ["economy", "health", "environment", "migration"]
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))

    window.steps.setCurrentRow(CODING_STEP)  # one category per text only: it says so
    coding = window.coding_page
    qtbot.waitUntil(lambda: coding.empty.isVisible())
    assert "several categories" in coding.empty.label.text() and not coding.content.isVisible()

    window.run_page.run_fn = lambda spec, on_event, **kwargs: run_experiment(spec, on_event, n_jobs=1, **kwargs)
    page = window.models_page
    window.steps.setCurrentRow(MODELS_STEP)
    page.choice.none_button.click()
    page.choice.checkbox("bow", "logistic_regression").click()
    page.choice.checkbox("bow", "naive_bayes").click()
    wait_for_report(qtbot, window)
    assert page.run_button.isEnabled(), page.run_button.toolTip()
    page.run_button.click()
    qtbot.waitUntil(lambda: window.steps.currentRow() == RESULTS_STEP or window.run_page.state() in ("failed", "finished"), timeout=90_000)
    assert window.steps.currentRow() == RESULTS_STEP, window.run_page.log_text() if hasattr(window.run_page, "log_text") else window.run_page.state()
    qtbot.waitUntil(lambda: not window.run_page.is_busy())
    result = window.results_page.result
    assert result is not None and result.multi_label
    assert [model.status for model in result.models] == ["done"] * 4
    assert all(len(model.thresholds) == 4 for model in result.models)

    if window.steps.is_step_enabled(FINDINGS_STEP):
        window.steps.setCurrentRow(FINDINGS_STEP)
    findings = window.findings_page
    findings.refresh()
    assert findings.empty.isVisibleTo(findings) and "one category per text" in findings.empty.heading.text()
