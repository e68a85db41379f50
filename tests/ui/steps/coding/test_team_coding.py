"""A coding team on the Coding step: coders switched with one click, each coding blind on their own
record (their own undo), the queue that follows the team's draw with its recorded probabilities, the
team dialog that refuses plans that do not fit in words, and the team kept across a project's
save and reopen."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtWidgets import QApplication

from guiapp.core.coding.coding_record import ASSIGNED
from guiapp.core.coding.team import assigned_probability
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.common.step_order import CODING_STEP
from guiapp.ui.steps.coding.coding_page import CodingPage
from guiapp.ui.steps.coding.team_dialog import TeamDialog
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, session_with_table, wait_for_report

MAPPING = ColumnMapping(text_columns=["text"], category_column="label")


def table() -> pd.DataFrame:
    frame = coded_texts(80, seed=5)
    frame.loc[20:, "label"] = None  # 20 coded in the file, 60 to code
    return frame


@pytest.fixture
def page(qtbot, isolated_settings):
    session = session_with_table(table(), MAPPING)
    widget = CodingPage(session=session)
    qtbot.addWidget(widget)
    widget.resize(1280, 820)
    widget.show()
    widget.bar.coder_edit.setText("Ann")
    session.dataChanged.emit()
    assert widget.loop is not None and widget.current is not None
    yield widget
    widget.cancel_jobs()


def team_dialog(qtbot, page) -> TeamDialog:
    dialog = TeamDialog(page.session, page.bar.coder(), page)
    dialog.changed.connect(page._team_changed)
    qtbot.addWidget(dialog)
    return dialog


def add(dialog: TeamDialog, name: str) -> None:
    dialog.name_edit.setText(name)
    dialog.add_button.click()


def key_of(page, category: str) -> str:
    names = [button.property("category") or button.text().split(" ", 1)[1] for button in page.text_view.category_buttons()]
    return str(names.index(category) + 1)


def code(qtbot, page, category: str) -> int:
    shown = page.current
    qtbot.keyClick(page.text_view, key_of(page, category))
    qtbot.waitUntil(lambda: page.current is None or page.current.row != shown.row, timeout=5000)
    return shown.row


def drawn_team(qtbot, page, texts=6, overlap=100) -> TeamDialog:
    """Ann (who had no codings) and Bo, a draw of ``texts`` each, ``overlap`` % of them coded by both."""
    dialog = team_dialog(qtbot, page)
    assert dialog.team.coders == ["Ann"]  # the name the step had becomes the first coder
    add(dialog, "Bo")
    dialog.texts_spin.setValue(texts)
    dialog.overlap_spin.setValue(overlap)
    assert dialog.draw_button.isEnabled(), dialog.plan_sentence.text()
    dialog.draw_button.click()
    assert page.session.codings.team.assignment is not None
    return dialog


def test_two_coders_code_the_same_drawn_texts_blind_each_undoing_only_their_own(qtbot, page):
    dialog = drawn_team(qtbot, page)
    session, team = page.session, page.session.codings.team
    dialog.show()
    save_screenshot(dialog, "coding_team_dialog")
    dialog.grab().save("/tmp/team40/shots/team_dialog.png")
    assert not page.bar.coder_edit.parentWidget().isVisibleTo(page)  # the coder is chosen on the team bar
    assert page.team_bar.coder_combo.count() == 2 and page.team_bar.active() == "Ann"
    assert set(team.assignment.rows_for("Ann")) == set(team.assignment.rows_for("Bo"))  # every text shared

    ann = [code(qtbot, page, "energy") for _ in range(3)]
    assert ann == team.assignment.rows_for("Ann")[:3]  # in the draw's order
    assert "Ann: 3 of 6 assigned texts coded." in page.team_bar.progress_label.text()
    for entry in session.codings.entries:
        assert entry.coder == "Ann" and entry.chosen_by == ASSIGNED
        assert entry.probability == pytest.approx(assigned_probability(team, "Ann", entry.row)) and entry.probability > 0

    page.team_bar.coder_combo.activated.emit(1)  # one click: Bo codes now
    assert team.active == "Bo" and page.team_bar.active() == "Bo"
    assert page.current.row == team.assignment.rows_for("Bo")[0]  # Bo's queue, from its start
    assert page._codings().latest() == {}  # Bo sees none of Ann's codings
    assert not any(button.property("current") for button in page.text_view.category_buttons())  # no category shown
    assert page.loop.pool.coded_counts(page._codings(), page._file_categories) == \
        page.loop.pool.coded_counts(type(session.codings)(), page._file_categories)  # counts: none of Ann's
    bo = [code(qtbot, page, "health") for _ in range(2)]
    assert bo == team.assignment.rows_for("Bo")[:2]  # the same texts as Ann's, in an order of Bo's own
    page.undo()  # Bo's undo takes back Bo's last coding only
    assert [e.row for e in session.codings.entries_of(coder="Bo")] == bo[:1]
    assert [e.row for e in session.codings.entries_of(coder="Ann")] == ann
    assert page.current.row == bo[1]  # the undone text comes back, as it was drawn
    assert page.current.choice.strategy == ASSIGNED
    QApplication.processEvents()  # the counts laid out anew show
    save_screenshot(page, "coding_team_step")
    page.grab().save("/tmp/team40/shots/team_step.png")

    page.team_bar.coder_combo.activated.emit(0)  # back to Ann: her queue goes on after her three
    assert page.current.row == team.assignment.rows_for("Ann")[3]
    page.undo()
    assert [e.row for e in session.codings.entries_of(coder="Ann")] == ann[:2]
    assert [e.row for e in session.codings.entries_of(coder="Bo")] == bo[:1]
    # the study's coding of the text both coded, and they disagreed: the team's rule decides
    assert session.codings.study_codings().counts


def test_without_a_draw_each_coder_codes_texts_no_one_has_coded(qtbot, page):
    dialog = team_dialog(qtbot, page)
    add(dialog, "Bo")
    ann = {code(qtbot, page, "energy") for _ in range(4)}
    page.team_bar.coder_combo.activated.emit(1)
    assert page.session.codings.team.active == "Bo"
    assert "Bo: 0 texts coded" in page.team_bar.progress_label.text()
    for _ in range(6):
        assert page.current.row not in ann
        code(qtbot, page, "health")
    assert page.current.choice.strategy != ASSIGNED


def test_the_dialog_refuses_plans_that_do_not_fit_and_coders_who_coded_stay(qtbot, page):
    code(qtbot, page, "energy")  # Ann coded before there was a team
    dialog = team_dialog(qtbot, page)
    assert dialog.team.coders == ["Ann"]
    dialog.texts_spin.setValue(5)
    dialog.overlap_spin.setValue(50)
    assert not dialog.draw_button.isEnabled()
    assert "One coder cannot share texts with other coders" in dialog.plan_sentence.text()
    add(dialog, "ann")  # the same name
    assert "already has a coder called" in dialog.coder_note.text()
    add(dialog, "Bo")
    dialog.texts_spin.setValue(500)
    assert not dialog.draw_button.isEnabled()
    assert "uncoded texts are left" in dialog.plan_sentence.text() and "Lower the texts per coder" in \
        dialog.plan_sentence.text()
    dialog.texts_spin.setValue(5)
    assert dialog.draw_button.isEnabled() and "2 coders code 5 texts each" in dialog.plan_sentence.text()
    dialog.coder_list.setCurrentRow(0)
    dialog.remove_button.click()
    assert dialog.team.coders == ["Ann", "Bo"] and "stays in the team" in dialog.coder_note.text()
    dialog.fallback_combo.setCurrentIndex(dialog.fallback_combo.findData("leave out"))
    dialog.fallback_combo.activated.emit(dialog.fallback_combo.currentIndex())
    assert dialog.team.fallback == "leave out"

    dialog.draw_button.click()
    first = dialog.team.assignment
    assert page.current.choice.strategy == ASSIGNED
    code(qtbot, page, "energy")
    asked = []
    dialog.confirm = lambda title, text: asked.append(text) or False
    dialog.seed_spin.setValue(7)
    dialog.draw_button.click()  # drawn texts were coded: asked first, and "no" keeps the draw
    assert asked and "codings are kept" in asked[0] and dialog.team.assignment is first
    dialog.confirm = lambda title, text: True
    before = list(page.session.codings.entries)
    dialog.draw_button.click()
    assert dialog.team.assignment is not first and list(page.session.codings.entries) == before
    dialog.coder_list.setCurrentRow(1)
    dialog.remove_button.click()  # Bo has not coded: leaves, and the draw with him
    assert dialog.team.coders == ["Ann"] and dialog.team.assignment is None


def test_the_team_and_its_draw_survive_saving_and_reopening_the_project(qtbot, window, tmp_path):
    path = tmp_path / "texts.csv"
    table().to_csv(path, index=False)
    window.coding_page.bar.coder_edit.setText("Ann")
    window.open_path(path)
    wait_for_report(qtbot, window)
    window.go_to_step(CODING_STEP)
    page = window.coding_page
    qtbot.waitUntil(lambda: page.current is not None, timeout=10_000)
    drawn_team(qtbot, page, texts=5, overlap=40)
    code(qtbot, page, "energy")
    page.team_bar.coder_combo.activated.emit(1)
    code(qtbot, page, "health")
    log = window.session.codings
    saved = (log.team.to_dict(), [(e.coder, e.row, e.category, e.chosen_by, e.probability) for e in log.entries])
    project = tmp_path / "team.textlab"
    assert window.project.save_and_wait(project)
    page.cancel_jobs()

    from guiapp.ui.main_window import MainWindow

    again = MainWindow()
    again.files.ask_before_closing = False
    qtbot.addWidget(again)
    again.show()
    again.go_to_step(CODING_STEP)
    again.project.open(project)
    qtbot.waitUntil(lambda: not again.project.is_busy() and len(again.session.codings) == 2, timeout=60_000)
    wait_for_report(qtbot, again)
    reopened = again.session.codings
    assert (reopened.team.to_dict(), [(e.coder, e.row, e.category, e.chosen_by, e.probability)
                                      for e in reopened.entries]) == saved
    page = again.coding_page
    qtbot.waitUntil(lambda: page.current is not None, timeout=10_000)
    assert page.team_bar.active() == "Bo" and reopened.team.active == "Bo"
    assert page.current.row == reopened.team.assignment.rows_for("Bo")[1]  # Bo goes on where he stopped
    page.cancel_jobs()


def test_the_draw_includes_the_second_files_texts_and_the_coder_codes_them_there(qtbot, page):
    from guiapp.core.coding.coding_record import SOURCES

    second = pd.DataFrame({"text": [f"Another text number {i} about energy and health" for i in range(30)]})
    page.session.set_coding_texts(second)
    dialog = team_dialog(qtbot, page)
    add(dialog, "Bo")
    assert dialog.second_check.isVisibleTo(dialog) and "second file" in dialog.second_check.text()
    dialog.texts_spin.setValue(40)  # more than the table's 60 texts give two coders without the second file
    dialog.overlap_spin.setValue(0)
    assert dialog.draw_button.isEnabled() and "from 90 uncoded texts" in dialog.plan_sentence.text()
    dialog.second_check.setChecked(False)
    assert not dialog.draw_button.isEnabled() and "only 60 uncoded texts" in dialog.plan_sentence.text()
    dialog.second_check.setChecked(True)
    dialog.draw_button.click()
    team = page.session.codings.team
    in_second = team.assignment.rows_for("Ann", SOURCES[1])
    assert in_second and "come from the second file" in page.team_bar.progress_label.text()
    page.bar.set_source(SOURCES[1])
    page._rebuild_loop(force=True)
    assert page.current.source == SOURCES[1] and page.current.row == in_second[0]
    code(qtbot, page, "health")
    entry = page.session.codings.entries[-1]
    assert (entry.source, entry.row, entry.chosen_by) == (SOURCES[1], in_second[0], ASSIGNED)
    assert entry.probability == pytest.approx(40 / 90)


def test_texts_a_coder_skipped_come_back_after_the_others_the_longest_skipped_first(qtbot, page):
    drawn_team(qtbot, page, texts=3, overlap=0)
    mine = page.session.codings.team.assignment.rows_for("Ann")
    skipped = []
    for _ in range(2):
        skipped.append(page.current.row)
        qtbot.keyClick(page.text_view, "s")
    assert page.current.row == mine[2] and code(qtbot, page, "health") == mine[2]
    assert page.current.row == skipped[0] and "skipped this text before" in page.current.reason
    qtbot.keyClick(page.text_view, "s")
    assert page.current.row == skipped[1]  # skipped again: the other one comes first
    code(qtbot, page, "energy")
    code(qtbot, page, "energy")
    assert page.current is None and "Ann: 3 of 3 assigned texts coded." in page.team_bar.progress_label.text()


def test_without_a_team_the_step_codes_as_one_coder_named_in_its_bar(qtbot, page):
    assert page.team_bar.team_button.text() == "Code as a team…"
    assert not page.team_bar.coder_combo.isVisibleTo(page) and page.bar.coder_edit.isVisibleTo(page)
    assert page.team_bar.progress_label.text() == ""
    row = code(qtbot, page, "health")
    entry = page.session.codings.entries[-1]
    assert (entry.row, entry.coder) == (row, "Ann") and entry.chosen_by != ASSIGNED
    assert page.session.codings.team is None  # nothing of a team is written until one is made
