"""A language model with your codebook on the Documents and Predict steps: a document is explained
by leaving words out (the note says why it takes long, the attention tab says why it shows nothing),
and Predict says the model reads its whole prompt for every text, measures how long that will take
even without the top words, and asks with the reason before a long job."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from guiapp.core.explain.attribution import OCCLUSION
from guiapp.core.explain.job_estimate import JobEstimate
from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.models.llm.codebook_model import release_language_model
from guiapp.core.predict.saved_results import model_folder, read_results
from guiapp.ui.steps.documents.explanation_panel import LANGUAGE_MODEL_ATTENTION, LANGUAGE_MODEL_NOTE
from tests.core.predict.codebook_samples import study_with_codebook_model, tiny_lm
from tests.ui.helpers import save_screenshot


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("codebook-study")
    lm = tiny_lm(folder / "Qwen2.5-0.5B-Instruct-tiny-random")
    codebook_model_module._OPENED.clear()
    out, name = study_with_codebook_model(folder, lm)
    result = read_results(out)
    folders = {model.name: model_folder(out, model) for model in result.models}
    yield folder, result, folders, name
    release_language_model()


def test_documents_explains_the_language_model_by_leaving_words_out(qtbot, study):
    from guiapp.ui.session.study_session import StudySession
    from guiapp.ui.steps.documents.documents_page import DocumentsPage

    _, result, folders, name = study
    session = StudySession()
    page = DocumentsPage(session=session)
    qtbot.addWidget(page)
    page.resize(1400, 860)
    page.show()
    session.set_result(result, folders)
    panel = page.explanations
    panel.choose_model(name)
    assert panel.model_combo.currentData() == name
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=30000)
    assert page.select_document(0)
    qtbot.waitUntil(lambda: panel.explanation is not None and not panel.is_busy(), timeout=30000)
    found = panel.explanation.attribution
    assert found.method == OCCLUSION and found.model == name and found.words
    assert panel.method_note.isVisibleTo(panel) and panel.method_note.text() == LANGUAGE_MODEL_NOTE
    assert not panel.tabs.isTabEnabled(1) and panel.tabs.tabToolTip(1) == LANGUAGE_MODEL_ATTENTION
    assert not panel.steps_box.isVisibleTo(panel)  # no integrated-gradients steps to set
    save_screenshot(page, "documents-codebook-language-model")
    other = next(model.name for model in result.models if model.name != name)
    panel.choose_model(other)
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=30000)
    assert not panel.method_note.isVisibleTo(panel)
    page.cancel_jobs()


def test_predict_says_the_language_model_is_slow_and_asks_before_a_long_job(qtbot, study, monkeypatch):
    from guiapp.core.explain import job_estimate
    from guiapp.ui.steps.predict.predict_page import MODEL_ROLE, PredictPage
    from tests.ui.helpers import session_with_table

    folder, result, folders, name = study
    table = pd.read_csv(folder / "coded.csv")
    table.loc[:5, "label"] = None  # six rows nobody has coded yet
    page = PredictPage(session=session_with_table(table, result.study_source.mapping))
    qtbot.addWidget(page)
    page.resize(1100, 900)
    page.show()
    page.set_result(result, lambda model: folders.get(model.name))
    page.source.own_button.click()
    qtbot.waitUntil(lambda: page.source.frame is not None, timeout=10000)
    for i in range(page.models_list.count()):
        item = page.models_list.item(i)
        item.setCheckState(Qt.CheckState.Checked if item.data(MODEL_ROLE) == name else Qt.CheckState.Unchecked)
    assert page.chosen_models() == [name]
    note = page.top_words_note
    assert note.isVisibleTo(page) and "reads its whole prompt" in note.text() and "6 texts" in note.text()
    save_screenshot(page, "predict-codebook-language-model")
    estimated, asked = [], []
    monkeypatch.setattr(job_estimate, "estimate_predicting", lambda *args, on_event, **options: estimated.append(
        options) or JobEstimate(900, 6, "The language model with your codebook reads its whole prompt once per text."))
    monkeypatch.setattr(QMessageBox, "exec", lambda box: asked.append(box.text()) or QMessageBox.StandardButton.Yes)
    page.predict()
    qtbot.waitUntil(lambda: bool(asked), timeout=30000)
    assert estimated == [{"top_words": False}]  # measured although no top words were asked for
    assert asked == ["This will take about 15 minutes. The language model with your codebook reads its whole "
                     "prompt once per text. Continue?"]
    qtbot.waitUntil(lambda: page.found is not None, timeout=60000)
    assert page.found.models == [name] and page.found.predictions[0].n_empty == 0
    assert set(page.found.predictions[0].labels()) <= set(result.categories)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30000)
    page.cancel_jobs()
