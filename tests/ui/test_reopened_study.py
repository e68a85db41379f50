"""A study saved and opened again in a new window goes on where it stopped: the Predict step shows
the texts it predicted, the Findings step the corpus, model and groups it measured (with its shares
at once), the Run step the last run with "Run again", and the Findings step's quick model reads the
texts' embeddings from the cache instead of embedding them again."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.coding import quick_model
from guiapp.core.project.saving import save_project
from guiapp.ui.common.step_order import FINDINGS_STEP, MODELS_STEP, PREDICT_STEP, RUN_STEP
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, wait_for_report


def new_window(qtbot):
    from guiapp.ui.main_window import MainWindow

    window = MainWindow()
    window.files.ask_before_closing = False
    window.run_page.ask_before_large_runs = False
    qtbot.addWidget(window)
    window.resize(1280, 860)
    window.show()
    return window


def reopen(qtbot, path):
    window = new_window(qtbot)
    window.open_path(path)
    qtbot.waitUntil(lambda: window.results_page.result is not None and not window.project.is_busy(), timeout=60_000)
    wait_for_report(qtbot, window)
    return window


def measured(page, source: str, group: str = "") -> bool:
    return (page.findings is not None and not page.is_busy() and page.inputs is not None
            and page.inputs.source == source and (page.findings.group_name or "") == group)


def test_predictions_findings_and_run_come_back(qtbot, window, project, tmp_path, isolated_settings):
    first = tmp_path / "study.textlab"
    save_project(first, project)
    window.open_path(first)
    qtbot.waitUntil(lambda: window.predict_page.has_models() and not window.project.is_busy(), timeout=60_000)
    wait_for_report(qtbot, window)

    new = tmp_path / "new texts.csv"
    coded_texts(90, seed=8).drop(columns="label").assign(year=np.arange(90) % 7 + 2000).to_csv(new, index=False)
    window.go_to_step(PREDICT_STEP)
    predict = window.predict_page
    predict.open_path(new)
    qtbot.waitUntil(lambda: predict.predict_button.isEnabled(), timeout=30_000)
    predict.predict_button.click()
    qtbot.waitUntil(lambda: predict.answers_box.isVisible() and not predict.is_busy(), timeout=60_000)
    shown_counts = predict.counts_model.frame().copy()

    window.go_to_step(FINDINGS_STEP)
    findings = window.findings_page
    qtbot.waitUntil(lambda: measured(findings, "predicted"), timeout=60_000)
    findings.group_combo.setCurrentIndex(findings.group_combo.findData("year"))
    qtbot.waitUntil(lambda: measured(findings, "predicted", "year"), timeout=60_000)
    shares_before = [findings.shares.cell_text(row, 1) for row in range(findings.shares.rowCount())]
    model = findings.model_combo.currentText()
    saved = tmp_path / "predicted.textlab"
    assert window.project.save_and_wait(saved)

    again = reopen(qtbot, saved)
    again.go_to_step(PREDICT_STEP)
    predict = again.predict_page
    assert predict.answers_box.isVisible()
    assert "90 texts predicted" in predict.summary.text() and "new texts.csv" in predict.summary.text()
    assert predict.preview_model.rowCount() == 90
    assert "kept in the project" in predict.source.label.text()  # not "No texts chosen yet" above the answers
    assert predict.counts_model.frame().equals(shown_counts)
    save_screenshot(predict, "predict_reopened")

    again.go_to_step(FINDINGS_STEP)
    findings = again.findings_page
    sources = [findings.source_combo.itemData(i) for i in range(findings.source_combo.count())]
    assert sources == ["predicted", "table"] and findings.source_combo.currentData() == "predicted"
    assert findings.model_combo.currentText() == model
    assert [findings.shares.cell_text(row, 1) for row in range(findings.shares.rowCount())] == shares_before
    qtbot.waitUntil(lambda: measured(findings, "predicted", "year"), timeout=60_000)  # measured again, as it was
    assert findings.group_combo.currentData() == "year"
    assert [findings.shares.cell_text(row, 1) for row in range(findings.shares.rowCount())] == shares_before
    save_screenshot(findings, "findings_reopened")

    assert again.steps.is_step_enabled(RUN_STEP)
    assert again.models_page.run_button.isEnabled()
    again.go_to_step(RUN_STEP)
    run = again.run_page
    assert run.stack.currentWidget() is run.running
    assert [row.state() for row in run.rows()] == ["done"] * len(project.result.models)
    assert run.again_button.isVisible() and run.again_button.isEnabled()
    save_screenshot(run, "run_reopened")
    before = again.session.result
    run.again_button.click()
    qtbot.waitUntil(lambda: again.session.result is not before and not run.is_busy(), timeout=120_000)
    assert run.state() == "finished"


@pytest.fixture
def counted_embeddings(monkeypatch):
    """The texts the bundled sentence model embeds, in a program that has embedded nothing yet."""
    from guiapp.core.features.sentence_embeddings import (
        SentenceEmbeddings,
        load_model,
        resolve_model,
    )

    load_model(resolve_model(SentenceEmbeddings().model)[0])  # loaded once here, not by two jobs at a time
    embedded: list[str] = []
    original = SentenceEmbeddings._embed

    def counting(self, texts, tokenizer, model, on_event):
        embedded.extend(texts)
        return original(self, texts, tokenizer, model, on_event)

    monkeypatch.setattr(SentenceEmbeddings, "_embed", counting)
    monkeypatch.setattr(quick_model, "SHARED_CACHE", quick_model.FeatureCache())
    return embedded


def test_the_tables_findings_come_back_without_embedding_again(qtbot, window, project, tmp_path,
                                                              isolated_settings, counted_embeddings, monkeypatch):
    table = project.table.assign(text=project.table["text"] + " (reopened)")  # texts no other test embedded
    table.loc[table.index[60:], "label"] = None  # half of the table uncoded
    first = tmp_path / "table.textlab"
    save_project(first, type(project)(spec=project.spec, table=table, source_name="bills.xlsx"))
    window.open_path(first)
    qtbot.waitUntil(lambda: window.session.table is not None and not window.project.is_busy(), timeout=60_000)
    wait_for_report(qtbot, window)
    window.go_to_step(FINDINGS_STEP)
    findings = window.findings_page
    qtbot.waitUntil(lambda: measured(findings, "table"), timeout=120_000)
    findings.group_combo.setCurrentIndex(findings.group_combo.findData("year"))
    qtbot.waitUntil(lambda: measured(findings, "table", "year"), timeout=60_000)
    assert set(counted_embeddings) == set(table["text"])  # embedded (a job restarted when the table came)
    shares_before = [findings.shares.cell_text(row, 1) for row in range(findings.shares.rowCount())]
    saved = tmp_path / "table findings.textlab"
    assert window.project.save_and_wait(saved)

    monkeypatch.setattr(quick_model, "SHARED_CACHE", quick_model.FeatureCache())  # as in a new program
    counted_embeddings.clear()
    again = new_window(qtbot)
    again.open_path(saved)
    qtbot.waitUntil(lambda: again.session.table is not None and not again.project.is_busy(), timeout=60_000)
    wait_for_report(qtbot, again)
    again.go_to_step(FINDINGS_STEP)
    findings = again.findings_page
    assert findings.source_combo.currentData() == "table"
    assert [findings.shares.cell_text(row, 1) for row in range(findings.shares.rowCount())] == shares_before
    qtbot.waitUntil(lambda: measured(findings, "table", "year"), timeout=120_000)
    assert counted_embeddings == []  # every text's embedding read from the cache
    assert [findings.shares.cell_text(row, 1) for row in range(findings.shares.rowCount())] == shares_before
    assert again.steps.is_step_enabled(MODELS_STEP)
