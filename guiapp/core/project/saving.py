"""Save a project to a ``.textlab`` file so that no moment of the save can lose the old one.

The archive is written to a temporary file in the target's folder (``.<name>.<pid>.<random>.tmp``,
never ending in ``.textlab``), flushed to disk, then renamed over the target with ``os.replace``.
A save that fails, is cancelled or is killed leaves the previous project file as it was; the next
save removes temporary files left by processes that are no longer running.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guiapp import __version__
from guiapp.core.atomic import fsync_folder, usual_permissions
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.project import format as fmt
from guiapp.core.compute.processes import process_running
from guiapp.core.untrusted.bounded import describe_size

if TYPE_CHECKING:  # pandas and pyarrow load on first use, not when the window opens
    import pandas as pd

_CHUNK = 1 << 20


def save_project(path: str | Path, project: fmt.Project, *, on_event: EventCallback = ignore_events) -> Path:
    """Write ``project`` to ``path`` atomically and return the path. Raising ``Cancelled`` from
    ``on_event`` stops the save and leaves the previous file (if any) untouched."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(target)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        usual_permissions(fd)
        with os.fdopen(fd, "w+b") as handle:
            _write_archive(handle, project, on_event)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_folder(target.parent)
    on_event(Progress(1.0, f"Saved {target.name}."))
    return target


class _Writer:
    """Adds members to the zip, hashing each one and reporting progress by bytes written."""

    def __init__(self, archive: zipfile.ZipFile, total: int, on_event: EventCallback) -> None:
        self.archive, self.total, self.on_event = archive, max(total, 1), on_event
        self.done = 0
        self.index: dict[str, dict[str, Any]] = {}

    def add_bytes(self, name: str, data: bytes, message: str) -> None:
        self.add_stream(name, io.BytesIO(data), message)

    def add_stream(self, name: str, source: io.BufferedIOBase, message: str) -> None:
        fmt.check_member_name(name)
        compress = zipfile.ZIP_STORED if Path(name).suffix.lower() in fmt.STORED_ENDINGS else zipfile.ZIP_DEFLATED
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = compress
        digest, size, limit = hashlib.sha256(), 0, fmt.member_limit(name)
        with self.archive.open(info, "w", force_zip64=True) as member:
            while block := source.read(_CHUNK):
                digest.update(block)
                member.write(block)
                size += len(block)
                if size > limit:  # opening would refuse it: say so now, and keep the previous file
                    raise UserError(f"The project could not be saved: {name} is larger than {describe_size(limit)}, "
                                    "more than a project can hold.",
                                    "Save the results folder with `textlab run … --out FOLDER` instead, or study fewer texts.")
                self.done += len(block)
                self.on_event(Progress(min(self.done / self.total, 0.99), message, self.done, self.total))
        self.index[name] = {"sha256": digest.hexdigest(), "size": size}
        self.on_event(Progress(min(self.done / self.total, 0.99), message, self.done, self.total))


def _write_archive(handle, project: fmt.Project, on_event: EventCallback) -> None:
    on_event(Progress(0.0, "Preparing the project…"))
    study = _json_bytes(project.spec.to_dict())
    table = _parquet_bytes(project.table, "table", on_event)
    test_table = _parquet_bytes(project.test_table, "test table", on_event) if project.test_table is not None else None
    results = project.result.to_json(include_texts=True).encode("utf-8") if project.result is not None else None
    ui = _json_bytes(project.ui_state)
    curve = project.learning_curve.to_json().encode("utf-8") if project.learning_curve is not None else None
    codebook = _json_bytes(project.codebook.to_dict()) if len(project.codebook) else None
    codings = _json_bytes(project.codings.to_dict()) if len(project.codings) else None
    coding_texts = (_parquet_bytes(project.coding_texts, "texts to code", on_event)
                    if project.coding_texts is not None else None)
    predicted = project.predicted
    predicted_texts = _parquet_bytes(predicted.table, "predicted texts", on_event) if predicted is not None else None
    answers = _parquet_bytes(predicted.answers(), "predictions", on_event) if predicted is not None else None
    predictions = _json_bytes(predicted.description()) if predicted is not None else None
    findings = _findings_bytes(project.findings, on_event) if project.findings is not None else None
    model_files = _model_files(project.model_folders, on_event)
    explanations = {name: data for name, data in sorted(project.explanations.items())
                    if fmt.explanation_member_ok(name)}
    total = sum(len(b) for b in (study, table, test_table, results, ui, curve, codebook, codings, coding_texts,
                                 predicted_texts, answers, predictions, findings) if b is not None)
    total += sum(len(data) for data in explanations.values())
    total += sum(source.stat().st_size for files in model_files.values() for _, source in files)

    with zipfile.ZipFile(handle, "w", allowZip64=True) as archive:
        writer = _Writer(archive, total, on_event)
        writer.add_bytes(fmt.STUDY_JSON, study, "Saving the study…")
        writer.add_bytes(fmt.TABLE, table, "Saving the table…")
        if test_table is not None:
            writer.add_bytes(fmt.TEST_TABLE, test_table, "Saving the test table…")
        if results is not None:
            writer.add_bytes(fmt.RESULTS_JSON, results, "Saving the results…")
        writer.add_bytes(fmt.UI_JSON, ui, "Saving the window's state…")
        if curve is not None:
            writer.add_bytes(fmt.LEARNING_CURVE_JSON, curve, "Saving the learning curve…")
        if codebook is not None:
            writer.add_bytes(fmt.CODEBOOK_JSON, codebook, "Saving the codebook…")
        if codings is not None:
            writer.add_bytes(fmt.CODINGS_JSON, codings, "Saving the codings…")
        if coding_texts is not None:
            writer.add_bytes(fmt.CODING_TEXTS, coding_texts, "Saving the texts to code…")
        if predicted_texts is not None and answers is not None and predictions is not None:
            writer.add_bytes(fmt.PREDICTED_TEXTS, predicted_texts, "Saving the predicted texts…")
            writer.add_bytes(fmt.PREDICTION_ANSWERS, answers, "Saving the predictions…")
            writer.add_bytes(fmt.PREDICTIONS_JSON, predictions, "Saving the predictions…")
        if findings is not None:
            writer.add_bytes(fmt.FINDINGS_JSON, findings, "Saving the findings…")
        for name, data in explanations.items():
            writer.add_bytes(fmt.EXPLANATIONS + name, data, "Saving the explanations…")
        folders = fmt.archive_folder_names(list(model_files))
        for name, files in model_files.items():
            for relative, source in files:
                with open(source, "rb") as stream:
                    writer.add_stream(f"{fmt.MODELS}{folders[name]}/{relative}", stream, f"Saving the model {name}…")
        header = {
            "format": fmt.FORMAT_NAME,
            "format_version": 2 if fmt.FORMAT_2_MEMBERS & set(writer.index) else 1,  # the lowest that holds it
            "textlab_version": __version__,
            "saved_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "study_name": project.spec.name,
            "source": {"name": project.source_name, "sha256": project.source_sha256},
            "n_models": len(project.result.models) if project.result is not None else 0,
            "model_folders": {name: folders[name] for name in model_files},
            "members": writer.index,
        }
        info = zipfile.ZipInfo(fmt.PROJECT_JSON, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(info, _json_bytes(header))


def _json_bytes(data: Any) -> bytes:
    try:
        return (json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    except (TypeError, ValueError) as error:
        raise UserError("The project could not be saved: part of it cannot be written as JSON.",
                        "This is a bug in TextLab; please report it.", details=repr(error)) from error


def _findings_bytes(kept: Any, on_event: EventCallback) -> bytes | None:
    """The findings last shown, as JSON; findings that cannot be written are left out (they are measured
    again when the project is opened), never the project."""
    try:
        return _json_bytes(kept.to_dict())
    except (UserError, TypeError, ValueError, AttributeError):
        on_event(Log("The findings last shown could not be kept in the project; the Findings step measures them "
                     "again when it is opened.", "warning"))
        return None


def _parquet_bytes(table: pd.DataFrame, what: str, on_event: EventCallback) -> bytes:
    import pyarrow as pa

    from guiapp.core.tables.arrow_columns import mixed_columns_as_text

    buffer = io.BytesIO()
    try:
        table.to_parquet(buffer, engine="pyarrow", compression="zstd")
    except (pa.ArrowException, ValueError, TypeError) as error:
        # Mixed cells in one column (numbers and words) cannot go into one Parquet column: keep
        # such columns as text, which is how the study reads them anyway.
        fixed, _ = mixed_columns_as_text(table.set_axis([str(column) for column in table.columns], axis=1))
        on_event(Log(f"Some columns of the {what} mix numbers and words; the project keeps them as text.", "warning"))
        buffer = io.BytesIO()
        try:
            fixed.to_parquet(buffer, engine="pyarrow", compression="zstd")
        except (pa.ArrowException, ValueError, TypeError):
            raise UserError(f"The project could not be saved: the {what} cannot be stored.",
                            "This is a bug in TextLab; please report it.", details=repr(error)) from error
    return buffer.getvalue()


def _model_files(folders: dict[str, Path], on_event: EventCallback) -> dict[str, list[tuple[str, Path]]]:
    """Per model, its folder's files (relative POSIX path, source), pickles left out."""
    found: dict[str, list[tuple[str, Path]]] = {}
    for name, folder in folders.items():
        folder = Path(folder)
        if not folder.is_dir():
            raise UserError(f"The trained model “{name}” is missing from {folder}, so the project cannot hold it.",
                            "Run the study again to train it, then save the project.")
        files = []
        for source in sorted(folder.rglob("*")):
            if source.is_symlink() or not source.is_file():
                continue
            relative = source.relative_to(folder).as_posix()
            if fmt.is_pickle_like(relative):
                on_event(Log(f"{name}: the file {relative} was left out of the project (a format that can run "
                             "code when opened).", "warning"))
                continue
            files.append((relative, source))
        found[name] = files
    return found


def _remove_stale_temps(target: Path) -> None:
    """Temporary files of earlier saves to ``target`` whose process died (killed, crashed)."""
    for leftover in target.parent.glob(f".{target.name}.*.tmp"):
        pid = leftover.name[len(target.name) + 2:].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not process_running(int(pid)):
            leftover.unlink(missing_ok=True)
