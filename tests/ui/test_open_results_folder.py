"""A results folder copied back from a cluster opens in the window (drag-and-drop, the command line and
File → Open results folder… all end in ``open_path``): the Results step with the models, the
Documents step with the test texts, the Predict step with the trained models; a folder without
results gets a plain message."""

from __future__ import annotations

import shutil

import pytest

from guiapp.ui.main_window import DOCUMENTS_STEP, PREDICT_STEP, RESULTS_STEP
from tests.core.project.test_results_folder import run_on_the_cluster
from tests.ui.helpers import save_screenshot


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory):
    cluster = run_on_the_cluster(tmp_path_factory.mktemp("cluster"))
    here = tmp_path_factory.mktemp("laptop") / cluster.name
    shutil.copytree(cluster, here)
    shutil.rmtree(cluster)  # the paths recorded during the run are gone
    return here / "results"


def test_the_window_opens_a_results_folder_on_the_results_step(qtbot, window, results_folder) -> None:
    assert window.open_results_action in window.menuBar().actions()[0].menu().actions()
    window.open_path(results_folder)
    qtbot.waitUntil(lambda: window.results_page.result is not None and not window.project.is_busy(), timeout=30_000)
    result = window.results_page.result
    assert window.steps.currentRow() == RESULTS_STEP
    assert window.results_page.model_names() == [model.name for model in result.ranked()]
    assert all(window.steps.is_step_enabled(step) for step in (RESULTS_STEP, DOCUMENTS_STEP, PREDICT_STEP))
    assert window.predict_page.has_models() and window.predict_file_action.isEnabled()
    assert len(result.test_texts) == len(result.test_true) and all(result.test_texts)
    assert window.data_page.table_frame().shape[0] == 120
    assert window.data_page.mapping().category_column == "label"
    assert "results" in window.windowTitle() and "Bills on the cluster" in window.windowTitle()
    assert window.project.path is None and not window.project.dirty  # "Save project" asks where
    assert window.errors.history == []
    window.resize(1280, 860)
    save_screenshot(window, "results_folder_opened")


def test_a_folder_without_results_gets_a_plain_message(qtbot, window, results_folder) -> None:
    window.open_path(results_folder.parent)  # the study folder, not its results
    qtbot.waitUntil(lambda: bool(window.errors.history) and not window.project.is_busy(), timeout=30_000)
    report = window.errors.history[-1]
    assert "has no results.json" in report.message and "Choose the results folder" in report.hint
    assert window.results_page.result is None
