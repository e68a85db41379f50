"""Open a results folder (``textlab run … --out FOLDER``, e.g. copied back from a cluster) as a project.

A results folder holds ``results.json`` (without the texts), ``predictions.csv``, the trained
models in ``models/<model folder>`` and the manifest that lists them all; it does not hold the
study's table. The table is looked for where the study named it — ``data.source`` as recorded,
relative to the folder the results folder is in (where study.toml was), to the results folder
itself, or as given — and must be the file the run read: same SHA-256 when the study recorded
one, and the same test texts (rows, IDs, categories) in every case. The test texts are then
rebuilt from it exactly as the engine did (``load_study_data``), and checked against
predictions.csv. Each model's folder is taken from ``models/`` inside the results folder, since
the path recorded during the run (on a cluster, say) does not exist here; a model recorded
outside the folder is refused (``saved_results.model_folder``).

Nothing in the folder is run: only JSON, CSV, the table and (later, by the safe loaders) the
model folders are read.
"""

from __future__ import annotations

import copy
from pathlib import Path, PurePosixPath, PureWindowsPath

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.experiment.curves.learning_curve_files import CURVE_JSON_NAME
from guiapp.core.experiment.results.result_files import RESULTS_NAME
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.predict.saved_results import model_folder, read_results, recorded_file_name
from guiapp.core.project.format import Project, model_folders_of
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import (
    StudyData,
    changed_file_notes,
    load_study_data,
    read_study_table,
)
from guiapp.core.tables.reader import read_table
from guiapp.core.untrusted.json_reading import read_json_file

CURVE_LIMIT = 64 << 20  # the most a learning curve's file can need

CHOOSE = ("Choose the results folder a run wrote (it holds results.json, predictions.csv and models/). "
          "A spreadsheet, a study file or a .textlab project opens with File → Open… or Open project… instead.")


def is_results_folder(path: Path) -> bool:
    """Whether ``path`` is a folder with a results.json in it (a candidate; opening checks the rest)."""
    return Path(path).is_dir() and (Path(path) / RESULTS_NAME).is_file()


def open_results_folder(folder: str | Path, on_event: EventCallback = ignore_events) -> Project:
    """The study, its table, its results and trained models, read from the results folder ``folder``."""
    folder = Path(folder).expanduser().absolute()
    if not folder.is_dir():
        raise UserError(f"There is no folder at {folder}.", CHOOSE)
    if not (folder / RESULTS_NAME).is_file():
        raise UserError(f"The folder “{folder.name}” holds no TextLab results: it has no {RESULTS_NAME}.", CHOOSE,
                        details=str(folder))
    on_event(Progress(0.0, f"Reading the results in {folder.name}…"))
    result = read_results(folder)  # the manifest is checked: a stopped run or mixed files are refused
    try:
        spec = ExperimentSpec.from_dict(result.spec)
    except (UserError, ValueError, TypeError, AttributeError) as error:
        raise UserError(f"The results in “{folder.name}” do not describe a study this TextLab can read.",
                        "They may come from a newer TextLab: update TextLab, or run the study again.",
                        details=repr(error)) from error

    local = copy.deepcopy(spec)
    local.data.source = str(find_table(spec.data.source, folder, "table"))
    if spec.data.test_source:
        local.data.test_source = str(find_table(spec.data.test_source, folder, "test file"))
    on_event(Progress(0.2, f"Reading {Path(local.data.source).name}…"))
    loaded = read_study_table(local, None, [])
    if changed_file_notes(spec, loaded.path, loaded.sha256):
        raise UserError(
            f"{loaded.path} is not the table these results were computed on: it changed since the run "
            "(its checksum differs from the one recorded in the study).",
            "Put the table the run used there (for a cluster run: the data.parquet of the folder you prepared), "
            "or run the study again on the table as it is now.",
            details=f"recorded SHA-256 {spec.data.sha256}, found {loaded.sha256}",
        )
    test_table = read_table(local.data.test_source, local.data.test_sheet).frame if local.data.test_source else None
    on_event(Progress(0.7, "Matching the results to the table…"))
    texts = _rebuilt_test_texts(local, loaded.frame, result, loaded.path)
    if result.test_texts and result.test_texts != texts:
        raise _not_this_table(loaded.path, "its test texts differ from those in predictions.csv")
    result.test_texts = texts

    for model in result.models:  # only inside the folder (a recorded folder elsewhere is refused)
        found = model_folder(folder, model)
        model.artefact = str(found) if found is not None else ""
    result.spec = local.to_dict()  # the results now point at the table found here
    return Project(
        spec=local,
        table=loaded.frame,
        test_table=test_table,
        result=result,
        model_folders=model_folders_of(result),
        learning_curve=_learning_curve(folder / CURVE_JSON_NAME),
        source_sha256=loaded.sha256,
        source_name=loaded.path.name,
    )


def table_candidates(recorded: str, folder: Path) -> list[Path]:
    """Where the table recorded as ``recorded`` may be now: beside the results folder (in the study's
    folder), inside it, then as recorded; an absolute path from another computer by its file name."""
    given = Path(recorded).expanduser()
    name = recorded_file_name(recorded)
    places = [folder.parent, folder]
    absolute = given.is_absolute() or PurePosixPath(recorded).is_absolute() or PureWindowsPath(recorded).is_absolute()
    found = [place / recorded for place in places] if not absolute else []
    found += [place / name for place in places] + [given]
    unique: list[Path] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def find_table(recorded: str, folder: Path, what: str) -> Path:
    """The first of :func:`table_candidates` that is a file, else a UserError saying where it looked."""
    candidates = table_candidates(recorded, folder)
    for path in candidates:
        if path.is_file():
            return path
    name = recorded_file_name(recorded)
    raise UserError(
        f"The study's {what} {name} is not next to the results folder “{folder.name}”, so its texts cannot be "
        f"shown: TextLab looked for {candidates[0]}" + (f" and in {folder}." if len(candidates) > 1 else "."),
        f"Copy {name} back next to the results folder (into {folder.parent}), or put the results folder into the "
        f"folder that holds {name} — for a cluster run, the folder you prepared with File → Prepare for a cluster…",
        details="looked for: " + "; ".join(str(path) for path in candidates) + f"\nrecorded as: {recorded}",
    )


def _rebuilt_test_texts(spec: ExperimentSpec, table, result: ExperimentResult, path: Path) -> list[str]:
    """The test texts as the engine took them from ``table``; refused unless rows, IDs and codes match."""
    try:
        data: StudyData = load_study_data(spec, table=table)
    except UserError as error:
        raise _not_this_table(path, error.message) from error
    test = data.split.test
    if data.categories != result.categories:
        raise _not_this_table(path, "its categories differ from those of the results")
    same = (
        [data.rows[i] for i in test] == [int(row) for row in result.test_rows]
        and [int(data.y[i]) for i in test] == [int(code) for code in result.test_true]
        and [_plain(data.ids[i]) for i in test] == [_plain(value) for value in result.test_ids]
    )
    if not same:
        raise _not_this_table(path, "its test texts are not the ones the models were tested on")
    return [data.texts[i] for i in test]


def _plain(value: object) -> object:
    """An ID as results.json writes it (JSON has no numpy types)."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value


def _not_this_table(path: Path, why: str) -> UserError:
    return UserError(
        f"{path.name} does not match these results: {why}. It was probably changed since the run.",
        "Put the table the run used there (for a cluster run: the data.parquet of the folder you prepared), "
        "or run the study again on the table as it is now.",
        details=str(path),
    )


def _learning_curve(path: Path):
    """A learning curve written into the folder, if one is there and readable (it costs only itself)."""
    if not path.is_file():
        return None
    from guiapp.core.experiment.curves.learning_curve_results import LearningCurveResult

    try:
        return LearningCurveResult.from_dict(read_json_file(path, max_bytes=CURVE_LIMIT))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
