"""Writing a replication package from a real (small) study, and checking it: every hash in the
manifest matches, the texts stay out when they may not be shared, a zip holds the same, and
``verify_package`` finds a changed model file, a removed file and a changed README."""

from __future__ import annotations

import json
import shutil
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import UserError
from guiapp.core.project.format import Project, model_folders_of
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from guiapp.core.replication.manifest import MANIFEST, data_fingerprint, read_manifest, sha256_file
from guiapp.core.replication.package import write_package
from guiapp.core.replication.reviewer_readme import named_files
from guiapp.core.replication.verify import verify_package
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts


def _no_card(project, folder):  # noqa: ANN001, ANN202 — the report card is tested on its own
    return []


def saved_study(folder) -> Path:  # noqa: ANN001
    """A finished study of one bag-of-words SVM on 120 texts, saved as ``folder/bills.textlab``."""
    from guiapp.core.experiment.run.runner import run_experiment

    table = coded_texts(120).assign(year=np.arange(120) % 7 + 2000)
    spec = ExperimentSpec(
        data=DataSpec(source="bills.csv", mapping=ColumnMapping(text_columns=["text"], category_column="label",
                                                                metadata_columns=["year"])),
        evaluation=EvaluationSpec(folds=2, combine=False),
        models=[ModelSpec("bow", "svm", grid={"C": [1.0]})],
        name="Bills by topic",
        seed=7,
    )
    result = run_experiment(spec, table=table, n_jobs=1, artefacts_dir=folder / "models")
    built = Project(spec=spec, table=table, result=result, model_folders=model_folders_of(result),
                    source_sha256="ab" * 32, source_name="bills.csv")
    return save_project(folder / "bills.textlab", built)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Project:
    """The small study, saved and reopened as a project (what a package is written from)."""
    folder = tmp_path_factory.mktemp("study")
    return open_project(saved_study(folder), extract_models_to=folder / "opened")


def test_a_package_holds_the_contract_layout_and_every_hash_matches(project, tmp_path):
    package = write_package(project, tmp_path / "package", report_card=_no_card)
    manifest = read_manifest(package)
    for name in ("README.md", "study.toml", "data/table.parquet", "results/results.json", "results/predictions.csv",
                 "results/results.xlsx", "results/methods-appendix.html", "environment/environment.json",
                 "environment/requirements.txt"):
        assert name in manifest["files"], name
    for relative, entry in manifest["files"].items():
        assert sha256_file(package / relative) == entry["sha256"]
        assert (package / relative).stat().st_size == entry["size"]
    on_disk = {path.relative_to(package).as_posix() for path in package.rglob("*") if path.is_file()}
    assert on_disk == set(manifest["files"]) | {MANIFEST}

    assert manifest["seed"] == 7 and manifest["study_name"] == "Bills by topic"
    table = manifest["data"]["table"]
    assert manifest["data"]["included"] and table["file"] == "data/table.parquet"
    assert table["rows"] == 120 and table["sha256"] == data_fingerprint(project.table)
    assert data_fingerprint(pd.read_parquet(package / "data/table.parquet")) == table["sha256"]
    assert {c["name"]: c["role"] for c in table["columns"]} == {"text": "text", "label": "category", "year": "group"}
    [(name, model)] = manifest["models"].items()
    assert name == project.result.models[0].name
    for relative, sha in model["files"].items():
        assert manifest["files"][f"{model['folder']}/{relative}"]["sha256"] == sha
        assert sha == sha256_file(project.model_folder(name) / relative)
    assert manifest["results"][name]["macro_f1"] == pytest.approx(project.result.models[0].test.macro_f1)
    assert manifest["results"][name]["test_rows"] == len(project.result.test_true)

    study = tomllib.loads((package / "study.toml").read_text(encoding="utf-8"))
    assert study["data"]["source"] == "data/table.parquet" and study["seed"] == 7
    assert study["data"]["sha256"] == sha256_file(package / "data/table.parquet")
    assert ExperimentSpec.load(package / "study.toml").models[0].classifier == "svm"

    environment = json.loads((package / "environment/environment.json").read_text(encoding="utf-8"))
    assert environment["distributions"]["pandas"] == pd.__version__
    requirements = (package / "environment/requirements.txt").read_text(encoding="utf-8").splitlines()
    assert f"pandas=={pd.__version__}" in requirements
    assert not [line for line in requirements if line.lower().startswith("textlab==")]  # TextLab is not on the list
    assert environment["textlab"] and environment["python"] and environment["processor"]

    readme = (package / "README.md").read_text(encoding="utf-8")
    assert "textlab verify ." in readme and "textlab replicate . --out rerun" in readme
    assert all((package / name.rstrip("/")).exists() for name in named_files(readme))
    assert "no report card" not in readme
    assert verify_package(package).ok


def test_without_the_texts_the_package_holds_no_data_only_its_fingerprint(project, tmp_path):
    package = write_package(project, tmp_path / "package", share_texts=False, report_card=_no_card)
    manifest = read_manifest(package)
    assert not (package / "data").exists()
    assert not any(name.startswith("data/") for name in manifest["files"])
    data = manifest["data"]
    assert data["included"] is False and data["table"]["file"] is None
    assert data["table"]["sha256"] == data_fingerprint(project.table) and data["table"]["rows"] == 120
    assert data["table"]["source_sha256"] == "ab" * 32
    some_text = project.table["text"].iloc[project.result.test_rows[0] - 2]
    for name in ("results/results.json", "results/predictions.csv", "results/methods-appendix.html"):
        assert some_text not in (package / name).read_text(encoding="utf-8-sig"), name
    with zipfile.ZipFile(package / "results" / "results.xlsx") as workbook:  # an Excel file is a zip of XML
        cells = b"".join(workbook.read(name) for name in workbook.namelist() if name.endswith(".xml"))
    assert some_text.encode() not in cells and b"Bills by topic" in cells
    readme = (package / "README.md").read_text(encoding="utf-8")
    assert data_fingerprint(project.table) in readme and "--data FILE" in readme and "120 rows" in readme
    report = verify_package(package)
    assert report.ok and "--data" in report.text()


def test_a_zipped_package_holds_one_top_folder_and_verifies(project, tmp_path):
    written = write_package(project, tmp_path / "bills-package", as_zip=True, report_card=_no_card)
    assert written == tmp_path / "bills-package.zip" and written.is_file()
    with zipfile.ZipFile(written) as archive:
        names = archive.namelist()
    assert {name.split("/")[0] for name in names} == {"bills-package"}
    assert "bills-package/manifest.json" in names
    assert verify_package(written).ok
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]  # nothing left half-written


def test_a_changed_model_file_a_removed_file_and_a_changed_readme_are_reported(project, tmp_path):
    package = write_package(project, tmp_path / "package", report_card=_no_card)
    manifest = read_manifest(package)
    model_file = next(name for name in manifest["files"] if name.startswith("models/"))
    with open(package / model_file, "ab") as handle:
        handle.write(b"\0")
    (package / "results/predictions.csv").unlink()
    readme = package / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nSee also `results/extra-table.csv`.\n", encoding="utf-8")

    report = verify_package(package)
    assert not report.ok
    text = report.text()
    assert f"{model_file} was changed" in text
    assert "results/predictions.csv is missing" in text
    assert "README.md was changed" in text
    assert "README.md names results/extra-table.csv, which is not in the package" in text
    assert len(report.problems) == 4


def test_a_folder_that_holds_files_is_not_written_over_unless_it_is_an_earlier_package(project, tmp_path):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "thesis.docx").write_text("my thesis")
    with pytest.raises(UserError, match="already holds files"):
        write_package(project, taken, report_card=_no_card)
    with pytest.raises(UserError, match="not a replication package"):
        write_package(project, taken, report_card=_no_card, replace=True)
    assert (taken / "thesis.docx").read_text() == "my thesis"
    assert [path.name for path in tmp_path.iterdir()] == ["taken"]  # no half-written package beside it

    earlier = write_package(project, tmp_path / "package", report_card=_no_card)
    (earlier / "leftover.txt").write_text("old")
    again = write_package(project, earlier, report_card=_no_card, replace=True)
    assert again == earlier and not (earlier / "leftover.txt").exists() and verify_package(earlier).ok


def test_a_project_without_a_finished_study_cannot_be_packaged(project, tmp_path):
    unrun = Project(spec=project.spec, table=project.table)
    with pytest.raises(UserError, match="no finished study"):
        write_package(unrun, tmp_path / "package")


def test_the_report_card_is_written_into_its_folder_and_a_failing_one_is_noted(project, tmp_path):
    def card(project, folder):  # noqa: ANN001, ANN202
        path = folder / "report-card.html"
        path.write_text("<h1>Report card</h1>", encoding="utf-8")
        return [path]

    package = write_package(project, tmp_path / "with-card", report_card=card)
    assert "report-card/report-card.html" in read_manifest(package)["files"]

    def failing(project, folder):  # noqa: ANN001, ANN202
        raise UserError("The recommended model has no test scores.", "Run the study again.")

    package = write_package(project, tmp_path / "without-card", report_card=failing)
    assert not (package / "report-card").exists()
    assert "The report card could not be written" in (package / "README.md").read_text(encoding="utf-8")
    assert verify_package(package).ok


def test_pdfs_are_printed_with_the_printer_given(project, tmp_path):
    printed = []

    def printer(html, path):  # noqa: ANN001, ANN202
        printed.append(path.name)
        path.write_bytes(b"%PDF-1.4 " + html[:20].encode())
        return path

    package = write_package(project, tmp_path / "package", report_card=_no_card, pdf_printer=printer)
    assert printed == ["methods-appendix.pdf"]
    assert "results/methods-appendix.pdf" in read_manifest(package)["files"]
    shutil.rmtree(package)


def test_the_codebook_and_the_codings_with_their_coders_travel_in_the_package(project, tmp_path):
    import dataclasses

    from guiapp.core.coding.codebook import Codebook, CodebookCategory
    from guiapp.core.coding.codings import CodingLog

    codings = CodingLog()
    first_label = str(project.table["label"].iloc[0])
    codings.record(0, first_label, coder="Ana", chosen_by="random")
    codings.record(1, first_label, coder="Ben", chosen_by="random")
    coded = dataclasses.replace(project, codebook=Codebook([CodebookCategory(first_label, "Texts about it")]),
                                codings=codings)
    package = write_package(coded, tmp_path / "package", report_card=_no_card)
    assert Codebook.from_dict(json.loads((package / "codebook.json").read_text(encoding="utf-8"))).names() == [first_label]
    reread = CodingLog.from_dict(json.loads((package / "codings.json").read_text(encoding="utf-8")))
    assert len(reread) == 2 and {entry.coder for entry in reread.entries} == {"Ana", "Ben"}
    readme = (package / "README.md").read_text(encoding="utf-8")
    assert "`codebook.json`" in readme and "`codings.json`" in readme
    assert verify_package(package).ok
    assert not (tmp_path / "plain").exists()
    plain = write_package(project, tmp_path / "plain", report_card=_no_card)
    assert not (plain / "codebook.json").exists() and not (plain / "codings.json").exists()


def test_a_readme_without_the_texts_says_what_to_obtain_for_both_tables():
    from guiapp.core.replication.reviewer_readme import duration_words, reviewer_readme

    described = {"file": None, "source_name": "train.csv", "source_sha256": "cd" * 32, "sha256": "ef" * 32,
                 "rows": 600, "columns": [{"name": "text", "dtype": "text", "role": "text"},
                                          {"name": "party", "dtype": "text", "role": "unused"}]}
    manifest = {"study_name": "Bills", "textlab_version": "0.1.0", "created": "2026-12-08T03:00:00+00:00",
                "run_seconds": 192.4, "data": {"included": False, "table": described,
                                               "test_table": {**described, "rows": 200, "source_name": "test.csv"}}}
    readme = reviewer_readme(manifest, ["README.md", "manifest.json", "study.toml"])
    assert "3 minutes 12 seconds" in readme and "“train.csv”" in readme
    assert "--data FILE --test-data TEST_FILE" in readme and "ef" * 32 in readme and "cd" * 32 in readme
    assert "600 rows" in readme and "200 rows" in readme and "“party” (text)" in readme
    assert named_files(readme) == ["environment/requirements.txt", "README.md", "manifest.json", "study.toml"]
    assert duration_words(0.4) == "less than a second" and duration_words(3725) == "1 hour 2 minutes"


def test_a_rerun_inside_the_package_and_a_file_managers_files_are_not_problems(project, tmp_path):
    package = write_package(project, tmp_path / "package", report_card=_no_card)
    rerun = package / "rerun"
    (rerun / "models").mkdir(parents=True)
    (rerun / "results.json").write_text("{}")
    (rerun / "predictions.csv").write_text("row\n")
    (package / ".DS_Store").write_bytes(b"\0")
    (package / "results" / "Thumbs.db").write_bytes(b"\0")
    report = verify_package(package)
    assert report.ok, report.problems
    assert report.reruns == ["rerun"] and "rerun/" in report.text()
    (package / "results" / "added.csv").write_text("x\n")
    assert verify_package(package).problems == [
        "results/added.csv is not listed in the manifest (it was added after the package was written)."]


def test_the_findings_are_in_the_package_and_in_its_methods_appendix(project, tmp_path):
    import dataclasses

    from guiapp.core.findings.from_study import findings_inputs
    from guiapp.core.findings.kept_findings import KeptFindings
    from guiapp.core.predict.new_texts import open_models, predict_new_texts

    corpus = coded_texts(60, seed=3).drop(columns="label").assign(year=np.arange(60) % 3 + 2000)
    name = project.result.models[0].name
    found = predict_new_texts(open_models([(name, project.model_folder(name))]), corpus["text"].tolist(),
                              coded_texts=project.result.test_texts)
    findings = findings_inputs(project.result, name, found, corpus, project.table).estimate()
    with_findings = dataclasses.replace(project, findings=KeptFindings(findings, {"source": "predicted", "model": name}))
    package = write_package(with_findings, tmp_path / "package", report_card=_no_card)
    assert "results/findings.xlsx" in read_manifest(package)["files"]
    with zipfile.ZipFile(package / "results" / "findings.xlsx") as workbook:  # an Excel file is a zip
        assert any("sheet" in name for name in workbook.namelist())
    appendix = (package / "results" / "methods-appendix.html").read_text(encoding="utf-8")
    assert findings.methods_paragraph()[:60] in appendix
    assert "`results/findings.xlsx`" in (package / "README.md").read_text(encoding="utf-8")
