"""Writing a replication package from a project: a folder (or the same folder zipped) with the study
file, the data (or only its fingerprint when the texts may not be shared), the codebook and codings,
the results and their exports, the trained models, the environment, a report card and a README for
the reviewer, and ``manifest.json`` with the SHA-256 of every file.

The package is built in a hidden folder beside its destination and moved into place whole, so it
appears complete or not at all; a folder that already holds files is never written over unless the
caller says so, and then only when it is an earlier replication package.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guiapp import __version__
from guiapp.core.atomic import write_bytes_atomic, write_text_atomic
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.replication.environment import describe_environment, requirements_text
from guiapp.core.replication.manifest import (
    FORMAT_NAME,
    FORMAT_VERSION,
    MANIFEST,
    README,
    column_description,
    data_fingerprint,
    sha256_file,
)
from guiapp.core.replication.reviewer_readme import reviewer_readme

if TYPE_CHECKING:
    import pandas as pd

    from guiapp.core.experiment.results.experiment_result import ExperimentResult
    from guiapp.core.project.format import Project

TABLE_FILE = "data/table.parquet"
TEST_TABLE_FILE = "data/test_table.parquet"
STUDY_FILE = "study.toml"
PdfPrinter = Callable[[str, Path], Any]  # (html, path): prints the page to a PDF at path
ReportCard = Callable[[Any, Path], list]  # (project, folder) → the files written
_DENSE_ENDINGS = (".parquet", ".safetensors", ".skops", ".zip", ".xlsx", ".pdf")


def write_package(project: Project, out: str | Path, *, share_texts: bool = True, as_zip: bool = False,
                  report_card: ReportCard | None = None, pdf_printer: PdfPrinter | None = None,
                  on_event: EventCallback = ignore_events, replace: bool = False) -> Path:
    """Write the replication package of ``project`` to the folder ``out`` (``as_zip``: to ``out``.zip,
    one top folder inside) and return where it is. ``share_texts`` False leaves the data out and
    records its fingerprint, rows and columns instead. ``report_card(project, folder)`` writes the
    report card (None: TextLab's own, when it is there); ``pdf_printer(html, path)`` prints PDFs
    (None: no PDFs). ``replace``: an earlier package at ``out`` may be replaced."""
    result = project.result
    if result is None or not result.finished_models():
        raise UserError("This project has no finished study to package.",
                        "Run the study on the Run step first, then write the replication package.")
    out = Path(out)
    target = out if not as_zip or out.suffix.lower() == ".zip" else out.with_name(out.name + ".zip")
    _check_target(target, replace)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.stem}.", suffix=".partial", dir=target.parent))
    try:
        root = staging / (target.stem if as_zip else "package")
        root.mkdir()
        _fill(root, project, result, share_texts=share_texts, report_card=report_card, pdf_printer=pdf_printer,
              on_event=on_event)
        on_event(Progress(0.95, "Putting the package in its place"))
        if as_zip:
            _zip_into_place(root, target)
        else:
            _move_into_place(root, target)
    except OSError as error:
        raise UserError(f"The replication package could not be written to {target.parent}: {error.strerror or error}.",
                        "Check that the drive has free space and that TextLab may write there, or choose another "
                        "folder.", details=repr(error)) from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    on_event(Progress(1.0, f"Wrote the replication package {target.name}"))
    return target


def _check_target(target: Path, replace: bool) -> None:
    if target.is_file() and target.suffix.lower() != ".zip":
        raise UserError(f"{target} is a file, not a folder.", "Choose a new folder for the replication package.")
    if target.is_dir() and any(target.iterdir()):
        if not replace:
            raise UserError(f"The folder {target} already holds files.",
                            "Choose an empty or new folder for the replication package, or agree to replace the "
                            "earlier package there.")
        if not (target / MANIFEST).is_file():
            raise UserError(f"The folder {target} holds files that are not a replication package, so TextLab "
                            "leaves them alone.", "Choose an empty or new folder for the replication package.")
    if target.is_file() and not replace:
        raise UserError(f"{target.name} already exists in {target.parent}.",
                        "Choose another name, or agree to replace the earlier package.")


def _fill(root: Path, project: Project, result: ExperimentResult, *, share_texts: bool,
          report_card: ReportCard | None, pdf_printer: PdfPrinter | None, on_event: EventCallback) -> None:
    """Write every part of the package into ``root``: the manifest last."""
    notes: list[str] = []
    on_event(Progress(0.02, "Writing the data"))
    data = _write_data(root, project, share_texts)
    _write_study(root, project, share_texts)
    if len(project.codebook):
        write_text_atomic(root / "codebook.json", _json(project.codebook.to_dict()))
    if len(project.codings):
        write_text_atomic(root / "codings.json", _json(project.codings.to_dict()))
    on_event(Progress(0.1, "Copying the trained models"))
    models = _copy_models(root, project, result, notes)
    on_event(Progress(0.3, "Writing the results"))
    shown = _shown_result(result, models, share_texts)
    _write_results(root, project, shown, pdf_printer, notes, on_event)
    on_event(Progress(0.7, "Describing the environment"))
    environment = describe_environment(result.environment)
    write_text_atomic(root / "environment" / "environment.json", _json(environment))
    write_text_atomic(root / "environment" / "requirements.txt", requirements_text(environment["distributions"]))
    on_event(Progress(0.75, "Writing the report card"))
    # without the texts, the report card sees the result as the package shows it (no test texts)
    card_project = project if share_texts else dataclasses.replace(project, result=shown)
    _write_report_card(root, card_project, report_card, pdf_printer, notes, on_event)
    manifest: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "created": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "textlab_version": __version__,
        "study_name": project.spec.name,
        "seed": project.spec.seed,
        "run_seconds": run_seconds(result),
        "data": data,
        "models": models,
        "results": {model.name: {"macro_f1": float(model.test.macro_f1), "test_rows": len(model.predictions)}
                    for model in result.finished_models() if model.test is not None},
        "environment_summary": {"processor": environment["processor"], "cpu_count": environment["cpu_count"],
                                "gpu": (environment["graphics"] or {}).get("gpu"),
                                "platform": environment["platform"], "python": environment["python"]},
    }
    on_event(Progress(0.85, "Writing the README and the manifest"))
    files = [path.relative_to(root).as_posix() for path in sorted(root.rglob("*")) if path.is_file()]
    write_text_atomic(root / README, reviewer_readme(manifest, [*files, README, MANIFEST], notes))
    manifest["files"] = {path.relative_to(root).as_posix(): {"sha256": sha256_file(path), "size": path.stat().st_size}
                         for path in sorted(root.rglob("*")) if path.is_file() and path != root / MANIFEST}
    manifest["notes"] = notes
    write_text_atomic(root / MANIFEST, _json(manifest))


def _json(data: Any) -> str:
    import json

    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def run_seconds(result: ExperimentResult) -> float | None:
    """How long the run took: from its start to its end, else the models' own times added up."""
    try:
        started = dt.datetime.fromisoformat(result.started_at)
        finished = dt.datetime.fromisoformat(result.finished_at)
        if finished >= started:
            return round((finished - started).total_seconds(), 1)
    except (TypeError, ValueError):
        pass
    totals = [model.total_seconds() for model in result.models]
    known = [total for total in totals if total is not None]
    return round(sum(known), 1) if known else None


# -- data and study ---------------------------------------------------------------------------------
def _roles(project: Project) -> dict[str, str]:
    mapping = project.spec.data.mapping
    roles = {column: "group" for column in mapping.metadata_columns}
    roles.update({column: "category" for column in mapping.category_columns})
    for column, role in ((mapping.id_column, "id"), (mapping.split_column, "split"),
                         (mapping.category_column, "category")):
        if column:
            roles[column] = role
    roles.update({column: "text" for column in mapping.text_columns})
    return roles


def _table_entry(root: Path, frame: pd.DataFrame, file: str, share_texts: bool, roles: dict[str, str],
                 source_name: str, source_sha256: str) -> dict[str, Any]:
    if share_texts:
        write_bytes_atomic(root / file, _parquet_bytes(frame))
    return {"file": file if share_texts else None, "source_name": source_name, "source_sha256": source_sha256,
            "sha256": data_fingerprint(frame), "rows": len(frame), "columns": column_description(frame, roles)}


def _write_data(root: Path, project: Project, share_texts: bool) -> dict[str, Any]:
    roles = _roles(project)
    table = _table_entry(root, project.table, TABLE_FILE, share_texts, roles, project.source_name,
                         project.source_sha256)
    test_table = None
    if project.test_table is not None:
        test_table = _table_entry(root, project.test_table, TEST_TABLE_FILE, share_texts, roles,
                                  Path(project.spec.data.test_source).name, "")
    return {"included": share_texts, "table": table, "test_table": test_table}


def _parquet_bytes(frame: pd.DataFrame) -> bytes:
    """The table as Parquet, as a project keeps it (columns that mix numbers and words as text)."""
    import io

    import pyarrow as pa

    from guiapp.core.tables.arrow_columns import mixed_columns_as_text

    buffer = io.BytesIO()
    try:
        frame.to_parquet(buffer, engine="pyarrow", compression="zstd")
    except (pa.ArrowException, ValueError, TypeError):
        fixed, _ = mixed_columns_as_text(frame.set_axis([str(column) for column in frame.columns], axis=1))
        buffer = io.BytesIO()
        fixed.to_parquet(buffer, engine="pyarrow", compression="zstd")
    return buffer.getvalue()


def _write_study(root: Path, project: Project, share_texts: bool) -> None:
    """study.toml: the study as run, its table (and test table) read from data/; the table's
    SHA-256 is the Parquet file's when the data is in the package (checked before a rerun)."""
    from guiapp.core.study.spec import ExperimentSpec

    spec = ExperimentSpec.from_dict(project.spec.to_dict())
    spec.data.source = TABLE_FILE
    spec.data.sheet = None
    spec.data.sha256 = sha256_file(root / TABLE_FILE) if share_texts else ""
    if project.test_table is not None:
        spec.data.test_source, spec.data.test_sheet = TEST_TABLE_FILE, None
    write_text_atomic(root / STUDY_FILE, spec.to_toml())


# -- models and results -----------------------------------------------------------------------------
def _copy_models(root: Path, project: Project, result: ExperimentResult, notes: list[str]) -> dict[str, Any]:
    from guiapp.core.project.format import archive_folder_names

    names = [model.name for model in result.finished_models()]
    folders = archive_folder_names(names)
    models: dict[str, Any] = {}
    for name in names:
        source = project.model_folder(name)
        if source is None or not source.is_dir():
            notes.append(f"The trained model “{name}” was not kept with the project, so it is not in the package; "
                         "the rerun trains it again.")
            continue
        destination = root / "models" / folders[name]
        files: dict[str, str] = {}
        for path in sorted(source.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            relative = path.relative_to(source).as_posix()
            copy = destination / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
            files[relative] = sha256_file(copy)
        models[name] = {"folder": f"models/{folders[name]}", "files": files}
    return models


def _shown_result(result: ExperimentResult, models: dict[str, Any], share_texts: bool) -> ExperimentResult:
    """A copy of the result as the package shows it: each model's folder inside the package, and no
    test texts when the texts may not be shared."""
    from guiapp.core.experiment.results.experiment_result import ExperimentResult

    shown = ExperimentResult.from_dict(result.to_dict(include_texts=share_texts))
    for model in shown.models:
        model.artefact = models[model.name]["folder"] if model.name in models else ""
    if not share_texts:
        shown.test_texts = []
    return shown


def _write_results(root: Path, project: Project, shown: ExperimentResult, pdf_printer: PdfPrinter | None,
                   notes: list[str], on_event: EventCallback) -> None:
    from guiapp.core.experiment.results.result_files import write_results
    from guiapp.core.export.appendix import write_appendix
    from guiapp.core.export.excel import write_excel

    folder = root / "results"
    write_results(shown, folder)
    findings = project.findings.findings if project.findings is not None else None
    write_excel(folder / "results.xlsx", result=shown, overwrite=True, learning_curve=project.learning_curve,
                findings=findings)
    extra = {"findings": {"paragraph": findings.methods_paragraph()}} if findings is not None else {}
    html_file, _ = write_appendix(shown, folder / "methods-appendix.html", overwrite=True,
                                  learning_curve=project.learning_curve, extra=extra,
                                  data_sha256=project.source_sha256 or None)
    if pdf_printer is not None:
        try:
            pdf_printer(html_file.read_text(encoding="utf-8"), html_file.with_suffix(".pdf"))
        except OSError as error:
            notes.append(f"The methods appendix could not be printed to PDF ({error}); its web page is included.")
            on_event(Log(notes[-1], "warning"))
    if findings is not None:
        from guiapp.core.export.findings_export import write_findings

        write_findings(folder / "findings.xlsx", findings)


def _write_report_card(root: Path, project: Project, report_card: ReportCard | None, pdf_printer: PdfPrinter | None,
                       notes: list[str], on_event: EventCallback) -> None:
    folder = root / "report-card"
    if report_card is None:
        try:
            from guiapp.core.replication.report_card import write_report_card
        except ImportError:
            notes.append("This TextLab cannot write a report card yet, so the package has none.")
            on_event(Log(notes[-1], "warning"))
            return

        def report_card(project: Any, folder: Path) -> list:
            return write_report_card(project, folder, pdf_printer=pdf_printer)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        report_card(project, folder)
    except UserError as error:
        shutil.rmtree(folder, ignore_errors=True)
        notes.append(f"The report card could not be written: {error.message}")
        on_event(Log(notes[-1], "warning"))
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


# -- putting it in place ----------------------------------------------------------------------------
def _move_into_place(root: Path, target: Path) -> None:
    if target.is_dir() and any(target.iterdir()):  # an earlier package the caller agreed to replace
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, old)
        try:
            os.replace(root, target)
        except OSError:
            os.replace(old, target)
            raise
        shutil.rmtree(old, ignore_errors=True)
        return
    if target.is_dir():
        target.rmdir()
    os.replace(root, target)


def _zip_into_place(root: Path, target: Path) -> None:
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(temporary, "w") as archive:
            for path in sorted(root.rglob("*")):
                if not path.is_file():
                    continue
                dense = path.suffix.lower() in _DENSE_ENDINGS
                archive.write(path, f"{root.name}/{path.relative_to(root).as_posix()}",
                              compress_type=zipfile.ZIP_STORED if dense else zipfile.ZIP_DEFLATED)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
