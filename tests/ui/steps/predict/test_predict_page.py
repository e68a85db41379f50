"""The Predict step and projects in the window, driven through the real widgets: a study's trained
models predict a new file and the uncoded rows, the answers are saved to Excel; a project is saved,
reopened as it was, and an autosave of a crashed session is recovered."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from guiapp.core.project import autosave as autosave_module
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from guiapp.core.tables.rows import spreadsheet_rows
from guiapp.ui.main_window import PREDICT_STEP, RESULTS_STEP
from guiapp.ui.steps.predict.predict_page import PredictPage
from tests.ui.helpers import session_with_table
from tests.core.synthetic_texts import coded_texts


@pytest.fixture
def page(qtbot, project):
    table = project.table.copy()
    table.loc[table.index[5:25:2], "label"] = None  # ten rows nobody has coded yet, spread over the table
    mapping = project.spec.data.mapping
    widget = PredictPage(session=session_with_table(table, mapping))
    qtbot.addWidget(widget)
    widget.resize(1100, 900)
    widget.show()
    yield widget
    widget.cancel_jobs()


def _checked(list_widget) -> list[int]:
    return [i for i in range(list_widget.count()) if list_widget.item(i).checkState() == Qt.CheckState.Checked]


def test_empty_until_a_study_has_trained_models(page, project):
    assert page.stack.currentWidget() is page.empty
    page.set_result(project.result, lambda _model: None)  # models not saved
    assert not page.has_models() and "None of this study's models was saved" in page.empty.label.text()
    page.set_result(project.result, lambda model: project.model_folder(model.name))
    assert page.has_models()
    best = project.result.best()
    assert page.models_list.count() == 2 and _checked(page.models_list) == [0]
    assert page.models_list.item(0).text().startswith(best.name) and "★ best" in page.models_list.item(0).text()


def test_a_new_file_is_predicted_and_saved_to_excel(qtbot, page, project, tmp_path):
    page.set_result(project.result, lambda model: project.model_folder(model.name))
    new = coded_texts(40, seed=9).drop(columns=["label"]).assign(source=["press"] * 40)
    new.loc[3, "text"] = ""
    path = tmp_path / "new texts.csv"
    new.to_csv(path, index=False)
    assert not page.predict_button.isEnabled() and "Choose the texts" in page.ready_label.text()

    page.open_path(path)
    qtbot.waitUntil(lambda: page.source.frame is not None, timeout=20000)
    assert page.source.text_columns() == ["text"]  # the study's text column, ticked
    assert "40 rows" in page.source.label.text() and page.source.preview_model.rowCount() == 5
    page.models_list.item(1).setCheckState(Qt.CheckState.Checked)  # both models side by side
    assert page.predict_button.isEnabled()
    qtbot.mouseClick(page.predict_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.found is not None, timeout=30000)
    qtbot.waitUntil(lambda: not page.is_busy())

    assert page.answers_box.isVisible()
    assert "39 texts predicted" in page.summary.text() and "1 empty text gets no prediction" in page.summary.text()
    counts = page.counts_model.frame()
    assert sorted(counts["category"]) == sorted(project.result.categories)
    for name in page.chosen_models():
        assert counts[f"{name}: texts"].sum() == 39
    preview = page.preview_model.frame()
    assert len(preview) == 40 and list(preview.columns[:2]) == ["text", "source"]

    out = tmp_path / "answers.xlsx"
    page.save_to(out)
    qtbot.waitUntil(lambda: not page.is_busy() and out.exists(), timeout=30000)
    book = openpyxl.load_workbook(out, read_only=True)
    assert book.sheetnames[0] == "Predictions"
    header = [cell.value for cell in next(book["Predictions"].iter_rows(max_row=1))]
    assert header[:3] == ["Row in your spreadsheet", "text", "source"]
    assert sum(1 for value in header if value and "predicted category" in value) == 2
    assert pd.read_csv(path).shape == (40, 2)  # the user's file is unchanged


def test_the_uncoded_rows_of_the_study_table_can_be_predicted(qtbot, page, project):
    page.set_result(project.result, lambda model: project.model_folder(model.name))
    assert page.source.own_button.isEnabled() and "10 uncoded rows" in page.source.own_button.text()
    page.source.own_button.click()
    assert len(page.source.frame) == 10 and page.source.text_columns() == ["text"]
    page.predict()
    qtbot.waitUntil(lambda: page.found is not None, timeout=30000)
    qtbot.waitUntil(lambda: not page.is_busy())
    assert "10 texts predicted" in page.summary.text()
    rows = spreadsheet_rows(page.source.frame).tolist()
    assert rows == list(range(7, 27, 2))  # the uncoded rows, spread over the table …
    vertical = Qt.Orientation.Vertical  # … and the preview names each one's own row
    assert [page.preview_model.headerData(i, vertical) for i in range(10)] == [str(row) for row in rows]



def test_texts_coded_after_they_were_predicted_are_named(qtbot, page, project):
    """The answers are of a moment: a text coded on the Coding step after it was predicted is named,
    with how to predict without it."""
    page.set_result(project.result, lambda model: project.model_folder(model.name))
    page.source.own_button.click()
    page.predict()
    qtbot.waitUntil(lambda: page.found is not None and not page.is_busy(), timeout=30000)
    assert "coded since" not in page.summary.text()
    session = page.session
    first = page.source.frame.index[0]
    session.codings.record(first, "health", coder="Ana", chosen_by="in order", probability=None)
    session.codings_changed()
    assert "1 of this text has been coded since" in page.summary.text()
    assert "9 uncoded rows" in page.source.own_button.text()

def test_top_words_are_added_on_request(qtbot, page, project):
    page.set_result(project.result, lambda model: project.model_folder(model.name))
    page.source.own_button.click()
    assert not page.top_words_note.isVisible()  # off by default
    page.top_words_box.setChecked(True)
    assert not page.top_words_note.isVisible(), "naive Bayes and logistic regression on words are quick"
    page.predict()
    qtbot.waitUntil(lambda: page.found is not None, timeout=30000)
    qtbot.waitUntil(lambda: not page.is_busy())
    preview = page.preview_model.frame()
    column = f"{page.chosen_models()[0]}: top words"
    assert column in preview.columns
    filled = [cell for cell in preview[column] if cell]
    assert filled and all(" (+" in cell for cell in filled)
    first = filled[0].split(" (")[0].lower()
    assert any(first in text.lower() for text in page.source.frame["text"])


def test_a_slow_model_gets_a_note_before_its_top_words(qtbot, page, project, monkeypatch):
    page.set_result(project.result, lambda model: project.model_folder(model.name))
    page.source.own_button.click()
    monkeypatch.setattr("guiapp.core.explain.top_words.quick_in_result", lambda *_args: False)
    page.top_words_box.setChecked(True)
    assert page.top_words_note.isVisible() and "10 texts" in page.top_words_note.text()
    page.top_words_box.setChecked(False)
    assert not page.top_words_note.isVisible()


def test_a_bad_file_gives_a_message_not_a_traceback(qtbot, page, project, tmp_path):
    page.set_result(project.result, lambda model: project.model_folder(model.name))
    errors = []
    page.errorRaised.connect(lambda error, doing: errors.append((error, doing)))
    bad = tmp_path / "broken.xlsx"
    bad.write_bytes(b"PK\x03\x04 cut off while copying")
    page.open_path(bad)
    qtbot.waitUntil(lambda: bool(errors), timeout=20000)
    assert errors[0][1] == "Reading the texts to predict" and page.source.frame is None
    assert "damaged or incomplete" in str(errors[0][0])
    empty = tmp_path / "empty.csv"
    empty.write_text("text,source\n", encoding="utf-8")
    page.open_path(empty)
    qtbot.waitUntil(lambda: len(errors) == 2, timeout=20000)
    assert "no rows" in errors[1][0].message and page.source.frame is None


def test_project_saved_and_reopened_in_the_window(qtbot, window, project, tmp_path, isolated_settings):
    path = tmp_path / "bills.textlab"
    save_project(path, project)
    window.open_path(path)  # the File menu, recent files and drag-and-drop all end here
    qtbot.waitUntil(lambda: window.data_page.table is not None and window.results_page.result is not None, timeout=30000)
    assert window.data_page.table_frame().shape == project.table.shape
    assert window.data_page.mapping().text_columns == ["text"]
    assert window.results_page.model_names() == [m.name for m in project.result.ranked()]
    assert window.steps.is_step_enabled(RESULTS_STEP) and window.steps.is_step_enabled(PREDICT_STEP)
    assert window.predict_page.has_models()
    assert window.windowTitle().startswith("bills.textlab")
    assert window.project.path == path and not window.project.dirty

    again = tmp_path / "again.textlab"
    window.project.save(again)
    qtbot.waitUntil(lambda: window.project.path == again and not window.project.is_busy(), timeout=30000)
    reopened = open_project(again, extract_models_to=tmp_path / "models")
    assert reopened.result.to_dict() == project.result.to_dict()
    assert reopened.table.equals(project.table)
    assert sorted(reopened.model_folders) == sorted(project.model_folders)


def test_the_autosave_of_a_crashed_session_is_offered_and_recovered(qtbot, window, project, monkeypatch):
    # A session that autosaved and then died: its marker names a process that no longer runs.
    monkeypatch.setattr(autosave_module, "_session_id", "")
    saved = autosave_module.autosave(project)
    marker = saved.with_name(saved.name.replace(".textlab", autosave_module.MARKER_SUFFIX))
    data = json.loads(marker.read_text(encoding="utf-8"))
    marker.write_text(json.dumps({**data, "pid": 2**22 + 12345, "start_mark": "gone"}), encoding="utf-8")
    monkeypatch.setattr(autosave_module, "_session_id", "")  # this window is a new session

    asked = []
    monkeypatch.setattr(window.project, "ask_recovery", lambda item: asked.append(item) or "recover")
    assert window.offer_recovery()
    qtbot.waitUntil(lambda: window.results_page.result is not None, timeout=30000)
    qtbot.waitUntil(lambda: not window.project.is_busy(), timeout=30000)
    assert "Bills by topic" in asked[0].describe()
    assert window.results_page.result.to_dict() == project.result.to_dict()
    assert "(recovered)" in window.windowTitle()
    assert not saved.exists() and not marker.exists()  # the old autosave is taken over, not kept twice
    assert autosave_module.recoverable() == []  # this session runs and now holds the work


def test_dropping_a_file_on_the_predict_step_opens_it_there(qtbot, window, project, tmp_path):
    from PySide6.QtCore import QMimeData, QPoint, QUrl
    from PySide6.QtGui import QDropEvent

    window.session.set_result(project.result, project.model_folders)
    window.go_to_step(PREDICT_STEP)
    new = tmp_path / "more.csv"
    coded_texts(12, seed=3).to_csv(new, index=False)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(new))])
    event = QDropEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.predict_page.source.frame is not None, timeout=20000)
    assert len(window.predict_page.source.frame) == 12 and window.data_page.table is None
    assert Path(window.predict_page.source.path) == new
