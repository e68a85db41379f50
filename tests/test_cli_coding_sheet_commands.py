"""``textlab coding-sheet`` / ``coding-import`` / ``agreement`` on a project coded by a team: a sheet
exported for a coder, filled in with openpyxl as in Excel, read back into the project (saved safely,
the old file kept, the coder's workbook untouched), and the team's agreement printed."""

from __future__ import annotations

import hashlib

import openpyxl
import pandas as pd
import pytest

from guiapp.cli.coding_import_command import backup_path
from guiapp.cli.entry import COMMANDS, main
from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.coding_sheet import CODING_SHEET
from guiapp.core.coding.team import Team
from guiapp.core.coding.team_assignment import TeamPlan, draw_assignment
from guiapp.core.project.format import Project
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec

CATEGORIES = ["Health", "Economy", "Other"]


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def project(tmp_path):
    """Twelve speeches, none coded in the file; Ann coded all of them in TextLab."""
    frame = pd.DataFrame({"speech": [f"speech {i} on {CATEGORIES[i % 3].lower()}" for i in range(12)],
                          "topic": [None] * 12})
    spec = ExperimentSpec(data=DataSpec(source="speeches.csv",
                                        mapping=ColumnMapping(text_columns=["speech"], category_column="topic")))
    project = Project(spec=spec, table=frame, codebook=Codebook([CodebookCategory(name) for name in CATEGORIES]))
    for row in range(12):
        project.codings.record(row, CATEGORIES[row % 3], coder="Ann", chosen_by="in order")
    return save_project(tmp_path / "study.textlab", project)


def _fill_all(path, wrong_every: int = 5) -> None:
    workbook = openpyxl.load_workbook(path)
    sheet = workbook[CODING_SHEET]
    columns = {cell.value: cell.column for cell in sheet[1]}
    for row in range(2, sheet.max_row + 1):
        number = int(sheet.cell(row, columns["Key"]).value.split(":")[1])
        category = CATEGORIES[(number + (number % wrong_every == 0)) % 3]
        sheet.cell(row, columns["Category"]).value = category
    workbook.save(path)


def test_the_commands_are_in_the_table():
    assert {"coding-sheet", "coding-import", "agreement"} <= set(COMMANDS)


def test_export_fill_import_and_the_teams_agreement(project, tmp_path, capsys):
    sheet = tmp_path / "bo.xlsx"
    # every text is coded by Ann, so without a draw there is nothing left for Bo
    assert main(["coding-sheet", str(project), "--coder", "Bo", "--out", str(sheet)]) == 2
    assert "no texts left for Bo" in capsys.readouterr().err

    opened = open_project(project, extract_models_to=None)  # the researcher draws texts for a team
    team = Team(["Ann", "Bo"])
    team.assignment = draw_assignment(TeamPlan(("Ann", "Bo"), 10, overlap_share=1.0, seed=4), range(12))
    opened.codings.team = team
    save_project(project, opened)

    assert main(["coding-sheet", str(project), "--coder", "Bo", "--out", str(sheet)]) == 0
    printed = capsys.readouterr().out
    assert "10 texts of the table for Bo, drawn for them" in printed and f"Wrote {sheet}" in printed
    _fill_all(sheet)
    before_sheet, before_project = sha256(sheet), sha256(project)

    assert main(["coding-import", str(project), str(sheet)]) == 0
    printed = capsys.readouterr().out
    assert "Imported 10 new codings by Bo from bo.xlsx." in printed
    assert sha256(sheet) == before_sheet  # the coder's workbook is never changed
    assert sha256(backup_path(project)) == before_project  # the project as it was, kept beside it
    reopened = open_project(project, extract_models_to=None)
    bo = [entry for entry in reopened.codings.entries if entry.coder == "Bo"]
    assert len(bo) == 10 and all(entry.chosen_by == "assigned" and entry.probability for entry in bo)

    assert main(["coding-import", str(project), str(sheet)]) == 0
    assert "Nothing new" in capsys.readouterr().out
    assert len(open_project(project, extract_models_to=None).codings) == 22

    assert main(["agreement", str(project), "--samples", "50"]) == 0
    printed = capsys.readouterr().out
    assert "Agreement of the coding team (2 coders: Ann, Bo" in printed
    assert "Krippendorff's alpha:" in printed and "Cohen's kappa of each pair" in printed
    assert "The coders disagreed on" in printed


def test_problems_are_said_in_words_with_exit_status_2(project, tmp_path, capsys):
    assert main(["coding-sheet", str(project), "--coder", "Bo", "--out", str(tmp_path / "bo.csv")]) == 2
    assert "ends in .xlsx" in capsys.readouterr().err
    assert main(["coding-import", str(project), str(tmp_path / "missing.xlsx")]) == 2
    assert "no coding sheet at" in capsys.readouterr().err
    (tmp_path / "notes.xlsx").write_bytes(b"not a workbook")
    before = sha256(project)
    assert main(["coding-import", str(project), str(tmp_path / "notes.xlsx")]) == 2
    assert "not a workbook" in capsys.readouterr().err
    assert sha256(project) == before


def test_agreement_of_a_project_without_a_team_or_results_says_why(project, capsys):
    assert main(["agreement", str(project)]) == 2
    assert "no results yet" in capsys.readouterr().err


def test_a_team_that_has_coded_too_little_together_is_said_in_words(project, capsys):
    opened = open_project(project, extract_models_to=None)
    opened.codings.team = Team(["Ann", "Bo"])  # Bo has coded nothing yet
    save_project(project, opened)
    assert main(["agreement", str(project)]) == 2
    err = capsys.readouterr().err
    assert err.strip() and "Traceback" not in err
