"""A study where a text can have several categories, by clicks through the window: the Data step's
box, the Models step, the run, and the steps that work with one category per text only saying so."""

from __future__ import annotations

import shutil
from pathlib import Path

from guiapp.ui.common.step_order import CODING_STEP, FINDINGS_STEP, MODELS_STEP, PREDICT_STEP, RESULTS_STEP
from tests.ui.helpers import wait_for_report

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "multi_label_small.csv"


def test_a_multi_label_study_from_the_data_step_to_the_results(qtbot, window, tmp_path):
    from guiapp.core.experiment.run.runner import run_experiment

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

    window.steps.setCurrentRow(CODING_STEP)  # the uncoded texts are coded with check boxes
    coding = window.coding_page
    qtbot.waitUntil(lambda: coding.content.isVisible() and coding.text_view.codes_several())
    assert coding.current is not None and not coding.empty.isVisible()

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

    findings = window.findings_page
    assert findings.sources() == ["table"]  # nothing predicted yet: the table's own codings, each category on its own

    window.steps.setCurrentRow(PREDICT_STEP)  # the table's rows not yet coded
    predict = window.predict_page
    predict.source.use_uncoded_rows()
    qtbot.wait(50)
    predict.predict()
    qtbot.waitUntil(lambda: predict.found is not None and not predict.is_busy(), timeout=60_000)
    assert predict.found.predictions[0].multi_label

    qtbot.waitUntil(lambda: window.steps.is_step_enabled(FINDINGS_STEP))
    window.steps.setCurrentRow(FINDINGS_STEP)
    qtbot.waitUntil(lambda: findings.findings is not None, timeout=60_000)
    found = findings.findings
    assert [share.category for share in found.overall()] == result.categories
    assert "each category's share is the share of texts that have it" in found.assumption
