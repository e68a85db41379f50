"""``textlab package`` and ``textlab verify`` end to end: a project written to a package (with its
PDFs printed by Qt without a window), checked (exit 0), tampered with (exit 1, each problem named),
and something that is not a package (exit 2, a message, no traceback)."""

from __future__ import annotations

import importlib.util
import json
import zipfile

import pytest

from guiapp.cli.entry import main
from guiapp.core.project.opening import open_project
from tests.core.replication.test_package import saved_study


@pytest.fixture(scope="module")
def project_file(tmp_path_factory):
    return saved_study(tmp_path_factory.mktemp("study"))


def test_a_package_written_on_the_command_line_verifies_and_a_tampered_one_does_not(project_file, tmp_path, capsys):
    out = tmp_path / "package"
    assert main(["package", str(project_file), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"Wrote the replication package {out}" in printed and "textlab verify ." in printed
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["data"]["included"] and "data/table.parquet" in manifest["files"]
    if importlib.util.find_spec("PySide6") is not None:  # Qt is installed: the appendix is printed, too
        assert "No PDFs" not in printed
        assert (out / "results" / "methods-appendix.pdf").read_bytes().startswith(b"%PDF")
        assert "results/methods-appendix.pdf" in manifest["files"]

    assert main(["verify", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "OK: all" in printed and "Bills by topic" in printed

    model_file = next(name for name in manifest["files"] if name.startswith("models/"))
    (out / model_file).write_bytes(b"not the trained model")
    (out / "study.toml").unlink()
    assert main(["verify", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "2 problems found" in printed
    assert f"{model_file} was changed" in printed and "study.toml is missing" in printed


def test_a_zip_without_texts_from_the_command_line_verifies(project_file, tmp_path, capsys):
    assert main(["package", str(project_file), "--out", str(tmp_path / "shared"), "--zip", "--no-texts"]) == 0
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "shared.zip")]) == 0
    printed = capsys.readouterr().out
    assert "OK: all" in printed and "--data" in printed
    with zipfile.ZipFile(tmp_path / "shared.zip") as archive:
        names = archive.namelist()
        assert not [name for name in names if "/data/" in name]
        written = b"".join(archive.read(name) for name in names if not name.endswith(".parquet"))
    opened = open_project(project_file, extract_models_to=None)
    test_texts = opened.result.test_texts
    assert len(test_texts) == len(opened.result.test_rows) > 0
    assert not [text for text in test_texts if text.encode() in written]  # not in the results, nor the report card


def test_a_folder_that_is_not_a_package_gives_status_2_and_a_message(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["verify", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "not a replication package" in error and "Traceback" not in error
    assert main(["verify", str(tmp_path / "nowhere")]) == 2
    assert "There is no replication package" in capsys.readouterr().err


def test_packaging_into_a_folder_that_holds_files_is_refused(project_file, tmp_path, capsys):
    (tmp_path / "thesis.docx").write_text("mine")
    assert main(["package", str(project_file), "--out", str(tmp_path)]) == 2
    assert "already holds files" in capsys.readouterr().err
    assert [path.name for path in tmp_path.iterdir()] == ["thesis.docx"]
