"""Open a ``.textlab`` project file: check it, read it, and unpack its trained models.

Opening only reads the file (it is never written to) and never runs code from it: the members
are JSON and Parquet, and the model folders are copied out byte for byte, after every member name
was checked (no absolute paths, no ``..``, no pickles) and before any model is loaded. Every
member must match the SHA-256 recorded in ``project.json``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import uuid
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pandas as pd

from guiapp.core.errors import UserError
from guiapp.core.project import format as fmt
from guiapp.core.study.spec import ExperimentSpec

_CHUNK = 1 << 20


def open_project(path: str | Path, *, extract_models_to: str | Path) -> fmt.Project:
    """Read the project at ``path``; its model folders go to ``extract_models_to/<project key>/``."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"There is no project file at {path}.", "Choose a .textlab file that exists.")
    try:
        with zipfile.ZipFile(path, "r") as archive:
            return _read(archive, Path(extract_models_to))
    except zipfile.BadZipFile as error:
        raise fmt.damaged("it is not a complete TextLab project (not a readable zip archive)", repr(error)) from error
    except (zlib.error, zipfile.LargeZipFile, EOFError, NotImplementedError, RuntimeError) as error:
        raise fmt.damaged("part of it cannot be read", repr(error)) from error


def read_header(archive: zipfile.ZipFile) -> tuple[dict[str, Any], bytes]:
    """``project.json`` (checked: TextLab's format, a version this TextLab knows) and its bytes."""
    try:
        raw = archive.read(fmt.PROJECT_JSON)
    except KeyError:
        raise fmt.damaged("it has no project.json, so it is not a TextLab project") from None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise fmt.damaged("its project.json is not valid JSON", repr(error)) from error
    if not isinstance(header, dict) or header.get("format") != fmt.FORMAT_NAME:
        raise fmt.damaged("its project.json does not describe a TextLab project")
    version = header.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise fmt.damaged(f"its format version ({version!r}) is not one TextLab writes")
    if version > fmt.FORMAT_VERSION:
        saved_by = header.get("textlab_version") or "a newer version"
        raise UserError(
            f"This project was saved by a newer TextLab ({saved_by}, project format {version}); "
            f"this TextLab reads project formats up to {fmt.FORMAT_VERSION}.",
            "Update TextLab to open it. The file was not changed.",
        )
    if not isinstance(header.get("members"), dict):
        raise fmt.damaged("its project.json has no list of members")
    return header, raw


def _read(archive: zipfile.ZipFile, extract_to: Path) -> fmt.Project:
    from guiapp.core.experiment.results import (
        ExperimentResult,  # scikit-learn: only when a project is opened
    )

    header, raw_header = read_header(archive)
    index: dict[str, dict[str, Any]] = header["members"]
    infos = _check_members(archive, index)

    def member(name: str) -> bytes | None:
        if name not in infos:
            return None
        return _read_checked(archive, infos[name], index[name])

    study = member(fmt.STUDY_JSON)
    table = member(fmt.TABLE)
    if study is None or table is None:
        raise fmt.damaged("the study or its table is missing")
    spec = ExperimentSpec.from_dict(_json(study, fmt.STUDY_JSON))
    results = member(fmt.RESULTS_JSON)
    result = None
    if results is not None:
        try:
            result = ExperimentResult.from_json(results.decode("utf-8"))
        except (ValueError, KeyError, TypeError) as error:
            raise fmt.damaged("its results cannot be read", repr(error)) from error
    test_table = member(fmt.TEST_TABLE)
    ui = member(fmt.UI_JSON)
    curve = member(fmt.LEARNING_CURVE_JSON)
    source = header.get("source") or {}
    key = hashlib.sha256(raw_header).hexdigest()[:16]
    return fmt.Project(
        spec=spec,
        table=_parquet(table, fmt.TABLE),
        test_table=_parquet(test_table, fmt.TEST_TABLE) if test_table is not None else None,
        result=result,
        model_folders=_extract_models(archive, infos, index, header, extract_to / key),
        ui_state=_json(ui, fmt.UI_JSON) if ui is not None else {},
        learning_curve=_learning_curve(curve) if curve is not None else None,
        explanations={name[len(fmt.EXPLANATIONS):]: member(name) or b""
                      for name in sorted(infos) if name.startswith(fmt.EXPLANATIONS)},
        source_sha256=str(source.get("sha256", "")),
        source_name=str(source.get("name", "")),
        saved_at=str(header.get("saved_at", "")),
        textlab_version=str(header.get("textlab_version", "")),
    )


def _check_members(archive: zipfile.ZipFile, index: dict[str, dict[str, Any]]) -> dict[str, zipfile.ZipInfo]:
    """Every name safe and expected, none twice, each one in the index and the index complete."""
    infos: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        fmt.check_member_name(info.filename)
        if info.is_dir():
            continue
        if info.filename in infos:
            raise fmt.damaged(f"it holds {info.filename!r} twice")
        if info.filename != fmt.PROJECT_JSON:
            infos[info.filename] = info
    for name in index:
        fmt.check_member_name(name)
    if set(infos) != set(index):
        missing, extra = sorted(set(index) - set(infos)), sorted(set(infos) - set(index))
        raise fmt.damaged("its contents do not match its list of members",
                          f"missing: {missing[:5]}, not listed: {extra[:5]}")
    return infos


def _read_checked(archive: zipfile.ZipFile, info: zipfile.ZipInfo, entry: dict[str, Any], sink=None) -> bytes | None:
    """The member's bytes (or streamed into ``sink``), refused unless size and SHA-256 match."""
    expected_size, expected_sha = entry.get("size"), entry.get("sha256")
    if not isinstance(expected_size, int) or info.file_size != expected_size or not isinstance(expected_sha, str):
        raise fmt.damaged(f"{info.filename} does not have the size recorded for it")
    digest, size, parts = hashlib.sha256(), 0, []
    with archive.open(info) as stream:
        while block := stream.read(_CHUNK):
            size += len(block)
            if size > expected_size:
                raise fmt.damaged(f"{info.filename} is larger than recorded")
            digest.update(block)
            if sink is None:
                parts.append(block)
            else:
                sink.write(block)
    if size != expected_size or digest.hexdigest() != expected_sha:
        raise fmt.damaged(f"{info.filename} was changed or damaged (its checksum does not match)")
    return b"".join(parts) if sink is None else None


def _extract_models(archive: zipfile.ZipFile, infos: dict[str, zipfile.ZipInfo], index: dict[str, dict[str, Any]],
                    header: dict[str, Any], root: Path) -> dict[str, Path]:
    folders = header.get("model_folders") or {}
    if not isinstance(folders, dict) or not all(isinstance(v, str) and isinstance(k, str) for k, v in folders.items()):
        raise fmt.damaged("its list of model folders cannot be read")
    model_members = [name for name in infos if name.startswith(fmt.MODELS)]
    known = set(folders.values())
    for name in model_members:
        if name.split("/")[1] not in known:
            raise fmt.damaged(f"{name} belongs to no model")
    if not folders:
        return {}
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = root.parent / f".{root.name}.{uuid.uuid4().hex[:8]}.partial"
    staging_resolved = staging.resolve()
    try:
        for folder in known:
            (staging / folder).mkdir(parents=True, exist_ok=True)
        for name in model_members:
            destination = staging / name[len(fmt.MODELS):]
            if not destination.resolve().is_relative_to(staging_resolved):
                raise fmt.damaged(f"it holds a file with an unsafe name ({name!r})")
            destination.parent.mkdir(parents=True, exist_ok=True)
            with open(destination, "xb") as sink:
                _read_checked(archive, infos[name], index[name], sink)
        if root.exists():
            shutil.rmtree(root, ignore_errors=True)
        if root.exists():  # still in use (Windows): unpack beside it
            root = root.with_name(f"{root.name}-{uuid.uuid4().hex[:6]}")
        os.replace(staging, root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return {name: root / folder for name, folder in folders.items()}


def _learning_curve(data: bytes):  # noqa: ANN202 — a LearningCurveResult, or None when it cannot be read
    """A damaged learning curve costs the curve only, never the project."""
    from guiapp.core.experiment.learning_curve_results import LearningCurveResult

    try:
        return LearningCurveResult.from_json(data.decode("utf-8"))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


def _json(data: bytes, name: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise fmt.damaged(f"its {name} is not valid JSON", repr(error)) from error


def _parquet(data: bytes, name: str) -> pd.DataFrame:
    try:
        return pd.read_parquet(io.BytesIO(data), engine="pyarrow")
    except Exception as error:
        raise fmt.damaged(f"its {name} cannot be read", repr(error)) from error
