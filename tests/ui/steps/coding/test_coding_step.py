"""The Coding step in the window: keys code the suggested texts, the quick model learns in the
background, undo takes a coding back, the codings are exported and the spreadsheet is untouched."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from guiapp.ui.common.step_order import CODING_STEP
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, wait_for_report


@pytest.fixture
def coding_window(qtbot, window, tmp_path):
    frame = coded_texts(160, seed=3)
    frame.loc[40:, "label"] = None  # 40 coded texts, 120 to code
    path = tmp_path / "texts.csv"
    frame.to_csv(path, index=False)
    window.coding_page.bar.coder_edit.setText("Ana")  # otherwise asked once, at the first coding
    window.open_path(path)
    wait_for_report(qtbot, window)
    window.go_to_step(CODING_STEP)
    yield window, frame, path
    window.coding_page.cancel_jobs()


def test_keys_code_the_suggested_texts_and_the_model_learns(qtbot, coding_window, tmp_path):
    window, frame, path = coding_window
    page = window.coding_page
    assert window.steps.is_step_enabled(CODING_STEP)
    view = page.text_view
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    categories = [button.text().split(" ", 1)[1] for button in view.category_buttons()]
    coded = []
    for _ in range(24):
        suggestion = page.current
        assert suggestion is not None and suggestion.row >= 40  # an uncoded row of the file
        truth = frame.loc[suggestion.row, "text"]
        label = coded_texts(160, seed=3).loc[suggestion.row, "label"]
        qtbot.keyClick(view, str(categories.index(label) + 1))
        coded.append((suggestion.row, label, truth))
        qtbot.waitUntil(lambda: page.current is None or page.current.row != suggestion.row, timeout=5000)
    log = window.session.codings
    assert [(c.row, c.category) for c in log.entries] == [(row, label) for row, label, _ in coded]
    assert all(c.coder == "Ana" and c.probability and 0 < c.probability <= 1 for c in log.entries)
    qtbot.waitUntil(lambda: len(page.loop.rounds) >= 2 and not page.is_busy(), timeout=60_000)  # trained while coding
    assert page.loop.rounds[-1].n_coded > page.loop.rounds[0].n_coded
    assert page.progress.stop_sentence()
    last = log.entries[-1].row
    coded_entries = log.entries
    qtbot.keyClick(view, "z")
    assert len(log) == 23 and page.current.row == last  # undo shows the text again
    undone = coded_entries[-1]
    assert (page.current.choice.probability, page.current.choice.strategy) == (undone.probability, undone.chosen_by)
    save_screenshot(window, "coding_step")

    out = tmp_path / "codings.xlsx"
    page.export_to(out)
    qtbot.waitUntil(lambda: out.exists() and not page.is_busy(), timeout=30_000)
    exported = pd.read_excel(out, engine="calamine")
    assert exported["Coder"].eq("Ana").sum() == 23
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # the spreadsheet is never changed


def test_the_study_runs_on_the_file_s_codings_and_the_new_ones(qtbot, coding_window):
    window, frame, _path = coding_window
    page = window.coding_page
    for _ in range(5):
        qtbot.keyClick(page.text_view, "1")
    table = window.session.study_table_with_codings()
    assert table[window.session.mapping.category_column].notna().sum() == 45
    assert frame["label"].notna().sum() == 40  # the table as read is not changed


def test_texts_of_a_second_file_are_coded_and_join_the_study(qtbot, coding_window, tmp_path):
    window, frame, path = coding_window
    page, session = window.coding_page, window.session
    more = coded_texts(30, seed=11).rename(columns={"text": "Tweet"})[["Tweet"]]
    more_path = tmp_path / "more tweets.csv"
    more.to_csv(more_path, index=False)
    before = hashlib.sha256(more_path.read_bytes()).hexdigest()
    page.open_texts_file(more_path)
    qtbot.waitUntil(lambda: page.loop is not None and page.loop.source == "second file", timeout=10_000)
    assert page.bar.source_combo.currentText() == "Texts of more tweets.csv"
    for _ in range(3):
        shown = page.current
        assert shown.source == "second file" and shown.text == more.loc[shown.row, "Tweet"]
        qtbot.keyClick(page.text_view, "2")
        qtbot.waitUntil(lambda: page.current is None or page.current.row != shown.row, timeout=5000)
    study = session.study_table_with_codings()
    assert len(study) == len(frame) + 3 and study["label"].notna().sum() == 43
    assert set(study["text"].iloc[-3:]) <= set(more["Tweet"])
    # the Data step's check counts them (once coding pauses)
    qtbot.waitUntil(lambda: not window.data_page.codings_note.isHidden(), timeout=10_000)
    assert "3 texts coded" in window.data_page.codings_note.text()
    qtbot.waitUntil(lambda: window.data_page.report is not None
                    and window.data_page.report.n_coded == 43, timeout=30_000)
    # back to the table's uncoded rows
    page.bar.source_combo.setCurrentIndex(0)
    page.bar.source_combo.activated.emit(0)
    qtbot.waitUntil(lambda: page.loop.source == "table", timeout=5000)
    assert page.current.source == "table" and page.current.row >= 40
    assert hashlib.sha256(more_path.read_bytes()).hexdigest() == before


def test_a_fully_coded_table_can_have_its_codings_checked_from_the_results(qtbot, window, tmp_path):
    from guiapp.ui.common.step_order import CODING_STEP as CODING

    frame = coded_texts(120, seed=5)
    path = tmp_path / "all coded.csv"
    frame.to_csv(path, index=False)
    window.open_path(path)
    wait_for_report(qtbot, window)
    page = window.coding_page
    qtbot.waitUntil(lambda: page.loop is not None, timeout=5000)
    assert page.loop.pool.n_pool == 0 and page.current is None
    assert "Every text of your table is coded" in page.text_view.empty_message()
    from PySide6.QtWidgets import QPushButton

    window.results_page.findChild(QPushButton, "checkMyCodings").click()  # on the Results step's errors tab
    assert window.steps.currentRow() == CODING and page.tabs.currentIndex() == 2
    qtbot.waitUntil(lambda: page.review_tab.panel.sentence() != "" and not page.is_busy(), timeout=30_000)
    assert "120" in page.review_tab.panel.sentence() or page.review_tab.panel.rows()
    page.cancel_jobs()


def test_a_flag_given_before_coding_is_kept_with_the_coding_and_comes_back_with_undo(qtbot, coding_window):
    window, _frame, _path = coding_window
    page = window.coding_page
    shown = page.current
    page.text_view.flagged.emit("ask colleague", "is this about defence?")  # the flag dialog's answer
    qtbot.keyClick(page.text_view, "1")
    entry = window.session.codings.entries[-1]
    assert (entry.row, entry.flag, entry.comment) == (shown.row, "ask colleague", "is this about defence?")
    assert page.current.row != shown.row and page.text_view.flag_text() == ""
    qtbot.keyClick(page.text_view, "z")
    assert page.current.row == shown.row and "ask colleague" in page.text_view.flag_text()


def test_a_table_without_categories_is_coded_from_the_codebook_and_gets_a_category_column(qtbot, window, tmp_path):
    from guiapp.core.coding.codebook import Codebook, CodebookCategory

    frame = coded_texts(60, seed=8)
    path = tmp_path / "uncoded.csv"
    frame[["text"]].to_csv(path, index=False)
    window.coding_page.bar.coder_edit.setText("Ana")
    window.open_path(path)
    wait_for_report(qtbot, window)
    window.go_to_step(CODING_STEP)
    page, session = window.coding_page, window.session
    qtbot.waitUntil(lambda: page.current is not None, timeout=5000)
    assert session.mapping.category_column is None
    assert "no categories yet" in page.text_view.empty_message()
    session.edit_codebook(Codebook([CodebookCategory(name) for name in ("health", "defence", "energy")]))
    assert [b.text() for b in page.text_view.category_buttons()] == ["1 health", "2 defence", "3 energy"]
    for _ in range(6):
        shown = page.current
        qtbot.keyClick(page.text_view, str(["health", "defence", "energy"].index(frame.at[shown.row, "label"]) + 1))
    study = session.study_table_with_codings()
    assert study["category"].notna().sum() == 6 and "category" not in frame[["text"]].columns
    qtbot.waitUntil(lambda: window.data_page.report is not None and window.data_page.report.n_coded == 6,
                    timeout=30_000)
    assert session.data_spec.mapping.category_column == "category"
    page.cancel_jobs()


def test_every_coding_is_autosaved_so_a_crash_loses_none(qtbot, coding_window, tmp_path):
    from guiapp.core.project import autosave as autosave_module
    from guiapp.core.project.opening import open_project

    window, _frame, _path = coding_window
    page, session = window.coding_page, window.session
    more = coded_texts(20, seed=12)[["text"]]
    more_path = tmp_path / "more.csv"
    more.to_csv(more_path, index=False)
    for _ in range(3):
        qtbot.keyClick(page.text_view, "1")
    page.open_texts_file(more_path)
    qtbot.waitUntil(lambda: page.loop.source == "second file", timeout=10_000)
    for _ in range(2):
        qtbot.keyClick(page.text_view, "2")
    autosaved = autosave_module.autosave_folder() / f"{autosave_module.session_id()}.textlab"

    def saved_codings() -> int:
        if window.project.is_busy() or not autosaved.exists():
            return -1
        return len(open_project(autosaved, extract_models_to=tmp_path / "models").codings)

    qtbot.waitUntil(lambda: saved_codings() == 5, timeout=30_000)  # saved after each coding, not every few minutes
    kept = open_project(autosaved, extract_models_to=tmp_path / "models")
    assert [e.source for e in kept.codings.entries] == ["table"] * 3 + ["second file"] * 2
    assert kept.coding_texts is not None and kept.coding_texts["text"].tolist() == more["text"].tolist()

    window.project.open(autosaved)  # what recovering after a crash opens
    qtbot.waitUntil(lambda: not window.project.is_busy() and session.coding_texts is not None, timeout=60_000)
    assert session.codings == kept.codings
    qtbot.waitUntil(lambda: page.loop is not None, timeout=10_000)
    assert page.bar.source_combo.findText("Texts of more.csv") >= 0
