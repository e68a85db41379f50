"""The trained models of a finished study, found from its results folder (``textlab run --out``).

``results.json`` lists the models; each finished model was saved in ``models/<model folder>``
beside it. The folder may have been moved or copied since the run, so a model is looked for
there only — by the name of the folder recorded during the run, then by the model's name; a
recorded folder outside the results folder is refused, since its manifest does not cover it. A
folder is read only when its manifest (``textlab-results.json``, written last) is there and every
file matches it, so results of a stopped run, or files of two runs mixed, are refused with a
message (``results_manifest``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath

import pandas as pd

from guiapp.core.errors import UserError
from guiapp.core.experiment.results.artefacts import model_folder_name
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.results.results_manifest import MANIFEST_NAME, check_results_folder
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.trained_model import TrainedModel
from guiapp.core.untrusted.json_reading import UnreadableJson, read_json_file
from guiapp.core.untrusted.paths import inside, path_problem

RESULTS_FILE = "results.json"
PREDICTIONS_FILE = "predictions.csv"
RESULTS_LIMIT = 1 << 30  # the most a results.json can need (the texts are in predictions.csv)


def read_results(folder: str | Path) -> ExperimentResult:
    """The study's results from a results folder (or its results.json), checked against its manifest."""
    path = Path(folder)
    path = (path.parent if path.suffix.lower() == ".json" else path) / RESULTS_FILE
    if not path.is_file() and not (path.parent / MANIFEST_NAME).is_file():
        raise UserError(f"There are no study results at {path.parent}.",
                        "Name the folder that `textlab run … --out FOLDER` wrote (it holds results.json).")
    check_results_folder(path.parent)
    try:
        result = ExperimentResult.from_dict(read_json_file(path, max_bytes=RESULTS_LIMIT))
    except UnreadableJson as error:
        raise UserError(f"The results file {path} cannot be read: {error}.",
                        "Run the study again to write new results.") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise UserError(f"The results file {path} is damaged or was not written by TextLab.",
                        "Run the study again to write new results.", details=repr(error)) from error
    if not result.test_texts:
        result.test_texts = _test_texts(path.parent / PREDICTIONS_FILE, result)
    return result


def _test_texts(path: Path, result: ExperimentResult) -> list[str]:
    """The test texts, in order, from predictions.csv (results.json leaves the texts out)."""
    if not path.is_file() or not result.models:
        return []
    try:
        table = pd.read_csv(path, encoding="utf-8-sig", usecols=["text", "model"], dtype=str, keep_default_na=False)
    except (ValueError, OSError):
        return []
    texts = table.loc[table["model"] == table["model"].iloc[0], "text"].tolist() if len(table) else []
    return texts if len(texts) == len(result.test_true) else []


def model_folder(results_folder: str | Path, model: ModelResult) -> Path | None:
    """Where ``model``'s trained model is now: in the results' ``models/`` folder, by the name of the
    folder recorded during the run or by the model's name; None when it is not there. A recorded
    folder outside the results folder is refused (UserError): the manifest does not cover it."""
    base = Path(results_folder)
    base = base.parent if base.suffix.lower() == ".json" else base
    recorded = model.artefact if isinstance(model.artefact, str) else ""
    names = [recorded_file_name(recorded)] if recorded else []
    names.append(model_folder_name(str(model.name)))
    for name in names:
        if path_problem(name) is None and "/" not in name:
            candidate = inside(base / "models", name, "the trained model's folder")
            if candidate.is_dir():
                return candidate
    if recorded and not _within(Path(recorded), base):
        shown = recorded if len(recorded) <= 120 else recorded[:100] + "…"
        raise UserError(
            f"The results in “{base.name}” place the trained model “{model.name}” outside their folder "
            f"({shown}), where its files are not checked against the results, so TextLab does not open it.",
            "Open the results folder just as the run wrote it (the trained models are in its models folder), "
            "or run the study again.",
        )
    return None


def recorded_file_name(recorded: str) -> str:
    """The last part of a path written on any system (a cluster's /home/… or C:\\…)."""
    return PureWindowsPath(recorded).name if "\\" in recorded else PurePosixPath(recorded).name


def _within(path: Path, folder: Path) -> bool:
    """Whether ``path`` names a place inside ``folder`` (by the names alone; nothing is read)."""
    try:
        return Path(os.path.abspath(path)).is_relative_to(os.path.abspath(folder))
    except (OSError, ValueError):
        return False


def choose_models(result: ExperimentResult, names: list[str] | None) -> list[ModelResult]:
    """The finished models named (the best one when no name is given); unknown names are explained."""
    finished = result.ranked()
    if not finished:
        raise UserError("No model of this study finished, so there is nothing to apply to new texts.",
                        "Run the study again and let at least one model finish.")
    if not names:
        return finished[:1]
    by_name = {model.name.casefold(): model for model in finished}
    chosen, unknown = [], []
    for name in names:
        model = by_name.get(name.casefold())
        (chosen if model else unknown).append(model or name)
    if unknown:
        raise UserError(f"The study has no finished model called {', '.join(repr(n) for n in unknown)}.",
                        "Choose one of: " + "; ".join(model.name for model in finished) + ".")
    return chosen


def open_models(results_folder: str | Path | Callable[[ModelResult], Path | None],
                models: list[ModelResult]) -> list[TrainedModel]:
    """Open each chosen model, found beside the results (or by ``results_folder(model)`` when that is
    a function, e.g. a project's unpacked models); a missing one is explained."""
    opened = []
    for model in models:
        folder = results_folder(model) if callable(results_folder) else model_folder(results_folder, model)
        if folder is None:
            raise UserError(f"The trained model “{model.name}” was not saved with these results.",
                            "Run the study again with this version of TextLab; it saves every trained model.")
        opened.append(open_trained_model(folder, model.name))
    return opened
