"""The Data step reads a coding team's codings honestly: it says how many texts of the study came
from which rule (one coder, agreed, adjudicated, left out) and the rule for unsettled texts, and its
data check does not count texts left out (coders disagreed, no one adjudicated) as coded — also
after the project is saved and reopened."""

from __future__ import annotations

from guiapp.core.coding.adjudication import Adjudication
from guiapp.core.coding.coding_record import ASSIGNED
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.team import Team
from guiapp.core.coding.team_codings_words import team_codings_words
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, wait_for_report


def team_log(categories: list[str]) -> CodingLog:
    """Rows 40–45 coded by a team of three: 40, 41 by Ana alone; 42 agreed; 43 disagreed and
    adjudicated; 44, 45 disagreed and not adjudicated (left out)."""
    team = Team(["Ana", "Ben", "Cy"], fallback="leave out")
    log = CodingLog(team=team)
    a, b = categories[0], categories[1]
    for row, by_coder in {40: {"Ana": a}, 41: {"Ana": b}, 42: {"Ana": a, "Ben": a},
                          43: {"Ana": a, "Cy": b}, 44: {"Ben": a, "Cy": b}, 45: {"Ana": b, "Ben": a}}.items():
        for coder, category in by_coder.items():
            log.record(row, category, coder=coder, chosen_by=ASSIGNED, probability=0.1)
    team.adjudicate(43, Adjudication(b, "Dee", "the second sentence decides"))
    return log


def test_the_words_name_each_rule_and_the_rule_for_unsettled_texts():
    log = team_log(["a", "b"])
    words = team_codings_words(log)
    assert "In the table: 2 texts from one coder, 1 agreed by two or more, 1 adjudicated, 2 left out: coders " \
           "disagreed and no one adjudicated." in words
    assert "are left out of the study until someone adjudicates them" in words
    assert "second file" not in words
    log.team.set_fallback("first coder")
    words = team_codings_words(log)
    assert "2 from the first coder where coders disagreed" in words and "first coder in the team's list" in words
    assert team_codings_words(CodingLog()) == ""


def test_the_data_step_says_the_rules_and_does_not_count_left_out_texts_as_coded(qtbot, window, tmp_path):
    frame = coded_texts(160, seed=3)
    frame.loc[40:, "label"] = None  # 40 coded in the file, 120 to code
    path = tmp_path / "texts.csv"
    frame.to_csv(path, index=False)
    window.open_path(path)
    first = wait_for_report(qtbot, window)
    assert first.n_coded == 40
    session = window.session
    categories = sorted(frame["label"].dropna().unique())
    log = team_log(categories)
    session.codings.team = log.team
    for entry in log.entries:
        session.codings.add(entry)
    session.codings_changed()
    note = window.data_page.codings_note
    qtbot.waitUntil(lambda: "adjudicated" in note.text() and not note.isHidden(), timeout=10_000)
    qtbot.waitUntil(lambda: window.data_page.report is not None and window.data_page.report is not first
                    and not window.data_page.is_busy(), timeout=60_000)
    # 4 texts settled (2 one coder, 1 agreed, 1 adjudicated); the 2 left out are not coded
    assert window.data_page.report.n_coded == 44
    assert "includes 4 texts coded on the Coding step" in note.text()
    assert "2 left out: coders disagreed and no one adjudicated" in note.text()
    window.data_page.resize(1200, 700)
    shot = save_screenshot(window.data_page, "data_step_team_codings")
    assert shot.exists()

    project = tmp_path / "team.textlab"
    assert window.project.save_and_wait(project)
    from guiapp.ui.main_window import MainWindow

    again = MainWindow()
    again.files.ask_before_closing = False
    qtbot.addWidget(again)
    again.show()
    again.project.open(project)
    qtbot.waitUntil(lambda: not again.project.is_busy() and len(again.session.codings) == len(log), timeout=60_000)
    qtbot.waitUntil(lambda: "adjudicated" in again.data_page.codings_note.text(), timeout=10_000)
    page = again.data_page
    qtbot.waitUntil(lambda: page.report is not None and page.report.n_coded == 44 and not page.is_busy(),
                    timeout=60_000)
    assert "2 left out" in again.data_page.codings_note.text()
    again.data_page.cancel_jobs()


def test_several_categories_coded_by_a_team_count_in_the_check_except_the_ones_left_out(qtbot, window, tmp_path):
    import shutil
    from pathlib import Path

    source = tmp_path / "speeches.csv"
    shutil.copy(Path(__file__).resolve().parents[3] / "fixtures" / "multi_label_small.csv", source)
    window.open_path(source)
    wait_for_report(qtbot, window)
    page = window.data_page
    page.mapping_panel.several.setChecked(True)
    qtbot.waitUntil(lambda: page.mapping().multi_label)
    qtbot.waitUntil(lambda: page.report is not None and page.report.n_coded == 90 and not page.is_busy(),
                    timeout=60_000)
    session = window.session
    session.codings.team = Team(["Ana", "Ben"], fallback="leave out")
    for row, ana, ben in ((7, ("economy",), ("economy",)), (23, ("health", "migration"), ("health", "migration")),
                          (39, ("economy",), ("health",))):  # agreed, agreed, disagreed (left out)
        session.codings.record(row, None, coder="Ana", chosen_by="in order", labels=ana)
        session.codings.record(row, None, coder="Ben", chosen_by="in order", labels=ben)
    session.codings_changed()
    qtbot.waitUntil(lambda: page.report is not None and page.report.n_coded == 92 and not page.is_busy(),
                    timeout=60_000)
    note = page.codings_note.text()
    assert "includes 2 texts coded on the Coding step" in note
    assert "In the table: 2 texts agreed by two or more, 1 left out: coders disagreed and no one adjudicated" in note
