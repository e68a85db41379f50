"""The Codebook tab keeps the codebook's versions: the first version when the researcher leaves the
tab, a new version with a note (the dialog lists what changed), merges and splits, the list of
versions, and the codings to re-check (Keep / Change…) — also after the project is saved and
reopened."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from PySide6.QtWidgets import QDialogButtonBox

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codings import CodingLog
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.coding.codebook_editor import CodebookEditor
from guiapp.ui.steps.coding.codebook_tab import FIRST_NOTE, CodebookTab
from guiapp.ui.steps.coding.codebook_version_dialog import CodebookVersionDialog
from tests.core.project.helpers import plain_project
from tests.ui.helpers import save_screenshot, session_with_table

MAPPING = ColumnMapping(text_columns=["text"], category_column=None)
TEXTS = ["Taxes on fuel rise again next year.", "The new clinic opens on Monday.",
         "Wages in the care sector stay low.", "A vaccine for the winter flu is ready.",
         "Rents climb faster than incomes.", "Waiting lists for therapy grow longer."]
SHOTS = Path("/tmp/team40/shots")


def first_codebook() -> Codebook:
    return Codebook([CodebookCategory("economy", "Money, prices and taxes.", ["Taxes on fuel rise."]),
                     CodebookCategory("wages", "Pay and incomes."),
                     CodebookCategory("health", "Illness, care and medicine.")])


class Notes:
    """Answers the version dialog: the note to give, and what it was shown."""

    def __init__(self, note: str | None) -> None:
        self.note, self.asked = note, []

    def __call__(self, parent, number, changes, *, reason="", optional=True):  # noqa: ANN001
        self.asked.append((number, [c.sentence() for c in changes], reason, optional))
        return self.note if self.note is not None or optional else ""


def make_tab(qtbot, session) -> CodebookTab:
    editor = CodebookEditor()
    editor.changed.connect(session.edit_codebook)
    tab = CodebookTab(session, editor)
    qtbot.addWidget(tab)
    tab.resize(1200, 820)
    editor.set_codebook(session.codebook)
    tab.show()
    qtbot.waitExposed(tab)
    return tab


@pytest.fixture
def session():
    frame = pd.DataFrame({"text": TEXTS})
    session = session_with_table(frame, MAPPING)
    session.set_codebook(first_codebook())
    return session


def code(session, rows_and_categories) -> None:
    for row, category in rows_and_categories:
        session.codings.record(row, category, coder="Ana", chosen_by="random")
    session.codings_changed()


def edit_definition(tab: CodebookTab, name: str, definition: str) -> None:
    tab.editor.choose(name)
    tab.editor.definition.setPlainText(definition)
    tab.editor.flush()


def test_leaving_the_tab_makes_the_first_version_and_codings_record_it(qtbot, session):
    tab = make_tab(qtbot, session)
    assert session.codings.history is None and tab.save_button.text() == "Save as version 1…"
    assert tab.leave() == 1
    history = session.codings.history
    assert history.current.note == FIRST_NOTE and history.current.codebook.names() == ["economy", "wages", "health"]
    assert not tab.save_button.isEnabled() and tab.save_button.text() == "Save as version 2…"
    code(session, [(0, "economy")])
    assert session.codings.latest()[0].codebook_version == 1
    assert tab.versions.rowCount() == 1 and tab.versions.item(0, 2).text() == FIRST_NOTE


def test_save_as_version_asks_for_a_note_and_lists_what_changed(qtbot, session):
    tab = make_tab(qtbot, session)
    tab.leave()
    edit_definition(tab, "economy", "Money, prices, taxes and rents.")
    assert tab.save_button.isEnabled()
    assert "“economy”: definition edited" in tab.status.text()
    tab.ask_note = Notes("Rents count as economy")
    tab.save_button.click()
    assert tab.ask_note.asked == [(2, ["“economy”: definition edited (version 2)."], "", True)]
    assert session.codings.history.current.note == "Rents count as economy"
    assert [tab.versions.item(row, 0).text() for row in range(2)] == ["2", "1"]  # newest first
    assert tab.versions.item(0, 3).text() == "“economy”: definition edited"
    assert not tab.save_button.isEnabled()


def test_not_now_saves_nothing_but_leaving_saves_the_version_anyway(qtbot, session):
    tab = make_tab(qtbot, session)
    tab.leave()
    edit_definition(tab, "health", "Illness and care, not sport.")
    tab.ask_note = Notes(None)  # "Not now" / "Save without a note"
    tab.save_button.click()
    assert session.codings.history.current.number == 1
    assert tab.leave() == 2  # leaving to code: asked once, saved without a note
    assert tab.ask_note.asked[-1][2].startswith("You changed the codebook") and tab.ask_note.asked[-1][3] is False
    assert session.codings.history.current.note == ""


def test_merge_and_split_become_the_version_s_changes_and_codings_are_listed_to_recheck(qtbot, session):
    tab = make_tab(qtbot, session)
    tab.leave()
    code(session, [(0, "economy"), (2, "wages"), (1, "health"), (5, "health"), (3, "health")])
    tab.merge("wages", "economy")
    tab.split_category("health", ["health", "mental health"])
    assert session.codebook.names() == ["economy", "health", "mental health"]
    assert session.codebook.category("mental health").definition.startswith("Split from “health”.")
    tab.ask_note = Notes("Wages are economy; mental health apart")
    assert tab.ask_and_save() == 2
    kinds = {(c.category, c.kind) for c in session.codings.history.current.changes}
    assert {("wages", "merged into"), ("health", "split into"), ("mental health", "split from")} <= kinds
    assert session.codings.latest()[2].category == "wages"  # the merge rewrote no coding

    panel = tab.recheck
    listed = {(item.row, item.category) for item in panel.items}
    assert listed == {(2, "wages"), (1, "health"), (5, "health"), (3, "health")}
    assert panel.table.rowCount() == 4
    shown = {panel.table.item(r, 1).text(): panel.table.item(r, 4).text() for r in range(4)}
    assert "merged into “economy”" in shown[TEXTS[2]]
    assert "Coded as" == panel.table.horizontalHeaderItem(2).text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(save_screenshot(tab, "codebook_tab_versions_recheck"), SHOTS / "codebook_tab_versions_recheck.png")

    health = next(i for i, item in enumerate(panel.items) if item.row == 1)
    panel.table.selectRow(health)
    panel.keep_button.click()
    kept = session.codings.latest()[1]
    assert (kept.category, kept.codebook_version, kept.chosen_by) == ("health", 2, "review")
    assert 1 not in {item.row for item in panel.items}
    wages = next(item for item in panel.items if item.row == 2)
    panel.keep([wages])  # "wages" is gone: it cannot be kept
    assert "no longer in the codebook" in panel.summary.text()
    assert session.codings.latest()[2].category == "wages"
    panel.change(wages, "economy")
    assert session.codings.latest()[2].category == "economy" and session.codings.latest()[2].previous == "wages"
    assert {item.row for item in panel.items} == {3, 5}


def test_versions_and_the_recheck_list_are_there_after_reopening(qtbot, session, tmp_path):
    tab = make_tab(qtbot, session)
    tab.leave()
    code(session, [(0, "economy"), (1, "health")])
    edit_definition(tab, "economy", "Money, prices, taxes and rents.")
    tab.ask_note = Notes("Rents count")
    tab.ask_and_save()
    project = plain_project(6)
    project.codings, project.codebook = session.codings, session.codebook
    again = open_project(save_project(tmp_path / "versions.textlab", project), extract_models_to=None)

    reopened = session_with_table(pd.DataFrame({"text": TEXTS}), MAPPING)
    reopened.set_codebook(again.codebook)
    reopened.set_codings(again.codings)
    new_tab = make_tab(qtbot, reopened)
    assert [new_tab.versions.item(row, 2).text() for row in range(2)] == ["Rents count", FIRST_NOTE]
    assert [(item.row, item.category) for item in new_tab.recheck.items] == [(0, "economy")]
    assert new_tab.save_button.text() == "Save as version 3…" and not new_tab.save_button.isEnabled()
    new_tab.recheck.keep(new_tab.recheck.items)
    assert new_tab.recheck.items == [] and reopened.codings.latest()[0].codebook_version == 2


def test_the_dialog_shows_the_changes_and_takes_the_note(qtbot, session):
    tab = make_tab(qtbot, session)
    tab.leave()
    tab.merge("wages", "economy")
    dialog = CodebookVersionDialog(2, tab.changes())
    qtbot.addWidget(dialog)
    assert dialog.changes.item(0).text() == "“wages”: merged into “economy”"
    dialog.note.setText("  Wages are economy ")
    dialog.show()
    SHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SHOTS / "codebook_version_dialog.png"))
    with qtbot.waitSignal(dialog.accepted):
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save).click()
    assert dialog.note_text() == "Wages are economy"


def test_an_edit_made_elsewhere_is_saved_as_a_version_when_the_tab_is_hidden(qtbot, session):
    tab = make_tab(qtbot, session)
    tab.leave()
    tab.hide()
    qtbot.wait(10)
    session.edit_codebook(Codebook([*first_codebook().categories, CodebookCategory("energy", "Oil and power.")]))
    qtbot.waitUntil(lambda: session.codings.history.current.number == 2, timeout=2000)
    assert session.codings.history.current.note == "Edited outside the Codebook tab"
    assert CodingLog.from_dict(session.codings.to_dict()).history.current.codebook.names()[-1] == "energy"


def test_in_a_team_the_list_holds_the_active_coder_s_codings_only(qtbot, session):
    from guiapp.core.coding.team import Team

    session.codings.team = Team(["Ana", "Ben"])
    tab = make_tab(qtbot, session)
    tab.leave()
    for coder, category in (("Ana", "health"), ("Ben", "economy")):
        session.codings.record(0, category, coder=coder, chosen_by="assigned")
    session.codings_changed()
    edit_definition(tab, "health", "Illness and care, not sport.")
    edit_definition(tab, "economy", "Money, prices, taxes and rents.")
    tab.ask_note = Notes("Both sharpened")
    tab.ask_and_save()
    assert [(item.coder, item.category) for item in tab.recheck.items] == [("Ana", "health")]
    assert tab.recheck.summary.text().startswith("Ana's codings: 1 text was coded")
    session.codings.team.switch_to("Ben")
    session.codings_changed()
    assert [(item.coder, item.category) for item in tab.recheck.items] == [("Ben", "economy")]
    tab.recheck.keep(tab.recheck.items)
    assert session.codings.latest(coder="Ben")[0].codebook_version == 2
    assert session.codings.latest(coder="Ana")[0].codebook_version == 1  # Ana's own coding untouched


def test_the_results_step_s_methods_appendix_describes_the_coding_team(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from guiapp.core.coding.codebook_versions import CodebookHistory
    from guiapp.core.coding.team import Team
    from guiapp.ui.steps.results.results_page import ResultsPage
    from tests.ui.sample_results import sample_result

    page = ResultsPage()
    qtbot.addWidget(page)
    log = CodingLog(team=Team(["Ana", "Ben"]), history=CodebookHistory(first_codebook()))
    for row in range(6):
        for coder in ("Ana", "Ben"):
            log.record(row, "health" if row % 2 or (coder, row) == ("Ben", 4) else "economy", coder=coder,
                       chosen_by="assigned")
    page.session.set_codebook(first_codebook())
    page.session.set_codings(log)
    page.show_result(sample_result())
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "methods.html"), ""))
    with qtbot.waitSignal(page.statusMessage, timeout=60_000):
        page.export.appendix_button.click()
    html = (tmp_path / "methods.html").read_text(encoding="utf-8")
    assert "The texts were coded by a team of 2 coders (Ana and Ben)" in html
    assert "Krippendorff" in html
