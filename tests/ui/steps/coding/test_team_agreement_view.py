"""The Team agreement tab: a three-coder team's alpha (as the core measures it), the coders' kappa
matrix with the texts each pair shares, each coder against the adjudicated coding, alpha per
codebook version when the codings span two, words where there are too few shared texts, and
alpha per category where a text can have several categories."""

from __future__ import annotations

import math

from guiapp.core.coding.adjudication import Adjudication
from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.team import Team
from guiapp.core.coding.team_report import team_agreement_of_log
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.coding.team_agreement_view import TeamAgreementView, versions_sentence
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, session_with_table

MAPPING = ColumnMapping(text_columns=["text"], category_column="label")
CODERS = ["Ann", "Bo", "Cy"]
NAMES = ["health", "defence", "energy"]


def session_of(codings, *, several=False):
    """``codings``: (row, coder, category or tuple of categories, codebook version)."""
    frame = coded_texts(40, seed=4)
    frame["label"] = None
    session = session_with_table(frame, MAPPING)
    session.set_codebook(Codebook([CodebookCategory(name) for name in NAMES]))
    log = session.codings
    log.team = Team(list(CODERS))
    for row, coder, category, version in codings:
        if several:
            log.record(row, None, coder=coder, chosen_by="you", labels=category, codebook_version=version)
        else:
            log.record(row, category, coder=coder, chosen_by="you", codebook_version=version)
    session.codings_changed()
    return session


def team_codings(version_of=lambda row: None):
    """30 texts each coder coded: Ann and Bo mostly agree, Cy strays on every fourth text."""
    found = []
    for row in range(30):
        true = NAMES[row % 3]
        for coder in CODERS:
            category = true
            if coder == "Bo" and row % 7 == 0:
                category = NAMES[(row + 1) % 3]
            if coder == "Cy" and row % 4 == 0:
                category = NAMES[(row + 2) % 3]
            found.append((row, coder, category, version_of(row)))
    return found


def measured(qtbot, session, *, samples=200):
    view = TeamAgreementView(session)
    view.samples = samples
    qtbot.addWidget(view)
    view.resize(1100, 900)
    view.show()
    view.refresh()
    qtbot.waitUntil(lambda: view.result is not None and not view.is_busy(), timeout=30_000)
    return view


def test_alpha_and_the_kappa_matrix_are_the_cores(qtbot, isolated_settings):
    session = session_of(team_codings())
    session.codings.team.adjudicate(0, Adjudication("health", "Dee"))
    view = measured(qtbot, session)
    expected = team_agreement_of_log(session.codings, categories=NAMES, samples=200)
    assert math.isclose(view.result.alpha, expected.alpha)
    assert f"{expected.alpha:.2f}" in view.headline_text() and view.alpha_card.value_label.text() == f"{expected.alpha:.2f}"
    kappas, shared = expected.kappa_matrix()
    cells = view.matrix_cells()
    assert cells[0][1] == f"{kappas[0][1]:.2f}  ({shared[0][1]})" and cells[1][2] == f"{kappas[1][2]:.2f}  (30)"
    assert cells[0][0] == "30 texts coded"
    assert view.fleiss_card.value_label.text() == f"{expected.fleiss.kappa:.2f}"
    assert view.categories_table.rowCount() == 3
    assert view.reference_table.rowCount() == 3  # each coder against the one adjudicated text
    assert not view.versions_line.isVisible()
    assert view.disagreements_card.value_label.text() == str(len(expected.disagreements))
    opened = []
    view.disagreementsWanted.connect(lambda: opened.append(True))
    view.settle_button.click()
    assert opened
    save_screenshot(view, "team_agreement_view")


def test_alpha_per_codebook_version_is_said_in_words(qtbot, isolated_settings):
    session = session_of(team_codings(lambda row: 1 if row < 15 else 2))
    view = measured(qtbot, session)
    assert [v.label for v in view.result.by_label] == [1, 2]
    words = view.versions_line.text()
    assert view.versions_line.isVisible()
    assert "version 1: " in words and "version 2: " in words and "revision" in words


def test_versions_sentence_says_whether_the_revision_helped():
    class Version:
        def __init__(self, label, alpha, interval):
            self.label, self.alpha, self.interval, self.n_texts = label, alpha, interval, 40

    helped = versions_sentence([Version(1, 0.61, (0.5, 0.7)), Version(2, 0.9, (0.82, 0.97))])
    assert helped.startswith("Alpha per codebook version: version 1: 0.61") and "the revision helped" in helped
    unclear = versions_sentence([Version(1, 0.61, (0.4, 0.8)), Version(2, 0.7, (0.5, 0.85))])
    assert "may be chance" in unclear
    assert versions_sentence([Version(1, 0.61, (0.4, 0.8))]) == ""


def test_too_few_shared_texts_give_words_not_numbers(qtbot, isolated_settings):
    session = session_of([(0, "Ann", "health", None), (0, "Bo", "health", None), (1, "Cy", "energy", None)])
    view = measured(qtbot, session)
    assert "at least two texts coded by two coders" in view.headline_text()
    assert not view.alpha_card.isVisible() and not view.matrix.isVisible()


def test_several_categories_per_text_give_alpha_per_category(qtbot, isolated_settings):
    codings = [(row, coder, labels, None) for row, coder, category, _ in team_codings()
               for labels in [(category,) if row % 5 else (category, "energy")]]
    session = session_of(codings, several=True)
    view = measured(qtbot, session)
    assert hasattr(view.result, "mean_alpha")
    assert "yes/no" in view.headline_text() and view.categories_table.rowCount() == 3
    assert not view.matrix.isVisible() and not view.fleiss_card.isVisible()


def test_it_follows_new_codings(qtbot, isolated_settings):
    session = session_of(team_codings()[:6])  # two texts each coded by three coders
    view = measured(qtbot, session)
    first = view.result.alpha
    for row, coder, category, version in team_codings()[6:]:
        session.codings.record(row, category, coder=coder, chosen_by="you", codebook_version=version)
    session.codings_changed()
    qtbot.waitUntil(lambda: not view.is_busy() and view.result is not None and view.result.n_texts == 30,
                    timeout=30_000)
    assert view.result.alpha != first


def test_without_a_team_it_says_how_to_start_one(qtbot, isolated_settings):
    session = session_with_table(coded_texts(10, seed=1), MAPPING)
    view = TeamAgreementView(session)
    qtbot.addWidget(view)
    view.show()
    assert "Team…" in view.headline_text() and view.result is None


def test_the_coding_step_has_both_tabs_and_opens_the_disagreements(qtbot, isolated_settings):
    from guiapp.ui.steps.coding.coding_page import CodingPage

    session = session_of(team_codings())
    page = CodingPage(session=session)
    qtbot.addWidget(page)
    page.resize(1280, 860)
    page.show()
    session.dataChanged.emit()
    names = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    assert names[-2:] == ["Disagreements", "Team agreement"]
    page.tabs.setCurrentWidget(page.team_agreement)
    page.team_agreement.samples = 200
    page.team_agreement.refresh()
    qtbot.waitUntil(lambda: page.team_agreement.result is not None and not page.team_agreement.is_busy(),
                    timeout=30_000)
    save_screenshot(page, "coding_step_team_agreement")
    page.team_agreement.settle_button.click()
    assert page.tabs.currentWidget() is page.disagreements
    assert page.disagreements.listed_rows()  # the team's disagreements, ready to settle
    save_screenshot(page, "coding_step_disagreements")
    page.cancel_jobs()
