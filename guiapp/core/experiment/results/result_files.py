"""Writing a study's results to a folder: ``results.json`` and ``predictions.csv``.

``predictions.csv`` has one row per test text and model (long format, easy to filter in Excel or
R): the spreadsheet row, ID, text, the human coding, the model, its prediction, whether they
agree, and one probability column per category (empty where a model gives none). Both files
are written atomically, so an interrupted run never leaves half a file; ``textlab run`` writes
them into a partial folder that is moved into place whole (``output_folder.py``). Schema:
``docs/results-format.md``; the folder: ``docs/results-folder.md``.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from guiapp.core.atomic import write_bytes_atomic, write_text_atomic
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.study.label_sets import LIST_SEPARATOR, NO_CATEGORY

RESULTS_NAME = "results.json"
PREDICTIONS_NAME = "predictions.csv"


def predictions_frame(result: ExperimentResult) -> pd.DataFrame:
    """The long table of test predictions described in the module docstring. Where a text can have
    several categories: ``true_categories`` and ``predicted_categories`` joined by "; ", and ``correct``
    1 when the model got exactly the coded categories."""
    frames = []
    categories = result.categories
    several = result.multi_label

    def named(code) -> str:  # noqa: ANN001 — a category index, or a list of them
        if not several:
            return categories[code]
        return LIST_SEPARATOR.join(categories[index] for index in sorted(code)) or NO_CATEGORY

    truth = "true_categories" if several else "true_category"
    base = pd.DataFrame(
        {
            "row": result.test_rows,
            "id": result.test_ids,
            "text": result.test_texts if result.test_texts else [""] * len(result.test_rows),
            truth: [named(code) for code in result.test_true],
        }
    )
    for model in result.finished_models():
        frame = base.copy()
        frame["model"] = model.name
        frame["predicted_categories" if several else "predicted_category"] = [named(code) for code in model.predictions]
        frame["correct"] = [int(sorted(a) == sorted(b) if several else a == b)
                            for a, b in zip(model.predictions, result.test_true, strict=True)]
        for position, category in enumerate(categories):
            column = f"probability: {category}"
            frame[column] = (
                [row[position] for row in model.probabilities] if model.probabilities is not None else pd.NA
            )
        frames.append(frame)
    if not frames:
        return base.assign(model=pd.Series(dtype=object), predicted_category=pd.Series(dtype=object))
    return pd.concat(frames, ignore_index=True)


def write_results(result: ExperimentResult, folder: str | Path, moved_to: str | Path | None = None) -> list[Path]:
    """Write both files into ``folder`` (created if needed); returns their paths.

    ``moved_to``: where ``folder`` will be moved once complete; the saved models' folders inside
    ``folder`` are then recorded in results.json (and ``result``) by the path they will have there."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if moved_to is not None:
        for model in result.models:
            if model.artefact and Path(model.artefact).is_relative_to(folder):
                model.artefact = str(Path(moved_to) / Path(model.artefact).relative_to(folder))
    buffer = io.StringIO()
    predictions_frame(result).to_csv(buffer, index=False, lineterminator="\n")
    predictions = folder / PREDICTIONS_NAME
    results = folder / RESULTS_NAME
    write_bytes_atomic(predictions, buffer.getvalue().encode("utf-8-sig"))  # BOM: Excel opens UTF-8 right
    write_text_atomic(results, result.to_json(include_texts=False))
    return [results, predictions]
