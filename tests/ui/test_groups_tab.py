"""The Results step's "Groups of texts" tab: scores per value of a column of the study's table, and
a double-clicked group opens its test texts on the Documents step."""

from __future__ import annotations

import pytest

from guiapp.core.project.saving import save_project
from guiapp.ui.main_window import DOCUMENTS_STEP, RESULTS_STEP
from tests.core.project.helpers import run_project


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return run_project(tmp_path_factory.mktemp("models"))


def test_groups_of_texts_are_scored_and_open_on_the_documents_step(qtbot, window, project, tmp_path):
    path = tmp_path / "bills.textlab"
    save_project(path, project)
    window.open_path(path)
    qtbot.waitUntil(lambda: window.data_page.table is not None and window.results_page.result is not None,
                    timeout=30000)
    window.go_to_step(RESULTS_STEP)
    page = window.results_page
    page.show_tab("By group")
    groups = page.groups
    groups.choose_column("year")
    qtbot.waitUntil(lambda: groups.scores is not None and not groups.is_busy(), timeout=30000)
    shown = groups.scores.model(groups.model_combo.currentData())
    assert {group.label for group in shown.groups} >= {"2000", "2003"}
    assert sum(group.n_texts for group in shown.groups) == len(project.result.test_true)
    group = next(g for g in shown.groups if g.label == "2003")
    groups.groupChosen.emit("year", group.value)
    assert window.steps.currentRow() == DOCUMENTS_STEP
    assert len(window.documents_page.shown_documents()) == group.n_texts
