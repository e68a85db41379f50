"""The Disagreements tab: a three-coder team's texts coded differently, listed with each coder's
category; the adjudicator's decision changes the study's coding (never a coder's), survives a
project's save and reopen, can be taken back; the team's rule for unsettled texts changes what the
study counts and says so."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.team import Team
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.coding.disagreements_view import ALL, DisagreementsView
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, session_with_table

MAPPING = ColumnMapping(text_columns=["text"], category_column="label")
CODERS = ["Ann", "Bo", "Cy"]
# row → each coder's category (None: the coder did not code it)
PLAN = {
    **{row: ("health", "health", "health") for row in range(0, 8)},  # agreed
    8: ("health", "defence", "health"),  # disagree: majority health
    9: ("energy", "defence", None),  # disagree, a tie of two
    10: ("defence", "defence", "energy"),  # disagree: majority defence
    11: ("energy", None, "energy"),  # agreed by two
    **{row: ("energy", None, None) for row in range(12, 16)},  # one coder
}
DISAGREEING = [8, 9, 10]


def team_session():
    frame = coded_texts(24, seed=3)
    frame["label"] = None
    session = session_with_table(frame, MAPPING)
    session.set_codebook(Codebook([CodebookCategory("health", "Hospitals, doctors, care."),
                                   CodebookCategory("defence", "The army and war."),
                                   CodebookCategory("energy", "Oil, gas, power.")]))
    log = session.codings
    log.team = Team(list(CODERS))
    for row, categories in PLAN.items():
        for coder, category in zip(CODERS, categories, strict=True):
            if category is not None:
                log.record(row, category, coder=coder, chosen_by="you")
    session.codings_changed()
    return session


@pytest.fixture
def view(qtbot, isolated_settings):
    widget = DisagreementsView(team_session())
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.show()
    widget.refresh()
    return widget


def entries_of(log):
    return [(e.row, e.coder, e.category) for e in log.entries]


def test_it_lists_exactly_the_texts_the_coders_coded_differently(view):
    assert view.listed_rows() == DISAGREEING
    rows = view.listed()
    assert [row[2:5] for row in rows] == [["health", "defence", "health"], ["energy", "defence", "–"],
                                          ["defence", "defence", "energy"]]
    assert [view.table.horizontalHeaderItem(c).text() for c in range(6)] == ["Row", "Text", *CODERS, "Decision"]
    assert view.text_box.toPlainText() == view.session.frame.loc[8, "text"]  # the whole text, readable
    assert [b.property("category") for b in view.category_buttons()] == ["health", "defence", "energy"]
    assert "9 texts from one coder" not in view.sentence.text() and "4 texts from one coder" in view.sentence.text()
    save_screenshot(view, "disagreements_view")


def test_a_decision_changes_the_study_and_no_coder_and_survives_a_reopen(view, qtbot, tmp_path):
    session = view.session
    before = entries_of(session.codings)
    assert session.codings.categories_by_row()[8] == "health"  # the majority, by the team's rule
    view.choose(8)
    qtbot.keyClick(view.table, Qt.Key.Key_3)  # energy
    view.comment_edit.setText("mentions oil subsidies")
    view.adjudicator_edit.setText("Dee")
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert session.codings.categories_by_row()[8] == "energy"
    assert entries_of(session.codings) == before  # nothing a coder entered changed
    assert view.listed_rows() == [9, 10] and view.current_row() == 9  # on to the next text
    assert "1 adjudicated" in view.sentence.text()

    from guiapp.core.project.opening import open_project
    from guiapp.core.project.saving import save_project
    from tests.core.project.helpers import plain_project

    path = save_project(tmp_path / "team.textlab", replace(plain_project(24), codings=session.codings))
    reopened = open_project(path, extract_models_to=tmp_path / "models")
    assert reopened.codings.categories_by_row()[8] == "energy"
    decision = reopened.codings.team.adjudications_of()[8]
    assert (decision.category, decision.adjudicator, decision.comment) == ("energy", "Dee", "mentions oil subsidies")

    session.set_codings(reopened.codings)  # the reopened project on the tab: settled, shown under "all"
    view.filter_combo.setCurrentText(ALL)
    view.filter_combo.activated.emit(1)
    assert view.listed_rows() == DISAGREEING and view.listed()[0][-1] == "energy"


def test_taking_a_decision_back_returns_the_text_to_the_teams_rule(view, qtbot):
    session = view.session
    view.choose(10)
    view.pick("health")
    view.settle()
    assert session.codings.categories_by_row()[10] == "health" and view.listed_rows() == [8, 9]
    view.filter_combo.setCurrentText(ALL)
    view.filter_combo.activated.emit(1)
    view.choose(10)
    assert view.take_back_button.isEnabled()
    view.take_back_button.click()
    assert session.codings.categories_by_row()[10] == "defence"  # the majority again
    assert session.codings.team.adjudications_of() == {}


def test_another_category_can_be_given(view):
    view.ask_other_category = lambda: "agriculture"
    view.choose(9)
    view.other_button.click()
    view.settle()
    assert view.session.codings.categories_by_row()[9] == "agriculture"


def test_the_teams_rule_changes_what_the_study_counts_and_its_sentence(view):
    session = view.session
    assert 9 not in session.codings.categories_by_row()  # a tie under the majority
    before = view.sentence.text()
    assert "2 from the majority" in before
    index = view.rule_combo.findData("first coder")
    view.rule_combo.setCurrentIndex(index)
    view.rule_combo.activated.emit(index)
    assert session.codings.team.fallback == "first coder"
    assert session.codings.categories_by_row()[9] == "energy" and session.codings.categories_by_row()[10] == "defence"
    assert view.sentence.text() != before and "3 from the first coder" in view.sentence.text()
    index = view.rule_combo.findData("leave out")
    view.rule_combo.activated.emit(index)
    assert not {8, 9, 10} & set(session.codings.categories_by_row())
    assert "3 left out" in view.sentence.text()


def test_without_a_team_it_says_how_to_start_one(qtbot, isolated_settings):
    session = session_with_table(coded_texts(10, seed=1), MAPPING)
    widget = DisagreementsView(session)
    qtbot.addWidget(widget)
    widget.show()
    assert "Team…" in widget.empty.text() and not widget.rule_combo.isEnabled() and widget.listed_rows() == []


def test_texts_of_a_second_file_are_settled_apart_from_the_tables(view, qtbot):
    from guiapp.core.coding.second_file import NAME_ATTR, texts_to_code

    session = view.session
    second = texts_to_code(coded_texts(6, seed=9).drop(columns="label"), MAPPING, "march.csv")
    second.attrs[NAME_ATTR] = "march.csv"
    for coder, category in (("Ann", "health"), ("Bo", "energy")):
        session.codings.record(2, category, coder=coder, chosen_by="you", source="second file")
    session.set_coding_texts(second)
    assert view.source_combo.isVisible() and view.source_combo.itemText(1) == "Texts of march.csv"
    assert view.listed_rows() == DISAGREEING  # the table's first
    view.source_combo.setCurrentIndex(1)
    view.source_combo.activated.emit(1)
    assert view.listed_rows() == [2] and view.text_box.toPlainText() == second.loc[2, "text"]
    view.pick("energy")
    view.settle()
    assert session.codings.team.adjudications_of("second file")[2].category == "energy"
    assert session.codings.team.adjudications_of() == {}  # row 2 of the table is another text
    assert session.codings.categories_by_row("second file")[2] == "energy"


def test_the_arrow_keys_move_between_texts_and_a_number_picks(view, qtbot):
    view.table.setFocus()
    assert view.current_row() == 8
    qtbot.keyClick(view.table, Qt.Key.Key_Down)
    assert view.current_row() == 9 and view.text_box.toPlainText() == view.session.frame.loc[9, "text"]
    qtbot.keyClick(view.table, Qt.Key.Key_2)
    assert [b.isChecked() for b in view.category_buttons()] == [False, True, False]
    assert "defence" in view.decision_line.text()
    qtbot.keyClick(view.table, Qt.Key.Key_Up)  # moving on forgets an unconfirmed pick
    assert view.current_row() == 8 and not any(b.isChecked() for b in view.category_buttons())
    assert view.session.codings.team.adjudications_of() == {}
