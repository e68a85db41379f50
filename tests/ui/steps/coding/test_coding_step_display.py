"""The Coding step as a researcher reads it: dates without a midnight time, what Undo undid, where the
codings were exported, what the quick model learnt, its default, and everything in view at 1024 x 700."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.coding.quick_model import BAG_OF_WORDS, EMBEDDINGS
from guiapp.ui.common.step_order import CODING_STEP
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, wait_for_report

REVIEW_TAB = 2


def headlines(n: int = 160, coded: int = 60) -> pd.DataFrame:
    """Headlines with an id, a date (days, as a spreadsheet stores them) and an outlet; the first
    ``coded`` rows coded."""
    rng = np.random.default_rng(4)
    frame = coded_texts(n, shares=(0.4, 0.3, 0.2, 0.1), seed=3)
    frame.insert(0, "id", np.arange(5001, 5001 + n))
    frame.insert(1, "date", pd.Timestamp("1996-01-01") + pd.to_timedelta(rng.integers(0, 4000, n), unit="D"))
    frame.insert(2, "outlet", rng.choice(["Times", "Post", "Herald"], n))
    frame.loc[coded:, "label"] = None
    return frame


@pytest.fixture
def coding_window(qtbot, window, tmp_path):
    frame = headlines()
    path = tmp_path / "headlines.xlsx"
    frame.to_excel(path, index=False)
    window.coding_page.bar.set_coder("Anna Walker")
    window.resize(1024, 700)
    window.open_path(path)
    wait_for_report(qtbot, window)
    window.go_to_step(CODING_STEP)
    qtbot.waitUntil(lambda: window.coding_page.current is not None, timeout=10_000)
    yield window, frame
    window.coding_page.cancel_jobs()


def code(qtbot, page, key: str = "1") -> None:
    shown = page.current
    qtbot.keyClick(page.text_view, key)
    qtbot.waitUntil(lambda: page.current is None or page.current.row != shown.row, timeout=5000)


def test_dates_at_midnight_show_without_a_time(coding_window):
    window, frame = coding_window
    page = window.coding_page
    line = page.text_view.metadata_text()
    row = page.current.row
    assert f"date: {frame.loc[row, 'date']:%Y-%m-%d}" in line and "00:00" not in line
    assert f"id: {frame.loc[row, 'id']} " in line + " "


def test_undo_says_what_the_text_had_been_coded_as(qtbot, coding_window):
    window, _ = coding_window
    page = window.coding_page
    first = page.current.row
    categories = [button.text().split(" ", 1)[1] for button in page.text_view.category_buttons()]
    code(qtbot, page, "2")
    qtbot.keyClick(page.text_view, "z")
    assert page.current.row == first
    shown = first + 2  # the spreadsheet's row: a header row above, counted from 1
    words = f"Undone: row {shown} had been coded as “{categories[1]}”."
    assert window.statusBar().currentMessage() == words
    assert page.text_view.reason_text() == words


def test_export_says_where_the_codings_were_saved_and_how_many(qtbot, coding_window, tmp_path):
    window, _ = coding_window
    page = window.coding_page
    for _ in range(3):
        code(qtbot, page)
    out = tmp_path / "codings.xlsx"
    assert page.bar.export_note.isHidden()
    page.export_to(out)
    qtbot.waitUntil(lambda: not page.bar.export_note.isHidden(), timeout=30_000)
    assert page.bar.export_note.text() == f"Saved 63 coded texts (3 coded in TextLab) to {out}"
    assert out.exists()


def test_codings_to_check_says_what_the_quick_model_learnt_from(qtbot, coding_window):
    window, _ = coding_window
    page = window.coding_page
    for _ in range(12):
        code(qtbot, page, "1")
    qtbot.waitUntil(lambda: len(page.loop.rounds) >= 2 and not page.is_busy(), timeout=60_000)
    sentence = page.review_tab.panel.sentence()
    assert "two categories" not in sentence
    assert f"last learnt from {page.loop.rounds[-1].n_coded} coded texts in 4 categories" in sentence


def test_keep_and_change_and_the_coder_are_in_view_at_1024_by_700(qtbot, coding_window):
    window, _ = coding_window
    page = window.coding_page
    edit = page.bar.coder_edit
    assert edit.text() == "Anna Walker"
    assert edit.contentsRect().width() >= edit.fontMetrics().horizontalAdvance("Anna Walker")
    for widget in (edit, page.bar.source_combo, page.bar.strategy_combo, page.bar.kind_combo,
                   page.bar.export_button):  # the bar wraps rather than squeeze or cut its choices
        corner = widget.mapTo(page, widget.rect().topLeft())
        assert corner.x() >= 0 and corner.x() + widget.width() <= page.width()
        assert widget.width() >= widget.minimumSizeHint().width()
    save_screenshot(window, "coding_step_1024")
    for _ in range(20):
        code(qtbot, page, "1")
    page.tabs.setCurrentIndex(REVIEW_TAB)
    page.review()
    qtbot.waitUntil(lambda: not page.is_busy() and bool(page.review_tab.panel.rows()), timeout=60_000)
    panel = page.review_tab.panel
    table = panel.table
    assert table.horizontalScrollBar().maximum() == 0
    shown = [i for i in range(len(panel.rows())) if table.rowViewportPosition(i) + table.rowHeight(i)
             <= table.viewport().height()]
    assert shown  # at least the first doubt whole, without scrolling
    for index in shown:
        for button in (panel.keep_button(index), panel.change_button(index)):
            assert button.isVisible()
            corner = button.mapTo(window, button.rect().topLeft())
            assert 0 <= corner.x() and corner.x() + button.width() <= window.width()
            assert 0 <= corner.y() and corner.y() + button.height() <= window.height()
            assert button.contentsRect().width() >= button.fontMetrics().horizontalAdvance(button.text())
    save_screenshot(window, "codings_to_check_1024")


def test_the_learning_model_starts_on_sentence_embeddings_where_the_model_is_installed(qtbot, monkeypatch):
    from guiapp.core.coding import quick_model
    from guiapp.ui.steps.coding import coding_bar
    monkeypatch.setattr(coding_bar, "default_kind", quick_model.default_kind)  # the real default
    bar = coding_bar.CodingBar()
    qtbot.addWidget(bar)
    assert quick_model.bundled_model_installed()
    assert bar.kind() == EMBEDDINGS and bar.kind_combo.currentText() == "Sentence embeddings"
    assert bar.kind_note.isHidden()

    monkeypatch.setattr(coding_bar, "bundled_model_installed", lambda: False)
    monkeypatch.setattr(coding_bar, "default_kind", lambda: BAG_OF_WORDS)
    bare = coding_bar.CodingBar()
    qtbot.addWidget(bare)
    assert bare.kind() == BAG_OF_WORDS and not bare.kind_note.isHidden()
    embeddings = bare.kind_combo.findData(EMBEDDINGS)
    assert "not installed" in bare.kind_combo.itemText(embeddings)
    assert not bare.kind_combo.model().item(embeddings).isEnabled()


def test_sentence_embeddings_wait_for_the_coding_step_to_be_shown(qtbot, window, tmp_path, monkeypatch):
    """Opening a table does not embed its texts in the background: the quick model on sentence
    embeddings first learns when the researcher opens the Coding step."""
    from guiapp.core.coding.coding_loop import CodingLoop

    learnt = []
    real_retrain = CodingLoop.retrain

    def retrain(loop, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        learnt.append(loop.kind)
        return real_retrain(loop, *args, **kwargs)

    monkeypatch.setattr(CodingLoop, "retrain", retrain)
    frame = pd.DataFrame({"text": [f"text number {i} about {'tax' if i % 2 else 'health'}" for i in range(60)],
                          "label": ["tax" if i % 2 else "health" for i in range(30)] + [None] * 30})
    path = tmp_path / "texts.csv"
    frame.to_csv(path, index=False)
    page = window.coding_page
    page.bar.kind_combo.setCurrentIndex(page.bar.kind_combo.findData(EMBEDDINGS))  # the default where installed
    window.open_path(path)
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: page.loop is not None)
    assert page.loop.kind == EMBEDDINGS
    qtbot.wait(200)
    assert learnt == [] and not page.is_busy()
    window.go_to_step(CODING_STEP)
    qtbot.waitUntil(lambda: len(page.loop.rounds) == 1 and not page.is_busy(), timeout=120_000)
    assert learnt == [EMBEDDINGS]  # once, on sentence embeddings


def test_a_quick_model_that_cannot_learn_says_so_once_not_over_and_over(qtbot, window, tmp_path, monkeypatch):
    from guiapp.core.coding.coding_loop import CodingLoop
    from guiapp.core.errors import UserError

    tries, said = [], []

    def retrain(loop, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        tries.append(1)
        raise UserError("The sentence model cannot be read.", "Install TextLab again.")

    monkeypatch.setattr(CodingLoop, "retrain", retrain)
    window.coding_page.errorRaised.connect(lambda error, what: said.append(what))
    frame = pd.DataFrame({"text": [f"text number {i} about {'tax' if i % 2 else 'health'}" for i in range(60)],
                          "label": ["tax" if i % 2 else "health" for i in range(30)] + [None] * 30})
    path = tmp_path / "texts.csv"
    frame.to_csv(path, index=False)
    window.go_to_step(CODING_STEP)
    window.open_path(path)
    wait_for_report(qtbot, window)
    page = window.coding_page
    qtbot.waitUntil(lambda: len(tries) == 1 and not page.is_busy(), timeout=10_000)
    qtbot.wait(300)
    assert len(tries) == 1 and said == ["Training the quick model"]


def test_the_keys_hint_is_read_whole_in_a_narrow_window(qtbot):
    from PySide6.QtWidgets import QLabel

    from guiapp.ui.steps.coding.coding_text_view import CodingTextView

    view = CodingTextView()
    qtbot.addWidget(view)
    view.show_text("A bill to provide for pension reform.", {}, [f"topic {i}" for i in range(12)])
    view.resize(460, 560)  # the text's column at 1024 x 700
    view.show()
    qtbot.waitExposed(view)
    hint = view.findChild(QLabel, "codingKeysHint")
    needed = hint.fontMetrics().horizontalAdvance(hint.text())
    assert hint.width() < needed  # narrower than its one line …
    assert hint.height() >= hint.heightForWidth(hint.width())  # … so it wraps, whole, instead of being cut
    view.resize(900, 560)
    qtbot.waitUntil(lambda: hint.width() >= needed)  # one line again when there is room
