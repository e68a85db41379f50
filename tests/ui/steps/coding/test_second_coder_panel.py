"""The second coder's panel: a sample of the coded texts coded by keyboard without the first coding,
recorded apart from the study's coding, undo, the agreement of the two codings, and the name check."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from sklearn.metrics import cohen_kappa_score

from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.second_coder import draw_second_coder_sample
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.coding.second_coder_panel import DONE, GO_ON, PAUSE, START, SecondCoderPanel
from tests.ui.helpers import save_screenshot, session_with_table

MAPPING = ColumnMapping(text_columns=["text"], category_column="label")
LABELS = ["econ", "health", "econ", "health", "econ", "health", "econ", "econ", "health", "econ", None, None]


def table() -> pd.DataFrame:
    return pd.DataFrame({"text": [f"Text number {i} about one thing or another" for i in range(len(LABELS))],
                         "label": LABELS, "year": list(range(2001, 2001 + len(LABELS)))})


@pytest.fixture
def panel(qtbot):
    session = session_with_table(table(), MAPPING)
    widget = SecondCoderPanel(session, lambda: "Ana")
    qtbot.addWidget(widget)
    widget.resize(1200, 760)
    widget.show()
    yield widget
    widget.cancel_jobs()


def start(panel, name="Ben", size=None):
    if size is not None:
        panel.size_spin.setValue(size)
    panel.name_edit.setText(name)
    panel.start_button.click()


def key_of(panel, category: str) -> str:
    categories = [button.property("category") for button in panel.text_view.category_buttons()]
    return str(categories.index(category) + 1)


def other(category: str) -> str:
    return "health" if category == "econ" else "econ"


def test_the_second_coder_codes_the_sample_by_keyboard_without_changing_the_study(qtbot, panel):
    session = panel.session
    before = session.study_table_with_codings().copy()
    assert panel.size_spin.value() == 10 and panel.size_spin.maximum() == 10  # ten texts are coded
    assert panel.start_button.text() == START
    assert panel.text_view.isHidden() and "Enter the second coder's name" in panel.guide.text()  # no text yet
    start(panel, size=4)
    assert panel.is_coding() and panel.start_button.text() == PAUSE
    assert panel.text_view.isVisible() and panel.guide.isHidden()
    first = table()["label"]
    sample = draw_second_coder_sample(first.dropna().to_dict(), 4)
    seen = []
    for _ in range(4):
        row = panel.current_row
        seen.append(row)
        view = panel.text_view
        assert view.text() == table().loc[row, "text"]
        assert view.status_text() == ""  # the first coding is not shown: no category highlighted, no change
        assert not any(button.property("current") for button in view.category_buttons())
        assert "label" not in view.metadata_text() and "year" in view.metadata_text()
        with qtbot.waitSignal(session.codingsEdited, timeout=1000):  # the project is autosaved after each
            qtbot.keyClick(view, key_of(panel, other(first[row])))
    assert seen == sample  # the sample, in the order of its keys
    entries = session.codings.entries
    assert [(e.row, e.category, e.coder, e.chosen_by, e.probability) for e in entries] == [
        (row, other(first[row]), "Ben", "second coder", None) for row in sample]
    assert all(e.previous is None for e in entries)  # measured against the second coder's own codings only
    pd.testing.assert_frame_equal(session.study_table_with_codings(), before)
    assert session.codings.categories_by_row() == {}
    assert panel.progress_label.text() == "4 of 4 texts of the sample coded"
    assert not panel.is_coding() and panel.start_button.text() == DONE and not panel.start_button.isEnabled()


def test_undo_takes_back_the_second_coders_last_answer_only(qtbot, panel):
    session = panel.session
    session.codings.record(10, "econ", coder="Ana", chosen_by="random", probability=0.5)  # the first coder's
    start(panel, size=5)
    shown = panel.current_row
    qtbot.keyClick(panel.text_view, "1")
    then = panel.current_row
    qtbot.keyClick(panel.text_view, "s")  # a skip comes back at the end of the sample
    assert panel.sample.skipped == [then] and panel.sample.to_code[-1] == then
    assert "1 skipped" in panel.progress_label.text()
    session.codings.record(11, "health", coder="Ana", chosen_by="random", probability=0.5)  # a first coding later
    session.codings_changed()
    qtbot.keyClick(panel.text_view, "z")
    assert panel.current_row == then and session.codings.skipped(second_coder=True) == []
    qtbot.keyClick(panel.text_view, "z")
    assert panel.current_row == shown and session.codings.second_coder() == {}
    assert session.codings.categories_by_row() == {10: "econ", 11: "health"}  # the first coder's stay
    undo_button = panel.text_view.findChild(QPushButton, "undoButton")
    assert not undo_button.isEnabled()  # nothing of the second coder's left to take back


def test_a_flag_is_kept_with_the_second_coders_answer(qtbot, panel):
    start(panel, size=3)
    row = panel.current_row
    qtbot.keyClick(panel.text_view, "f")
    dialog = panel.text_view.flag_dialog()
    qtbot.keyClicks(dialog.comment, "irony?")
    qtbot.keyClick(dialog.comment, Qt.Key.Key_Return)
    assert panel.text_view.flag_text() == "Flagged: unsure — irony?"
    qtbot.keyClick(panel.text_view, "2")
    (entry,) = panel.session.codings.entries
    assert (entry.row, entry.flag, entry.comment, entry.chosen_by) == (row, "unsure", "irony?", "second coder")
    assert panel.session.codings.flagged() == {} and set(panel.session.codings.flagged(second_coder=True)) == {row}
    assert panel.text_view.flag_text() == ""  # the next text carries no flag


def test_a_hidden_panel_follows_the_session_when_it_is_shown_again(qtbot, panel):
    session = panel.session
    assert panel.sample.n_first == 10
    panel.hide()
    session.codings.record(10, "econ", coder="Ana", chosen_by="random", probability=0.5)
    session.codings_changed()
    assert panel.sample.n_first == 10  # not drawn again while nobody sees it
    panel.show()
    assert panel.sample.n_first == 11 and panel.size_spin.maximum() == 11


def test_the_agreement_shows_after_two_texts_with_the_right_kappa(qtbot, panel):
    start(panel, size=4)
    first = table()["label"]
    answers = {}
    for number in range(4):
        row = panel.current_row
        answers[row] = first[row] if number != 1 else other(first[row])  # the second text coded differently
        qtbot.keyClick(panel.text_view, key_of(panel, answers[row]))
        if number == 0:
            assert panel.agreement_view.figures_shown()["alike"][0] == ""  # one text: nothing to measure yet
        if number == 1:
            qtbot.waitUntil(lambda: not panel.is_busy() and bool(panel.agreement_view.figures_shown()["alike"][0]))
            assert panel.agreement_view.figures_shown()["alike"] == ("50 %", "of the 2 texts both coders coded")
            assert panel.agreement_stack.currentIndex() == 1  # hidden while the second coder codes
            assert "hidden while the second coder codes" in panel.cover_text.text()
    qtbot.waitUntil(lambda: not panel.is_busy() and panel.agreement_view.figures_shown()["alike"][0] == "75 %")
    rows = list(answers)
    kappa = cohen_kappa_score([first[r] for r in rows], [answers[r] for r in rows])
    assert panel.agreement_view.figures_shown()["kappa"][0] == f"{kappa:.2f}"
    assert panel.agreement_stack.currentIndex() == 0  # the sample is coded: the agreement shows
    (line,) = panel.agreement_view.disagreement_rows()
    disagreed = rows[1]
    assert line[0] == str(disagreed + 2) and line[2:] == [first[disagreed], answers[disagreed]]
    assert panel.agreement_view.column_titles()[2:] == ["First coding", "Ben"]
    with qtbot.waitSignal(panel.textWanted) as wanted:
        panel.agreement_view.table.cellDoubleClicked.emit(0, 1)
    assert wanted.args == [disagreed]
    save_screenshot(panel, "second_coder_panel")


def test_the_second_coder_must_be_someone_else(qtbot, panel):
    session = panel.session
    sample = draw_second_coder_sample(table()["label"].dropna().to_dict(), 6)
    session.codings.record(sample[0], "health", coder="Cleo", chosen_by="review", probability=None)
    session.codings_changed()
    for name, words in [("", "Enter the second coder's name"), (" ana ", "“Ana” is the coder on the Code tab"),
                        ("cleo", "“Cleo” coded texts")]:
        start(panel, name, size=6)
        assert not panel.is_coding() and words in panel.name_error.text() and panel.name_error.isVisible()
        assert panel.current_row is None
    start(panel, "Ben", size=6)
    assert panel.is_coding() and panel.name_error.isHidden() and panel.current_row == sample[0]
    panel.name_edit.setText("Bea")
    panel.name_edit.textEdited.emit("Bea")  # another name: codings are no longer recorded as Ben's
    assert not panel.is_coding() and panel.current_row is None
    assert panel.start_button.text() == START


def test_a_paused_coding_goes_on_where_it_stopped_and_the_sample_can_grow(qtbot, panel):
    start(panel, size=3)
    qtbot.keyClick(panel.text_view, "1")
    panel.start_button.click()  # Pause
    assert not panel.is_coding() and panel.start_button.text() == GO_ON and panel.text_view.isHidden()
    assert "Press “Go on coding the sample” when Ben is ready" in panel.guide.text()
    done = list(panel.sample.coded)
    panel.size_spin.setValue(8)
    assert panel.sample.coded == done and len(panel.sample.to_code) == 7  # a larger sample keeps the work done
    panel.start_button.click()
    assert panel.is_coding() and panel.current_row == panel.sample.to_code[0]


def test_fewer_than_two_coded_texts_and_another_project(qtbot):
    frame = table().assign(label=[None] * 11 + ["econ"])
    session = session_with_table(frame, MAPPING)
    panel = SecondCoderPanel(session, lambda: None)
    qtbot.addWidget(panel)
    panel.show()
    assert panel.content.isHidden() and "Code at least two texts first" in panel.empty.findChild(
        type(panel.progress_label), "secondCoderEmptyTitle").text()
    session.codings.record(0, "econ", coder="Ana", chosen_by="random", probability=0.1)
    session.codings_changed()
    assert not panel.content.isHidden() and panel.size_spin.value() == 2
    start(panel)
    assert panel.is_coding()
    session.set_codings(CodingLog())  # another project's record
    assert not panel.is_coding() and panel.content.isHidden()
