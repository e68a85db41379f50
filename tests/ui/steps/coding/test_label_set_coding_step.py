"""The Coding step where a text can have several categories: number keys tick and untick check
boxes, Enter records the ticked set (none ticked: "none of these categories"), S skips, Z undoes;
the texts are drawn at random with the quick model and "Codings to check" saying why they are off;
and the coded sets reach the table a study runs on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from guiapp.core.study.label_sets import NO_CATEGORY
from guiapp.core.study.mapping import apply_mapping
from guiapp.ui.common.step_order import CODING_STEP
from tests.ui.helpers import save_screenshot, wait_for_report

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
CATEGORIES = ["economy", "health", "environment", "migration"]


@pytest.fixture
def several_window(qtbot, window, tmp_path):
    source = tmp_path / "speeches.csv"
    shutil.copy(FIXTURES / "multi_label_small.csv", source)
    window.coding_page.bar.coder_edit.setText("Ana")
    window.open_path(source)
    wait_for_report(qtbot, window)
    window.data_page.mapping_panel.several.setChecked(True)
    qtbot.waitUntil(lambda: window.data_page.mapping().multi_label)
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.session.mapping.multi_label)
    window.go_to_step(CODING_STEP)
    page = window.coding_page
    qtbot.waitUntil(lambda: page.current is not None)
    yield window, source
    page.cancel_jobs()


def test_keys_tick_enter_records_the_set_and_none_ticked_is_a_coding(qtbot, several_window):
    window, source = several_window
    page, view, session = window.coding_page, window.coding_page.text_view, window.session
    assert view.codes_several() and page.content.isVisible()
    names = [button.property("category") for button in view.category_buttons()]
    assert names == ["economy", "environment", "health", "migration"]  # the study's order of categories
    first = page.current.row
    qtbot.keyClick(view, "3")
    qtbot.keyClick(view, "4")
    qtbot.keyClick(view, "1")
    qtbot.keyClick(view, "1")  # ticked and unticked again
    assert view.ticked() == ["health", "migration"]
    assert "health, migration" in view.ticked_text()
    save_screenshot(window, "coding_step_several_categories")
    qtbot.keyClick(view, Qt.Key.Key_Return)
    entry = session.codings.entries[-1]
    assert (entry.row, entry.labels, entry.category, entry.coder) == (first, ("health", "migration"), None, "Ana")
    assert entry.chosen_by in ("random", "uncertainty") and 0 < entry.probability <= 1
    assert page.current is not None and page.current.row != first and view.ticked() == []
    second = page.current.row
    assert "none of these categories" in view.ticked_text()
    view.done_button().click()  # nothing ticked: none of these categories
    assert session.codings.label_sets_by_row()[second] == ()
    third = page.current.row
    qtbot.keyClick(view, "s")
    assert session.codings.entries[-1].skipped and session.codings.entries[-1].row == third
    said = []
    page.statusMessage.connect(said.append)
    qtbot.keyClick(view, "z")  # the skip is taken back and its text comes again
    assert page.current.row == third and session.codings.entries[-1].row == second
    qtbot.keyClick(view, "z")
    assert page.current.row == second and second not in session.codings.label_sets_by_row()
    assert said[-1].endswith("had been coded as “none of these categories”.")
    qtbot.keyClick(view, "2")
    qtbot.keyClick(view, Qt.Key.Key_Enter)
    assert session.codings.label_sets_by_row() == {first: ("health", "migration"), second: ("environment",)}

    table = session.study_table_with_codings()
    sets = apply_mapping(table, session.coded_mapping()).frame["category"]
    assert sets[first] == ("health", "migration") and sets[second] == ("environment",)
    assert table.loc[first, CATEGORIES].tolist() == [0, 1, 0, 1]
    assert session.frame.loc[first, CATEGORIES].isna().all()  # the table as read is not changed


def test_the_quick_model_asks_a_yes_no_question_per_category_and_suggests_the_doubtful_texts(qtbot, several_window):
    window, _source = several_window
    page = window.coding_page
    view = page.text_view
    # the file's 90 coded texts hold both answers for every category: the model learns at once
    qtbot.waitUntil(lambda: page.label_sets.found is not None and not page.is_busy(), timeout=30_000)
    found = page.label_sets.found
    assert found.categories == ("economy", "environment", "health", "migration")
    assert found.probabilities.shape == (page.loop.pool.n_pool, 4) and found.n_coded == 90
    page._show_next()
    assert page.current.choice.strategy == "uncertainty"
    assert "least sure whether" in view.reason_text()
    save_screenshot(window, "coding_step_several_categories_suggested")
    shown = page.current
    qtbot.keyClick(view, "1")
    qtbot.keyClick(view, Qt.Key.Key_Return)
    entry = window.session.codings.entries[-1]
    assert (entry.row, entry.chosen_by, entry.probability) == (shown.row, "uncertainty", shown.choice.probability)
    assert not page.bar.strategy_combo.isEnabled() and "yes/no question" in page.bar.strategy_combo.toolTip()
    assert "one category per text" in page.progress.stop_sentence()  # the stop signal is off, and says why
    assert not page.review_tab.button.isEnabled()  # so is "Codings to check"
    said = []
    page.statusMessage.connect(said.append)
    page.review()
    assert said and "one category per text" in said[-1] and not page.is_busy()
    assert not page.loop.rounds  # no model of one category per text is trained on sets


def test_the_counts_hold_every_category_and_the_texts_with_none(qtbot, several_window):
    window, _source = several_window
    page = window.coding_page
    counts = page.label_sets.counts(page._categories(), page._codings())
    assert counts == {"economy": 35, "health": 27, NO_CATEGORY: 24, "environment": 21, "migration": 18}
    qtbot.keyClick(page.text_view, "3")
    qtbot.keyClick(page.text_view, Qt.Key.Key_Return)
    assert page.label_sets.counts(page._categories(), page._codings())["health"] == 28


def test_a_team_codes_sets_blind_and_agreed_sets_reach_the_study(qtbot, several_window):
    from guiapp.ui.steps.coding.team_dialog import TeamDialog

    window, _source = several_window
    page, session = window.coding_page, window.session
    dialog = TeamDialog(session, page.bar.coder(), page)
    dialog.changed.connect(page._team_changed)
    qtbot.addWidget(dialog)
    dialog.name_edit.setText("Bo")
    dialog.add_button.click()
    dialog.texts_spin.setValue(3)
    dialog.overlap_spin.setValue(100)
    assert dialog.draw_button.isEnabled(), dialog.plan_sentence.text()
    dialog.draw_button.click()
    page._team_changed()
    team = session.codings.team
    rows = team.assignment.rows_for("Ana")
    assert page.text_view.codes_several() and page.current.row == rows[0]
    plan = {rows[0]: ["3"], rows[1]: [], rows[2]: ["1", "4"]}  # health; none of these; economy and migration

    def code_own_queue() -> list:
        coded = []
        for _ in rows:
            row = page.current.row
            for key in plan[row]:
                qtbot.keyClick(page.text_view, key)
            qtbot.keyClick(page.text_view, Qt.Key.Key_Return)
            coded.append(row)
        return coded

    assert code_own_queue() == rows
    page.team_bar.coder_combo.activated.emit(1)  # Bo codes now, blind to Ana's sets
    assert team.active == "Bo" and page._codings().latest() == {}
    assert page.text_view.ticked() == []
    assert set(code_own_queue()) == set(rows)
    assert all(entry.labels is not None for entry in session.codings.entries)
    sets = apply_mapping(session.study_table_with_codings(), session.coded_mapping()).frame["category"]
    assert (sets[rows[0]], sets[rows[1]], sets[rows[2]]) == (("health",), (), ("economy", "migration"))  # agreed


def test_coded_sets_survive_saving_and_reopening_the_project(qtbot, several_window, tmp_path):
    from tests.ui.steps.coding.test_coding_reopened import fresh_window

    window, _source = several_window
    page, view = window.coding_page, window.coding_page.text_view
    first = page.current.row
    qtbot.keyClick(view, "1")
    qtbot.keyClick(view, "3")
    qtbot.keyClick(view, Qt.Key.Key_Return)
    project = tmp_path / "sets.textlab"
    assert window.project.save_and_wait(project)
    page.cancel_jobs()
    again = fresh_window(qtbot)
    again.coding_page.bar.coder_edit.setText("Ana")
    again.project.open(project)
    qtbot.waitUntil(lambda: not again.project.is_busy() and len(again.session.codings) == 1, timeout=60_000)
    wait_for_report(qtbot, again)
    qtbot.waitUntil(lambda: again.coding_page.current is not None and again.coding_page.text_view.codes_several(),
                    timeout=10_000)
    assert again.session.codings.label_sets_by_row() == {first: ("economy", "health")}
    assert again.coding_page.current.row != first
    sets = apply_mapping(again.session.study_table_with_codings(), again.session.coded_mapping()).frame["category"]
    assert sets[first] == ("economy", "health")
    again.coding_page.cancel_jobs()


def test_the_view_ticks_beyond_nine_in_the_list_and_answers_once(qtbot):
    from guiapp.ui.steps.coding.coding_text_view import CodingTextView

    view = CodingTextView()
    qtbot.addWidget(view)
    names = [f"Topic {n}" for n in range(1, 13)]
    heard = []
    view.labelSetCoded.connect(heard.append)
    view.coded.connect(lambda name: heard.append(("one", name)))
    view.resize(900, 560)
    view.show_text("A text", {}, names, several=True, ticked=["Topic 2", "Topic 11"])
    view.show()
    qtbot.waitExposed(view)
    view.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    assert view.codes_several() and view.uses_category_list()
    assert view.ticked() == ["Topic 2", "Topic 11"]  # a box past the ninth is ticked in the list
    qtbot.keyClick(view, "2")  # unticked
    qtbot.keyClick(view, "9")
    line = view.category_finder().lineEdit()
    line.setText("Topic 12")
    qtbot.keyClick(line, Qt.Key.Key_Return)  # typed: ticked, not recorded
    assert heard == [] and view.ticked() == ["Topic 9", "Topic 11", "Topic 12"]
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.keyClick(view, Qt.Key.Key_Return)  # a second press records nothing more
    view.done_button().click()
    assert heard == [["Topic 9", "Topic 11", "Topic 12"]]
    view.show_text("Another", {}, names[:3])  # one category per text again: buttons that code
    view.setFocus()
    assert not view.codes_several() and view.ticked_text() == ""
    qtbot.keyClick(view, "3")
    assert heard[-1] == ("one", "Topic 3")
