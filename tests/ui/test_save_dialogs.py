"""Save dialogs propose a name of their own (never the data file's), remember the folder the user
last saved to across every export dialog, and refuse in words to write over the data file."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from guiapp.ui.steps.results.results_export import ResultsExport
from guiapp.ui.common.save_dialogs import (
    EXPORT_FOLDER_KEY,
    ask_save_path,
    proposed_name,
    safe_file_name,
    with_ending,
)
from tests.ui.sample_results import sample_result


class Dialog:
    """Stands in for QFileDialog.getSaveFileName: records where it opened, answers from a list."""

    def __init__(self, *answers: tuple[str, str]) -> None:
        self.answers = list(answers)
        self.opened: list[tuple[str, str]] = []  # (title, proposed path)

    def __call__(self, parent, title, proposal, filters):
        self.opened.append((title, proposal))
        return self.answers.pop(0)


@pytest.fixture
def data_file(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "debates.2016.xlsx"
    path.write_bytes(b"the researcher's data")
    return path


@pytest.fixture
def warnings(monkeypatch):
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: said.append(text)))
    return said


def test_the_proposed_name_names_the_data_but_is_never_its_file():
    assert proposed_name("/home/me/debates.2016.xlsx", "TextLab results", ".xlsx") == "debates – TextLab results.xlsx"
    assert proposed_name(None, "TextLab results", ".xlsx") == "TextLab results.xlsx"
    assert safe_file_name('a/b:c*?"d') == "a-b-c-d"
    filters = "Excel workbook (*.xlsx);;CSV, comma-separated (*.csv)"
    assert with_ending(Path("/x/out"), filters, "CSV, comma-separated (*.csv)") == Path("/x/out.csv")
    assert with_ending(Path("/x/out.v2"), filters, "") == Path("/x/out.v2.xlsx")
    assert with_ending(Path("/x/out.CSV"), filters, "Excel workbook (*.xlsx)") == Path("/x/out.CSV")


def test_first_opens_beside_the_data_then_where_the_user_last_saved(qtbot, isolated_settings, tmp_path, data_file,
                                                                      monkeypatch):
    chosen = tmp_path / "exports"
    chosen.mkdir()
    dialog = Dialog((str(chosen / "mine"), "Excel workbook (*.xlsx)"), (str(chosen / "notes.html"), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    path, _ = ask_save_path(None, "Export", "debates – TextLab results.xlsx", "Excel workbook (*.xlsx)",
                            protected=[data_file])
    assert dialog.opened[0][1] == str(data_file.parent / "debates – TextLab results.xlsx")
    assert path == chosen / "mine.xlsx"  # the ending of the chosen type added
    assert QSettings().value(EXPORT_FOLDER_KEY) == str(chosen)  # kept for the next session
    ask_save_path(None, "Appendix", "debates – TextLab methods.html", "Web page (*.html)", protected=[data_file])
    assert dialog.opened[1][1] == str(chosen / "debates – TextLab methods.html")


def test_the_data_file_is_refused_in_words_and_the_dialog_asks_again(qtbot, isolated_settings, tmp_path, data_file,
                                                                        monkeypatch, warnings):
    dialog = Dialog((str(data_file.with_name("debates.2016")), "Excel workbook (*.xlsx)"),  # + .xlsx: the data
                    ("", ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    assert ask_save_path(None, "Export", "x.xlsx", "Excel workbook (*.xlsx)", protected=[data_file]) == (None, "")
    assert len(warnings) == 1 and "debates.2016.xlsx is the file your texts come from" in warnings[0]
    assert "Choose another file name" in warnings[0]
    assert len(dialog.opened) == 2 and dialog.opened[1][1] == str(data_file.parent / "x.xlsx")
    assert data_file.read_bytes() == b"the researcher's data"
    assert QSettings().value(EXPORT_FOLDER_KEY) is None  # nothing was saved, nothing remembered


def test_every_results_export_dialog_proposes_its_name_and_shares_the_folder(qtbot, isolated_settings, tmp_path,
                                                                             data_file, monkeypatch):
    from guiapp.ui.steps.data.charts import CategoryBarChart

    result = sample_result()
    result.spec["data"]["source"] = str(data_file)
    export = ResultsExport()
    qtbot.addWidget(export)
    export.set_result(result)
    chosen = tmp_path / "paper"
    chosen.mkdir()
    dialog = Dialog((str(chosen / "results.xlsx"), ""), ("", ""), ("", ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    written = []
    monkeypatch.setattr(export, "export_excel", written.append)
    export.excel_button.click()
    assert written == [chosen / "results.xlsx"]
    assert dialog.opened[0] == ("Export the results to Excel", str(data_file.parent / "debates – TextLab results.xlsx"))
    export.appendix_button.click()
    assert dialog.opened[1] == ("Save the methods appendix", str(chosen / "debates – TextLab methods.html"))
    chart = CategoryBarChart()
    qtbot.addWidget(chart)
    assert chart.save_with_dialog() is None
    assert Path(dialog.opened[2][1]).parent == chosen  # charts open in the same remembered folder


def test_the_project_and_study_dialogs_use_the_remembered_folder_and_a_name_of_their_own(qtbot, window, tmp_path,
                                                                                         monkeypatch):
    from tests.ui.helpers import wait_for_report

    window.open_example()
    wait_for_report(qtbot, window)
    chosen = tmp_path / "projects"
    chosen.mkdir()
    QSettings().setValue(EXPORT_FOLDER_KEY, str(chosen))
    dialog = Dialog((str(chosen / "bills"), "TextLab projects (*.textlab)"), (str(chosen / "bills"), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    saved = []
    monkeypatch.setattr(window.project, "save", saved.append)
    window.files.save_project_as()
    assert dialog.opened[0] == ("Save the project", str(chosen / "us_congress_bills.textlab"))
    assert saved == [chosen / "bills.textlab"]
    window.save_spec_action.trigger()
    assert dialog.opened[1] == ("Save study", str(chosen / "us_congress_bills.textlab.toml"))
    assert (chosen / "bills.toml").is_file()  # "Study files (*.toml *.json)": the first ending added
