"""``textlab coding-export PROJECT --out FILE``: the texts coded in TextLab, written as xlsx or CSV by
the file's ending; a problem is said in words with exit status 2, and the spreadsheet is never touched."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from guiapp.cli.entry import COMMANDS, main
from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.project.format import Project
from guiapp.core.project.saving import save_project
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.tables.reader import read_table


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def study(tmp_path):
    """A spreadsheet of 6 speeches beside a project in which two were coded and one changed."""
    source = tmp_path / "speeches.xlsx"
    pd.DataFrame({"speech": [f"speech {i}" for i in range(6)],
                  "topic": ["econ", None, "health", None, None, None]}).to_excel(source, index=False)
    loaded = read_table(source)
    spec = ExperimentSpec(data=DataSpec(source="speeches.xlsx", mapping=ColumnMapping(text_columns=["speech"],
                                                                                        category_column="topic")))
    project = Project(spec=spec, table=loaded.frame, source_sha256=loaded.sha256, source_name=source.name,
                      codebook=Codebook([CodebookCategory("econ", "Economy")]))
    project.codings.record(1, "econ", coder="Ann", chosen_by="random", probability=0.2)
    project.codings.record(2, "econ", coder="Ann", chosen_by="review", file_category="health", flag="unsure")
    project.codings.record(4, None, coder="Ann", chosen_by="in order")
    path = save_project(tmp_path / "study.textlab", project)
    return tmp_path, path, source


def test_the_command_is_in_the_table():
    assert "coding-export" in COMMANDS


@pytest.mark.parametrize("ending", [".xlsx", ".csv"])
def test_the_codings_are_written_by_the_files_ending(study, capsys, ending):
    folder, project, source = study
    before = sha256(source)
    out = folder / f"codings{ending}"
    assert main(["coding-export", str(project), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "2 texts coded in TextLab by Ann" in printed and "1 changed" in printed and "1 skipped" in printed
    assert f"Wrote {out}" in printed
    saved = (pd.read_excel(out, sheet_name=0, engine="calamine") if ending == ".xlsx"
             else pd.read_csv(out, encoding="utf-8-sig"))
    assert saved.columns[:3].tolist() == ["Row in your spreadsheet", "speech", "topic"]
    assert saved["Coding"].fillna("").tolist() == ["econ", "econ", "econ", "", "", ""]
    assert saved["Previous coding"].fillna("").tolist() == ["", "", "health", "", "", ""]
    assert sha256(source) == before


def test_only_coded_texts(study, capsys):
    folder, project, _ = study
    out = folder / "only.csv"
    assert main(["coding-export", str(project), "--out", str(out), "--only-coded"]) == 0
    assert pd.read_csv(out, encoding="utf-8-sig")["Row in your spreadsheet"].tolist() == [3, 4]


def test_the_spreadsheet_the_texts_came_from_is_never_written(study, capsys):
    _, project, source = study
    before = sha256(source)
    assert main(["coding-export", str(project), "--out", str(source), "--overwrite"]) == 2
    assert "never changes it" in capsys.readouterr().err
    assert sha256(source) == before


@pytest.mark.parametrize(("name", "words"), [
    ("codings.docx", "cannot tell which kind of file"),
    ("codings.xlsx", "already exists"),
])
def test_problems_are_said_in_words(study, capsys, name, words):
    folder, project, _ = study
    (folder / "codings.xlsx").write_bytes(b"mine")
    assert main(["coding-export", str(project), "--out", str(folder / name)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert (folder / "codings.xlsx").read_bytes() == b"mine"


def test_a_project_without_codings_or_a_missing_one_is_explained(tmp_path, capsys):
    source = tmp_path / "t.csv"
    source.write_text("speech,topic\na,x\n", encoding="utf-8")
    spec = ExperimentSpec(data=DataSpec(source="t.csv", mapping=ColumnMapping(text_columns=["speech"],
                                                                                category_column="topic")))
    empty = save_project(tmp_path / "empty.textlab", Project(spec=spec, table=read_table(source).frame))
    assert main(["coding-export", str(empty), "--out", str(tmp_path / "c.csv")]) == 2
    assert "holds no codings" in capsys.readouterr().err
    assert main(["coding-export", str(tmp_path / "nowhere.textlab"), "--out", str(tmp_path / "c.csv")]) == 2
    assert "no project file" in capsys.readouterr().err
    assert not (tmp_path / "c.csv").exists()
