"""The trained models of a finished study, found from its results folder (``textlab run --out``).

``results.json`` lists the models; each finished model was saved in ``models/<model folder>``
beside it. The folder may have been moved or copied since the run, so a model is looked for
there first and at the path recorded during the run second. A folder is read only when its
manifest (``textlab-results.json``, written last) is there and every file matches it, so results
of a stopped run, or files of two runs mixed, are refused with a message (``results_manifest``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from guiapp.core.errors import UserError
from guiapp.core.experiment.artefacts import model_folder_name
from guiapp.core.experiment.results import ExperimentResult, ModelResult
from guiapp.core.experiment.results_manifest import MANIFEST_NAME, check_results_folder
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.trained_model import TrainedModel

RESULTS_FILE = "results.json"
PREDICTIONS_FILE = "predictions.csv"


def read_results(folder: str | Path) -> ExperimentResult:
    """The study's results from a results folder (or its results.json), checked against its manifest."""
    path = Path(folder)
    path = (path.parent if path.suffix.lower() == ".json" else path) / RESULTS_FILE
    if not path.is_file() and not (path.parent / MANIFEST_NAME).is_file():
        raise UserError(f"There are no study results at {path.parent}.",
                        "Name the folder that `textlab run … --out FOLDER` wrote (it holds results.json).")
    check_results_folder(path.parent)
    try:
        result = ExperimentResult.from_json(path.read_text(encoding="utf-8"))
    except (ValueError, KeyError, TypeError) as error:
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
    """Where ``model``'s trained model is now: beside the results, else where the run saved it."""
    base = Path(results_folder)
    base = base.parent if base.suffix.lower() == ".json" else base
    candidates = [base / "models" / model_folder_name(model.name)]
    if model.artefact:
        candidates.append(Path(model.artefact))
    return next((path for path in candidates if path.is_dir()), None)


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
