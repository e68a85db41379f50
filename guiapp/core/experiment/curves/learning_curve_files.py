"""Writing a learning curve to a folder: ``learning-curve.json`` and ``learning-curve.csv``.

The CSV is long (one row per model, size and repeat; easy to plot in Excel or R): model, size,
repeat, macro_f1, then one ``f1: CATEGORY`` column per category, then the seconds the fit took.
Where a model's curve is over the examples per category shown to a language model rather than over
coded training texts, a ``size_counts`` column after ``size`` says which each row's size counts.
Both files are written atomically; ``textlab learning-curve`` writes them into a partial folder that
is moved into place whole (``output_folder.py``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from guiapp.core.atomic import write_bytes_atomic, write_text_atomic
from guiapp.core.experiment.curves.learning_curve_results import LearningCurveResult

CURVE_JSON_NAME = "learning-curve.json"
CURVE_CSV_NAME = "learning-curve.csv"


def curve_frame(result: LearningCurveResult) -> pd.DataFrame:
    """The long table described in the module docstring."""
    columns = ["model", "size", "repeat", "macro_f1", *(f"f1: {name}" for name in result.categories), "seconds"]
    rows = [
        [model.name, point.size, point.repeat, point.macro_f1, *point.category_f1, point.seconds]
        for model in result.models
        for point in model.points
    ]
    frame = pd.DataFrame(rows, columns=columns)
    if any(model.over_examples for model in result.models):
        frame.insert(2, "size_counts", [model.axis for model in result.models for _ in model.points])
    return frame


def write_learning_curve(result: LearningCurveResult, folder: str | Path) -> list[Path]:
    """Write both files into ``folder`` (created if needed); returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    curve_frame(result).to_csv(buffer, index=False, lineterminator="\n")
    table, document = folder / CURVE_CSV_NAME, folder / CURVE_JSON_NAME
    write_bytes_atomic(table, buffer.getvalue().encode("utf-8-sig"))  # BOM: Excel opens UTF-8 right
    write_text_atomic(document, result.to_json())
    return [document, table]
