"""A study with a language model with your codebook beside a quick model (and their combinations),
run by the engine, saved as a project and opened in a new window: Documents explains the language
model's answer by leaving words out, Predict applies it to new texts, and Findings counts its
predictions — all from the model folder the project carried."""

from __future__ import annotations

import pandas as pd
import pytest

from guiapp.core.explain.attribution import OCCLUSION
from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.models.llm.codebook_model import release_language_model
from guiapp.ui.common.step_order import DOCUMENTS_STEP, FINDINGS_STEP, PREDICT_STEP, RESULTS_STEP
from tests.core.predict.codebook_samples import DESCRIPTIONS, STUDY_WORDS, tiny_lm
from tests.ui.helpers import save_screenshot, wait_for_report

NAME = "Codebook language model (Qwen2.5-0.5B-Instruct-tiny-random)"


@pytest.fixture(scope="module")
def project_file(tmp_path_factory):
    import numpy as np

    from guiapp.core.experiment import run_experiment
    from guiapp.core.project.format import Project, model_folders_of
    from guiapp.core.project.saving import save_project
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import EvaluationSpec, ModelSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    folder = tmp_path_factory.mktemp("codebook-window")
    lm = tiny_lm(folder / "Qwen2.5-0.5B-Instruct-tiny-random")
    rng = np.random.default_rng(2)
    names = list(STUDY_WORDS)
    rows = []
    for number in range(36):
        category = names[number % 3]
        words = [*rng.choice(STUDY_WORDS[category], size=2), *rng.choice(["the", "and", "won", "rose"], size=2)]
        rows.append({"text": " ".join(str(word) for word in words) + ".", "label": category})
    table = pd.DataFrame(rows)
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=2),
        models=[ModelSpec("bow", "naive_bayes"),
                ModelSpec("codebook_llm", "in_textlab", grid={"k": [0, 1]}, representation_options={
                    "model": str(lm), "descriptions": DESCRIPTIONS, "device": "cpu", "sensitivity": 2})],
        name="Topics with a language model", seed=3)
    codebook_model_module._OPENED.clear()
    result = run_experiment(spec, table=table, n_jobs=1, artefacts_dir=folder / "models")
    assert NAME in [model.name for model in result.models if model.ok]
    path = save_project(folder / "topics.textlab", Project(
        spec=spec, table=table, result=result, model_folders=model_folders_of(result),
        ui_state={"step": "results", "columns": {"text": ["text"], "category": "label"}},
        source_sha256="ab" * 32, source_name="topics.csv"))
    new = folder / "new texts.csv"
    pd.DataFrame({"text": ["Doctors at the hospital.", "The team won the football games.",
                           "Prices and taxes rose."] * 4, "year": [2020, 2021, 2022] * 4}).to_csv(new, index=False)
    yield path, new
    release_language_model()


def test_the_language_model_through_documents_predict_and_findings(qtbot, window, project_file):
    path, new = project_file
    window.open_path(path)
    qtbot.waitUntil(lambda: window.results_page.result is not None and not window.project.is_busy(), timeout=60_000)
    wait_for_report(qtbot, window)
    window.go_to_step(RESULTS_STEP)
    save_screenshot(window, "walk-codebook-results")

    window.go_to_step(DOCUMENTS_STEP)
    documents = window.documents_page
    panel = documents.explanations
    panel.choose_model(NAME)
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=30_000)
    assert documents.select_document(0)
    qtbot.waitUntil(lambda: panel.explanation is not None and panel.explanation.attribution.model == NAME
                    and not panel.is_busy(), timeout=60_000)
    assert panel.explanation.attribution.method == OCCLUSION and panel.method_note.isVisible()
    save_screenshot(window, "walk-codebook-documents")

    window.go_to_step(PREDICT_STEP)
    predict = window.predict_page
    from PySide6.QtCore import Qt

    from guiapp.ui.steps.predict.predict_page import MODEL_ROLE

    for row in range(predict.models_list.count()):
        item = predict.models_list.item(row)
        item.setCheckState(Qt.CheckState.Checked if item.data(MODEL_ROLE) == NAME else Qt.CheckState.Unchecked)
    predict.open_path(new)
    qtbot.waitUntil(lambda: predict.predict_button.isEnabled(), timeout=30_000)
    assert "reads its whole prompt" in predict.top_words_note.text()
    predict.predict_button.click()  # a tiny model: well under a minute, so nothing is asked
    qtbot.waitUntil(lambda: predict.answers_box.isVisible() and not predict.is_busy(), timeout=60_000)
    assert predict.found.models == [NAME] and "12 texts predicted" in predict.summary.text()
    save_screenshot(window, "walk-codebook-predict")

    window.go_to_step(FINDINGS_STEP)
    findings = window.findings_page
    qtbot.waitUntil(lambda: findings.findings is not None and not findings.is_busy(), timeout=60_000)
    assert findings.model_combo.currentText() == NAME  # the predictions' model is the one counted
    save_screenshot(window, "walk-codebook-findings")
