"""One-click category fixes in the data-health view: the button applies the fix, the check runs
again, the study records it, the Models step shows it, and Undo takes it back."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton

from tests.ui.helpers import save_screenshot, wait_for_report


def _statements(path):
    labels = ["Republican"] * 40 + ["Democratic"] * 40 + ["Democratic "] * 2
    vocab = {"Republican": "tax border freedom", "Democratic": "health climate union"}
    texts = [f"{vocab[label.strip()]} statement number {i}" for i, label in enumerate(labels)]
    texts[3] = texts[2]  # one repeated text: the key figure and the finding say the same
    pd.DataFrame({"text": texts, "party": labels}).to_csv(path, index=False)
    return path


def _fix_button(view, words: str) -> QPushButton:
    buttons = [button for button in view.fix_buttons() if words in button.text()]
    assert buttons, [button.text() for button in view.fix_buttons()]
    return buttons[0]


def _wait_for_new_report(qtbot, window, old):
    qtbot.waitUntil(lambda: window.data_page.report is not None and window.data_page.report is not old
                    and not window.data_page.is_busy(), timeout=60_000)
    return window.data_page.report


def test_merge_button_fixes_the_data_records_it_shows_it_and_undo_takes_it_back(qtbot, window, tmp_path):
    window.open_path(_statements(tmp_path / "statements.csv"))
    report = wait_for_report(qtbot, window)
    view = window.data_page.health_view
    assert report.verdict == "not_ready"
    assert "“Democratic␣” has fewer than 5 coded training texts" in view.issue_titles()
    # one definition of duplicates: the tile and the finding agree
    assert view.figures()["duplicates"] == "1" and "1 row repeats the text of another row" in view.issue_titles()

    button = _fix_button(view, "Merge “Democratic␣” into “Democratic”")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    fixed = _wait_for_new_report(qtbot, window, report)
    assert fixed.verdict != "not_ready"
    assert [c.label for c in fixed.categories] == ["Democratic", "Republican"]
    applied = view.findChild(QLabel, "applied_fixes_text")
    assert applied.isVisible() and "“Democratic␣” merged into “Democratic”" in applied.text()
    assert "spreadsheet is not changed" in applied.text()

    spec = window.study_spec()
    assert spec.data.category_fixes.merge == {"Democratic ": "Democratic"}
    models_line = window.models_page.data_label.text()
    assert "Category fixes applied: “Democratic␣” merged into “Democratic”" in models_line
    save_screenshot(view.content_widget(), "health_fixes")

    qtbot.mouseClick(view.findChild(QPushButton, "undo_fix_button"),
                     Qt.MouseButton.LeftButton)
    undone = _wait_for_new_report(qtbot, window, fixed)
    assert undone.verdict == "not_ready"
    assert not applied.isVisible()
    assert window.study_spec().data.category_fixes.is_empty()
    assert "Category fixes applied" not in window.models_page.data_label.text()


def test_before_a_fix_the_offer_is_shown(qtbot, window, tmp_path):
    window.open_path(_statements(tmp_path / "statements.csv"))
    wait_for_report(qtbot, window)
    view = window.data_page.health_view
    labels = [button.text() for button in view.fix_buttons()]
    assert "Leave out “Democratic␣”" in labels and "Merge “Democratic␣” into “Democratic”" in labels
    save_screenshot(view.content_widget(), "health_fix_offered")


def test_the_researchers_walk_from_a_slipped_category_to_predicted_uncoded_rows(qtbot, window, tmp_path):
    """A researcher's whole walk by clicks: a workbook with a trailing-space category and uncoded rows is
    opened, fixed in the app, run, read in Results, its uncoded rows predicted; the study file
    saved and opened again brings the fix back."""
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.study.spec import ExperimentSpec
    from guiapp.ui.main_window import MODELS_STEP, PREDICT_STEP, RESULTS_STEP

    path = tmp_path / "statements.xlsx"
    frame = pd.read_csv(_statements(tmp_path / "statements.csv"))
    frame.loc[len(frame)] = ["health climate union statement still to code", None]
    frame.loc[len(frame)] = ["tax border freedom statement still to code", None]
    frame.to_excel(path, index=False)
    window.open_path(path)
    report = wait_for_report(qtbot, window)
    assert report.verdict == "not_ready" and report.n_uncoded == 2
    qtbot.mouseClick(_fix_button(window.data_page.health_view, "Merge “Democratic␣” into “Democratic”"),
                     Qt.MouseButton.LeftButton)
    _wait_for_new_report(qtbot, window, report)
    qtbot.waitUntil(lambda: window.steps.is_step_enabled(MODELS_STEP))

    window.run_page.run_fn = lambda spec, on_event, **kwargs: run_experiment(spec, on_event, n_jobs=1, **kwargs)
    page = window.models_page
    page.choice.none_button.click()
    page.choice.checkbox("bow", "naive_bayes").click()
    page.run_button.click()
    qtbot.waitUntil(lambda: window.steps.currentRow() == RESULTS_STEP, timeout=60_000)
    qtbot.waitUntil(lambda: not window.run_page.is_busy())
    result = window.results_page.result
    assert result.categories == ["Democratic", "Republican"]
    assert result.spec["data"]["category_fixes"]["merge"] == {"Democratic ": "Democratic"}

    window.go_to_step(PREDICT_STEP)
    predict = window.predict_page
    assert "2 uncoded rows" in predict.source.own_button.text()
    predict.source.own_button.click()
    predict.predict()
    qtbot.waitUntil(lambda: predict.found is not None, timeout=30_000)
    qtbot.waitUntil(lambda: not predict.is_busy())
    labels = predict.found.predictions[0].labels()
    assert len(labels) == 2 and set(labels) <= {"Democratic", "Republican"}  # the merged categories only

    study = tmp_path / "statements.toml"
    window.study_spec().save(study)
    window.open_study(study)
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: not window.data_page.health_view.category_fixes().is_empty(), timeout=30_000)
    assert window.data_page.health_view.category_fixes().merge == {"Democratic ": "Democratic"}
    assert ExperimentSpec.load(study).data.category_fixes.merge == {"Democratic ": "Democratic"}
