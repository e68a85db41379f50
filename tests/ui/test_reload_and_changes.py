"""Reloading the data file, noticing that it changed on disk, and results that belong to their study."""

from __future__ import annotations

import dataclasses
import os

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from guiapp.ui.session import study_files as study_files_module
from guiapp.ui.main_window import DATA_STEP, DOCUMENTS_STEP, PREDICT_STEP, RESULTS_STEP
from tests.ui.helpers import save_screenshot, wait_for_report
from tests.ui.sample_results import sample_result

WORDS = "the council discussed the new budget for schools and roads in the city today".split()


def write_table(path, n_red=20, n_blue=20, n_green=0, columns=("id", "text", "label", "party", "region")) -> None:
    labels = ["Red"] * n_red + ["Blue"] * n_blue + ["Green"] * n_green
    frame = pd.DataFrame({
        "id": [f"doc{i:03d}" for i in range(len(labels))],
        "text": [" ".join(WORDS[(i + j) % len(WORDS)] for j in range(9 + i % 5)) + f" number {i}" for i in range(len(labels))],
        "label": labels,
        "party": ["left" if i % 2 else "right" for i in range(len(labels))],
        "region": ["north" if i % 3 else "south" for i in range(len(labels))],
    })
    frame[list(columns)].to_csv(path, index=False)


def replace_atomically(path, **table) -> None:
    """As editors save: write a new file next to it and rename it over the old one."""
    new = path.with_name(path.name + ".new")
    write_table(new, **table)
    os.replace(new, path)


@pytest.fixture
def opened(qtbot, window, tmp_path):
    path = tmp_path / "coded.csv"
    write_table(path)
    window.open_path(path)
    wait_for_report(qtbot, window)
    return window, path


def tick(check_list, name: str, on: bool = True) -> None:
    item = check_list.findItems(name, Qt.MatchFlag.MatchExactly)[0]
    item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)


def wait_for_new_report(qtbot, page, old) -> None:
    qtbot.waitUntil(lambda: page.report is not None and page.report is not old and not page.is_busy(), timeout=30_000)


def test_keep_for_later_lists_only_columns_without_another_role(qtbot, opened) -> None:
    window, _path = opened
    panel = window.data_page.mapping_panel
    mapping = panel.mapping()
    assert mapping.text_columns == ["text"] and mapping.category_column == "label" and mapping.id_column == "id"
    assert panel.metadata.shown() == ["party", "region"]  # not the text, the category or the ID column
    tick(panel.metadata, "party")
    assert panel.mapping().metadata_columns == ["party"]
    # "party" becomes the category column: it leaves "Keep for later" (and is no longer kept there)
    panel.category.setCurrentIndex(panel.category.findText("party"))
    assert panel.metadata.shown() == ["label", "region"]
    assert panel.mapping().metadata_columns == []
    old = window.data_page.report
    wait_for_new_report(qtbot, window.data_page, old)
    assert not window.data_page.mapping_message.isVisible()  # no "a column in two roles" complaint


def test_reload_keeps_the_roles_and_says_what_changed(qtbot, opened) -> None:
    window, path = opened
    page = window.data_page
    tick(page.mapping_panel.metadata, "party")
    tick(page.mapping_panel.metadata, "region")
    old = page.report
    wait_for_new_report(qtbot, page, old)
    assert page.reload_button.isEnabled()

    write_table(path, n_green=5, columns=("id", "text", "label", "party"))  # 5 rows, a new category, no region
    old = page.report
    qtbot.mouseClick(page.reload_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.changes_label.isVisible(), timeout=30_000)
    wait_for_new_report(qtbot, page, old)
    mapping = page.mapping()
    assert (mapping.text_columns, mapping.category_column, mapping.id_column) == (["text"], "label", "id")
    assert mapping.metadata_columns == ["party"]
    text = page.changes_label.text()
    assert text.startswith("Read coded.csv again: 40 → 45 rows (5 added); new category “Green”")
    assert "column “region” is gone, so it is no longer kept for later" in text
    assert {c.label for c in page.report.categories} == {"Red", "Blue", "Green"}
    assert "45 rows" in page.file_details.text()


def test_a_file_changed_on_disk_shows_a_banner_and_never_reloads_by_itself(qtbot, opened) -> None:
    window, path = opened
    page = window.data_page
    assert not page.disk_banner.isVisible()
    replace_atomically(path, n_red=25)
    qtbot.waitUntil(lambda: page.disk_banner.isVisible(), timeout=10_000)  # the watcher noticed
    assert "The file changed on disk" in page.disk_label.text()
    assert len(page.table.frame) == 40  # not read again by itself

    qtbot.mouseClick(page.banner_keep, Qt.MouseButton.LeftButton)
    assert not page.disk_banner.isVisible()
    assert not page.check_file_on_disk()  # the kept version is not reported again…
    replace_atomically(path, n_red=30)  # …until the file changes again (the watch was set again)
    qtbot.waitUntil(lambda: page.disk_banner.isVisible(), timeout=10_000)

    save_screenshot(window, "data_step_file_changed_on_disk")
    qtbot.mouseClick(page.banner_reload, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.changes_label.isVisible() and not page.is_busy(), timeout=30_000)
    assert not page.disk_banner.isVisible()
    assert len(page.table.frame) == 50
    assert "40 → 50 rows (10 added)" in page.changes_label.text()
    save_screenshot(window, "data_step_reloaded")


def test_window_activation_checks_the_file(qtbot, opened) -> None:
    window, path = opened
    page = window.data_page
    page.watcher.removePaths(page.watcher.files())  # as if the watcher had missed it
    write_table(path, n_blue=22)
    assert page.check_file_on_disk()  # what the window does when it is activated again
    assert page.disk_banner.isVisible()


def _result_for(window, name="Party manifestos 2021"):
    table = window.data_page.table
    result = sample_result(name=name)
    result.spec["data"].update(source=str(table.path), sha256=table.sha256, rows=len(table.frame))
    return result


def test_results_name_their_study_and_are_cleared_by_another_data_file(qtbot, opened, tmp_path) -> None:
    window, path = opened
    window.session.set_result(_result_for(window), {})
    window.go_to_step(RESULTS_STEP)
    page = window.results_page
    assert page.study_label.text() == "Study “Party manifestos 2021”  ·  coded.csv (40 rows)  ·  run on 2 May 2024 10:21"
    assert page.data_note() == ""
    save_screenshot(page, "results_study_line")

    # The same file read again after it changed: the results stay, labelled as from the earlier version.
    write_table(path, n_red=24)
    window.go_to_step(DATA_STEP)
    qtbot.mouseClick(window.data_page.reload_button, Qt.MouseButton.LeftButton)
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.data_page.changes_label.isVisible())
    assert window.steps.is_step_enabled(RESULTS_STEP)
    assert page.data_note() == ("These results were computed on an earlier version of coded.csv (40 rows); the file "
                                "now has 44 rows. Run the study again to include the changes.")
    window.go_to_step(RESULTS_STEP)
    save_screenshot(page, "results_from_an_earlier_version")

    # Another data file: the results of the previous study go, the steps go back to their empty states.
    other = tmp_path / "other.csv"
    write_table(other, n_red=10)
    window.open_path(other)
    wait_for_report(qtbot, window)
    qtbot.waitUntil(lambda: window.data_page.table.path == other)
    assert page.result is None and page.stack.currentWidget() is page.empty
    assert window.documents_page.result is None
    assert window.predict_page.result is None
    assert not any(window.steps.is_step_enabled(step) for step in (RESULTS_STEP, DOCUMENTS_STEP, PREDICT_STEP))


def test_opening_the_same_file_again_keeps_its_results(qtbot, opened) -> None:
    window, path = opened
    window.session.set_result(_result_for(window), {})
    window.open_path(path)
    wait_for_report(qtbot, window)
    assert window.results_page.result is not None and window.steps.is_step_enabled(RESULTS_STEP)


def _save_study(window, path) -> object:
    spec = window.study_spec()
    spec.name = "Council study"
    spec.save(path)
    return spec


def test_opening_a_study_whose_file_changed_says_what_changed(qtbot, opened, tmp_path, monkeypatch) -> None:
    window, path = opened
    study = tmp_path / "council.textlab.toml"
    spec = _save_study(window, study)
    assert spec.data.rows == 40 and spec.data.categories == ["Blue", "Red"]
    window.session.set_result(_result_for(window, name="Another study"), {})

    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(study_files_module, "show_data_changed", lambda parent, title, text: shown.append((title, text)))
    write_table(path, n_red=21, n_blue=0, n_green=10)
    window.open_study(study)
    assert window.results_page.result is None  # the results of another study are gone at once
    qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
    assert shown == [("The study's data file changed",
                      "coded.csv changed since this study was saved: 40 → 31 rows (9 removed); new category “Green”; "
                      "category “Blue” no longer in the file. The study will use the file as it is now.")]


def test_a_study_without_recorded_counts_still_says_the_file_changed(qtbot, opened, tmp_path, monkeypatch) -> None:
    window, path = opened
    study = tmp_path / "old.json"
    spec = window.study_spec()
    spec.data = dataclasses.replace(spec.data, rows=None, categories=None)
    spec.save(study)
    shown: list[str] = []
    monkeypatch.setattr(study_files_module, "show_data_changed", lambda parent, title, text: shown.append(text))
    write_table(path, n_red=22)
    window.open_study(study)
    qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
    assert shown == ["coded.csv changed since this study was saved (its contents differ; it now has 42 rows). "
                     "The study will use the file as it is now."]


def test_opening_an_unchanged_study_says_nothing(qtbot, opened, tmp_path, monkeypatch) -> None:
    window, _path = opened
    study = tmp_path / "same.toml"
    _save_study(window, study)
    shown: list[str] = []
    monkeypatch.setattr(study_files_module, "show_data_changed", lambda *args: shown.append(args))
    window.open_study(study)
    qtbot.waitUntil(lambda: window.data_page.report is not None and not window.data_page.is_busy(), timeout=30_000)
    qtbot.wait(50)
    assert shown == [] and window.files._study_check is None
