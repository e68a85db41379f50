"""One model's predictions of new texts, and the table that puts them beside the user's own columns.

The exported table is the user's original table, its columns untouched, followed by one block per
model: ``<model>: predicted category`` (``<model>: predicted categories``, "economy; health", where a
text can have several), ``<model>: probability <category>`` per category and, when given,
``<model>: top words``. Excel, CSV and Parquet all write this same table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from guiapp.core.predict.stream import category_list
from guiapp.core.tables.rows import copy_row_origin

PREDICTED = "predicted category"
PREDICTED_SEVERAL = "predicted categories"  # where a text can have several: "economy; health"
PROBABILITY = "probability"
TOP_WORDS = "top words"


@dataclass
class ModelPredictions:
    """What one trained model says about every row of a table of new texts."""

    name: str
    categories: list[str]
    predicted: np.ndarray  # category index per row (int); -1: no prediction (an empty text), left blank
    probabilities: np.ndarray  # rows × categories (float32)
    top_words: list[str] | None = None  # e.g. "tax (+0.41), cut (+0.22)" per row

    def __post_init__(self) -> None:
        self.categories = [str(category) for category in self.categories]
        self.predicted = np.asarray(self.predicted)
        self.probabilities = np.asarray(self.probabilities)
        several = self.predicted.ndim == 2
        if self.predicted.ndim != 1 and not (several and self.predicted.shape[1] == len(self.categories)):
            raise ValueError(f"{self.name}: predicted must be one index per row, or one 0/1 row per text")
        rows = len(self.predicted)
        if self.probabilities.shape != (rows, len(self.categories)):
            raise ValueError(
                f"{self.name}: probabilities have shape {self.probabilities.shape}, "
                f"expected ({rows}, {len(self.categories)})"
            )
        highest = 1 if several else len(self.categories) - 1
        if rows and (self.predicted.min() < -1 or self.predicted.max() > highest):
            raise ValueError(f"{self.name}: a predicted index is not a category")
        if self.top_words is not None and len(self.top_words) != rows:
            raise ValueError(f"{self.name}: top_words has {len(self.top_words)} rows, expected {rows}")

    @property
    def rows(self) -> int:
        return len(self.predicted)

    @property
    def multi_label(self) -> bool:
        return self.predicted.ndim == 2


@dataclass
class ModelColumns:
    """Where one model's columns go in the exported table (positions count from 0)."""

    model: ModelPredictions
    predicted: str
    probabilities: list[str]
    top_words: str | None
    first: int  # position of the predicted-category column
    block: int = field(default=0)  # the model's position among the models

    @property
    def names(self) -> list[str]:
        return [self.predicted, *self.probabilities, *([self.top_words] if self.top_words else [])]


def _unique(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        candidate = f"{name} ({number})"
        number += 1
    taken.add(candidate)
    return candidate


def check_rows(table: pd.DataFrame, models: Sequence[ModelPredictions]) -> None:
    for model in models:
        if model.rows != len(table):
            raise ValueError(f"{model.name}: {model.rows} predictions for a table of {len(table)} rows")


def model_columns(table: pd.DataFrame, models: Sequence[ModelPredictions]) -> list[ModelColumns]:
    """The column names of every model's block, made unique against the user's columns."""
    taken = {str(column) for column in table.columns}
    model_names: set[str] = set()
    position = len(table.columns)
    blocks = []
    for index, model in enumerate(models):
        label = _unique(model.name, model_names)
        predicted = _unique(f"{label}: {PREDICTED_SEVERAL if model.multi_label else PREDICTED}", taken)
        probabilities = [_unique(f"{label}: {PROBABILITY} {category}", taken) for category in model.categories]
        top = _unique(f"{label}: {TOP_WORDS}", taken) if model.top_words is not None else None
        block = ModelColumns(model, predicted, probabilities, top, position, index)
        blocks.append(block)
        position += len(block.names)
    return blocks


def model_frame(block: ModelColumns, start: int, stop: int) -> pd.DataFrame:
    """One model's columns for rows ``start:stop`` (probabilities stay float32)."""
    model = block.model
    predicted = model.predicted[start:stop]
    if model.multi_label:  # "economy; health", none for an empty text
        cells = [category_list(row, model.categories) if row[0] >= 0 else None for row in predicted]
        data: dict[str, object] = {block.predicted: np.asarray(cells, dtype=object)}
    else:
        names = np.asarray([*model.categories, None], dtype=object)  # the last: no prediction
        data = {block.predicted: names[np.where(predicted >= 0, predicted, len(model.categories))]}
    probabilities = model.probabilities[start:stop]
    for position, column in enumerate(block.probabilities):
        data[column] = probabilities[:, position]
    if block.top_words is not None:
        data[block.top_words] = np.asarray(model.top_words[start:stop], dtype=object)  # type: ignore[index]
    return pd.DataFrame(data)


def predictions_table(
    table: pd.DataFrame, models: Sequence[ModelPredictions], start: int = 0, stop: int | None = None
) -> pd.DataFrame:
    """The exported table (rows ``start:stop``): the user's columns, then each model's block.

    ``table`` itself is not changed; the result keeps ``table``'s index and its record of the
    spreadsheet rows, so a preview still names each text's own row.
    """
    check_rows(table, models)
    stop = len(table) if stop is None else stop
    original = table.iloc[start:stop]
    if not models:
        return original.copy()
    blocks = model_columns(table, models)
    parts = [original, *(model_frame(block, start, stop).set_axis(original.index) for block in blocks)]
    return copy_row_origin(table, pd.concat(parts, axis=1))
