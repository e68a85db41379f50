"""Open a ``.textlab`` project file: check it, read it, and unpack its trained models.

Opening only reads the file (it is never written to) and never runs code from it: the members
are JSON and Parquet, and the model folders are copied out byte for byte, after every member name
and model folder was checked (no absolute paths, no ``..``, no over-long names, no pickles) and
every member's size too (``format.member_limit`` and ``format.inflation_limit``: a zip bomb is
refused before anything is unpacked, and bytes are counted as they inflate), and before any model
is loaded. Every member must match the SHA-256 recorded in ``project.json``; every JSON member is
read with the depth-limited reader.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import uuid
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guiapp.core.coding.codebook import Codebook
from guiapp.core.coding.codings import CodingLog, UnreadableCodings
from guiapp.core.errors import UserError
from guiapp.core.project import format as fmt
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.untrusted.bounded import TooLarge, describe_size, read_at_most
from guiapp.core.untrusted.json_reading import UnreadableJson, loads_json, too_deep
from guiapp.core.untrusted.paths import UnsafePath, inside, single_name, too_long_for_file_systems

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

_CHUNK = 1 << 20
_SPARE_DISK = 64 << 20  # left free on the drive after unpacking the models


def open_project(path: str | Path, *, extract_models_to: str | Path | None) -> fmt.Project:
    """Read the project at ``path``; its model folders go to ``extract_models_to/<project key>/``
    (None: the models are checked but not unpacked, and ``model_folders`` is empty)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"There is no project file at {path}.", "Choose a .textlab file that exists.")
    try:
        with zipfile.ZipFile(path, "r") as archive:
            return _read(archive, Path(extract_models_to) if extract_models_to is not None else None)
    except zipfile.BadZipFile as error:
        raise fmt.damaged("it is not a complete TextLab project (not a readable zip archive)", repr(error)) from error
    except (zlib.error, zipfile.LargeZipFile, EOFError, NotImplementedError, RuntimeError) as error:
        raise fmt.damaged("part of it cannot be read", repr(error)) from error
    except OSError as error:
        raise UserError(f"The project file {path.name} cannot be read: {error.strerror or error}.",
                        "Check that the drive is connected and that you may read the file.",
                        details=repr(error)) from error


def read_header(archive: zipfile.ZipFile) -> tuple[dict[str, Any], bytes]:
    """``project.json`` (checked: TextLab's format, a version this TextLab knows) and its bytes."""
    found = [info for info in archive.infolist() if info.filename == fmt.PROJECT_JSON]
    if not found:
        raise fmt.damaged("it has no project.json, so it is not a TextLab project")
    if len(found) > 1:
        raise fmt.damaged(f"it holds {fmt.PROJECT_JSON} twice")
    limit = fmt.member_limit(fmt.PROJECT_JSON)
    try:
        if found[0].file_size > limit:
            raise TooLarge(f"its {fmt.PROJECT_JSON}", limit)
        with archive.open(found[0]) as stream:
            raw = read_at_most(stream, limit, f"its {fmt.PROJECT_JSON}")
        header = loads_json(raw)
    except TooLarge as error:
        raise fmt.damaged(str(error)) from None
    except UnreadableJson as error:
        raise fmt.damaged(f"its project.json cannot be read: {error}") from None
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


def _read(archive: zipfile.ZipFile, extract_to: Path | None) -> fmt.Project:
    from guiapp.core.experiment.results.experiment_result import (
        ExperimentResult,  # scikit-learn: only when a project is opened
    )

    header, raw_header = read_header(archive)
    index: dict[str, dict[str, Any]] = header["members"]
    infos = _check_members(archive, index)
    folders = _model_folders(header, infos)

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
            result = ExperimentResult.from_dict(_json(results, fmt.RESULTS_JSON))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise fmt.damaged("its results cannot be read", repr(error)) from error
        for model in result.models:  # where the run kept it, shown only; the models come from models/
            if not isinstance(model.artefact, str) or too_long_for_file_systems(model.artefact):
                model.artefact = ""
    test_table = member(fmt.TEST_TABLE)
    ui = member(fmt.UI_JSON)
    ui_state = _json(ui, fmt.UI_JSON) if ui is not None else {}
    curve = member(fmt.LEARNING_CURVE_JSON)
    codebook, codings, coding_texts = member(fmt.CODEBOOK_JSON), member(fmt.CODINGS_JSON), member(fmt.CODING_TEXTS)
    predicted_texts, answers, predictions = (member(fmt.PREDICTED_TEXTS), member(fmt.PREDICTION_ANSWERS),
                                             member(fmt.PREDICTIONS_JSON))
    findings = member(fmt.FINDINGS_JSON)
    source = header.get("source") if isinstance(header.get("source"), dict) else {}
    key = hashlib.sha256(raw_header).hexdigest()[:16]
    return fmt.Project(
        spec=spec,
        table=_parquet(table, fmt.TABLE),
        test_table=_parquet(test_table, fmt.TEST_TABLE) if test_table is not None else None,
        result=result,
        model_folders=(_extract_models(archive, infos, index, folders, extract_to / key)
                       if extract_to is not None else {}),
        ui_state=ui_state if isinstance(ui_state, dict) else {},
        learning_curve=_learning_curve(curve) if curve is not None else None,
        explanations={name[len(fmt.EXPLANATIONS):]: _explanations(member(name))
                      for name in sorted(infos) if name.startswith(fmt.EXPLANATIONS)},
        source_sha256=str(source.get("sha256", "")),
        source_name=str(source.get("name", "")),
        saved_at=str(header.get("saved_at", "")),
        textlab_version=str(header.get("textlab_version", "")),
        codebook=_codings_part(Codebook, codebook, fmt.CODEBOOK_JSON) if codebook is not None else Codebook(),
        codings=_codings_part(CodingLog, codings, fmt.CODINGS_JSON) if codings is not None else CodingLog(),
        coding_texts=_parquet(coding_texts, fmt.CODING_TEXTS) if coding_texts is not None else None,
        predicted=(_predicted(predicted_texts, answers, predictions)
                   if predicted_texts is not None and answers is not None and predictions is not None else None),
        findings=_findings(findings) if findings is not None else None,
    )


def _check_members(archive: zipfile.ZipFile, index: dict[str, dict[str, Any]]) -> dict[str, zipfile.ZipInfo]:
    """Every name safe and expected, none twice, each one in the index and the index complete;
    every size as recorded and no larger than its kind can need, nor than deflate can shrink."""
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
    total = 0
    for name, info in infos.items():
        entry = index[name]
        size = entry.get("size") if isinstance(entry, dict) else None
        if (not isinstance(size, int) or isinstance(size, bool) or size != info.file_size
                or not isinstance(entry.get("sha256"), str)):
            raise fmt.damaged(f"{name} does not have the size recorded for it")
        if size > (limit := fmt.member_limit(name)):
            raise fmt.damaged(f"{name} would unpack to {describe_size(size)}, more than such a file ever needs "
                              f"({describe_size(limit)})")
        if info.compress_type != zipfile.ZIP_STORED and size > fmt.inflation_limit(name, info.compress_size):
            raise fmt.damaged(f"{name} would inflate from {describe_size(info.compress_size)} to {describe_size(size)}, "
                              "far more than real data shrinks (a “zip bomb”)")
        total += size
    if total > fmt.TOTAL_LIMIT:
        raise fmt.damaged(f"its contents would unpack to {describe_size(total)}, more than a project ever needs "
                          f"({describe_size(fmt.TOTAL_LIMIT)})")
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


def _model_folders(header: dict[str, Any], infos: dict[str, zipfile.ZipInfo]) -> dict[str, str]:
    """Model name → its folder inside ``models/``: each a plain folder name (checked before anything
    is read or created), and every model member in one of them."""
    folders = header.get("model_folders") or {}
    if not isinstance(folders, dict) or not all(isinstance(v, str) and isinstance(k, str) for k, v in folders.items()):
        raise fmt.damaged("its list of model folders cannot be read")
    try:
        known = {single_name(folder, "the model folder") for folder in folders.values()}
    except UnsafePath as error:
        raise fmt.damaged(error.reason) from None
    for name in infos:
        if name.startswith(fmt.MODELS) and name.split("/")[1] not in known:
            raise fmt.damaged(f"{name} belongs to no model")
    return folders


def _extract_models(archive: zipfile.ZipFile, infos: dict[str, zipfile.ZipInfo], index: dict[str, dict[str, Any]],
                    folders: dict[str, str], root: Path) -> dict[str, Path]:
    if not folders:
        return {}
    known = set(folders.values())
    model_members = [name for name in infos if name.startswith(fmt.MODELS)]
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        _check_room(root.parent, sum(infos[name].file_size for name in model_members))
        staging = root.parent / f".{root.name}.{uuid.uuid4().hex[:8]}.partial"
        try:
            for folder in known:
                inside(staging, folder, "the model folder").mkdir(parents=True, exist_ok=True)
            for name in model_members:
                destination = inside(staging, name[len(fmt.MODELS):], "the model file")
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
    except UnsafePath as error:
        raise fmt.damaged(error.reason) from None
    except OSError as error:
        raise UserError(f"The trained models of this project could not be unpacked into {root.parent}: "
                        f"{error.strerror or error}.",
                        "Check that the drive has free space and that TextLab may write there, then open the "
                        "project again.", details=repr(error)) from error
    return {name: root / folder for name, folder in folders.items()}


def _check_room(folder: Path, needed: int) -> None:
    """UserError unless the drive of ``folder`` can take ``needed`` more bytes and keep some spare."""
    free = shutil.disk_usage(folder).free
    if needed + _SPARE_DISK > free:
        raise UserError(
            f"The trained models of this project need {describe_size(needed)} once unpacked, but the drive that "
            f"holds {folder} has only {describe_size(free)} free.",
            "Free some space on that drive (TextLab's cache can be emptied), then open the project again.",
        )


def _learning_curve(data: bytes):  # noqa: ANN202 — a LearningCurveResult, or None when it cannot be read
    """A damaged learning curve costs the curve only, never the project."""
    from guiapp.core.experiment.curves.learning_curve_results import LearningCurveResult

    try:
        return LearningCurveResult.from_dict(loads_json(data))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _predicted(texts: bytes, answers: bytes, description: bytes):  # PredictedTexts or None
    """The texts predicted on the Predict step, with the answers: ones that cannot be read cost the
    predictions only, never the project (the trained models can predict them again)."""
    from guiapp.core.predict.predicted_texts import (
        UnreadablePredictions,
        predicted_texts_from,
    )

    try:
        return predicted_texts_from(loads_json(description), _parquet(answers, fmt.PREDICTION_ANSWERS),
                                    _parquet(texts, fmt.PREDICTED_TEXTS))
    except (UnreadableJson, UnreadablePredictions, UserError):
        return None


def _findings(data: bytes):  # KeptFindings or None
    """The findings last shown: ones that cannot be read cost the findings only (they are measured again)."""
    from guiapp.core.findings.kept_findings import KeptFindings, UnreadableFindings

    try:
        return KeptFindings.from_dict(loads_json(data))
    except (UnreadableJson, UnreadableFindings):
        return None


def _codings_part(kind, data: bytes, name: str):  # noqa: ANN001, ANN202 — Codebook or CodingLog, and one of them
    """The codebook or the coding log: one that cannot be read refuses the project (opening it
    without them, then saving, would lose hours of coding)."""
    try:
        return kind.from_dict(_json(data, name))
    except UnreadableCodings as error:
        raise fmt.damaged(f"its {name} cannot be read: {error.reason}", error.details) from None


def _explanations(data: bytes | None) -> bytes:
    """The explanations file as stored; one that is not UTF-8 or nests absurdly deep counts as empty
    (the explanations cache reads it later, and treats what it cannot read as not computed)."""
    try:
        return data if data and not too_deep(data.decode("utf-8")) else b""
    except UnicodeDecodeError:
        return b""


def _json(data: bytes, name: str) -> Any:
    try:
        return loads_json(data)
    except UnreadableJson as error:
        raise fmt.damaged(f"its {name} cannot be read: {error}", repr(error)) from None


def _parquet(data: bytes, name: str) -> pd.DataFrame:
    import pandas as pd
    try:
        return pd.read_parquet(io.BytesIO(data), engine="pyarrow")
    except Exception as error:
        raise fmt.damaged(f"its {name} cannot be read", repr(error)) from error
