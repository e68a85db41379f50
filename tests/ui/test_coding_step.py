"""The Coding step in the window: keys code the suggested texts, the quick model learns in the
background, undo takes a coding back, the codings are exported and the spreadsheet is untouched."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from guiapp.ui.steps import CODING_STEP
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, wait_for_report


@pytest.fixture
def coding_window(qtbot, window, tmp_path):
    frame = coded_texts(160, seed=3)
    frame.loc[40:, "label"] = None  # 40 coded texts, 120 to code
    path = tmp_path / "texts.csv"
    frame.to_csv(path, index=False)
    window.coding_page.coder_edit.setText("Ana")  # otherwise asked once, at the first coding
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
