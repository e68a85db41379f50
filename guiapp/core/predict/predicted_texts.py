"""The texts predicted on the Predict step as a project keeps them: the table of texts as read, every
model's answers and chances, and where the texts came from.

A project stores them as plain files, never a pickle (``core/project/format.py``):

- the texts: the table as read, in Parquet (each row keeps its number: the uncoded rows of the
  study's own table keep theirs);
- the answers: one Parquet table with one row per text and, per model (numbered from 0 in the
  order of ``models``), its category (``0/predicted``: the category's position, −1 for an empty
  text; where a text can have several categories, ``0/predicted/<k>``, 0 or 1 per category), its
  chance of each category (``0/probability/<k>``) and, when they were asked for, its top words
  (``0/top words``);
- what they are: the models' names and categories, the warnings, where the texts came from
  (:meth:`PredictedTexts.description`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from guiapp.core.predict.new_texts import NewTextPredictions
from guiapp.core.predict.stream import NO_PREDICTION, Predictions

if TYPE_CHECKING:  # pandas loads on first use
    import pandas as pd

DESCRIPTION_VERSION = 1
OWN_ROWS = "the rows of your table without a category"


class UnreadablePredictions(ValueError):
    """The kept predictions do not fit together (damaged, or written by something else)."""


@dataclass
class PredictedTexts:
    """The models' answers (``predictions``) for the rows of ``table``, read from ``source`` (a file's
    path; "" for the uncoded rows of the study's own table)."""

    predictions: NewTextPredictions
    table: pd.DataFrame
    source: str = ""
    sheet: str | None = None
    text_columns: list[str] = field(default_factory=list)

    def source_name(self) -> str:
        """Where the texts came from, in words: the file's name, or the study's own uncoded rows."""
        return Path(self.source).name if self.source else OWN_ROWS

    def description(self) -> dict[str, Any]:
        """What the answers are, as JSON: the models, their categories, the warnings, the source."""
        found = self.predictions
        return {
            "version": DESCRIPTION_VERSION,
            "source": self.source, "sheet": self.sheet, "text_columns": [str(c) for c in self.text_columns],
            "rows": len(self.table),
            "warnings": [str(warning) for warning in found.warnings],
            "models": [{"name": name, "categories": [str(c) for c in predictions.categories],
                        "several": predictions.multi_label, "seconds": float(predictions.seconds),
                        "top_words": found.top_words_of(i) is not None}
                       for i, (name, predictions) in enumerate(zip(found.models, found.predictions, strict=True))],
        }

    def answers(self) -> pd.DataFrame:
        """Every model's answers, one row per text (see the module docstring)."""
        import pandas as pd

        columns: dict[str, Any] = {}
        for i, predictions in enumerate(self.predictions.predictions):
            if predictions.multi_label:
                for k in range(len(predictions.categories)):
                    columns[f"{i}/predicted/{k}"] = predictions.predicted[:, k].astype(np.int8)
            else:
                columns[f"{i}/predicted"] = predictions.predicted.astype(np.int32)
            for k in range(len(predictions.categories)):
                columns[f"{i}/probability/{k}"] = predictions.probabilities[:, k].astype(np.float32)
            words = self.predictions.top_words_of(i)
            if words is not None:
                columns[f"{i}/top words"] = [str(cell) for cell in words]
        return pd.DataFrame(columns, index=pd.RangeIndex(len(self.table)))


def predicted_texts_from(description: Any, answers: pd.DataFrame, table: pd.DataFrame) -> PredictedTexts:
    """The kept predictions again; :class:`UnreadablePredictions` when the parts do not fit."""
    if not isinstance(description, dict) or not isinstance(description.get("models"), list):
        raise UnreadablePredictions("the description of the predictions cannot be read")
    version = description.get("version")
    if not isinstance(version, int) or version < 1 or version > DESCRIPTION_VERSION:
        raise UnreadablePredictions(f"the predictions are of an unknown kind ({version!r})")
    n = len(table)
    if len(answers) != n:
        raise UnreadablePredictions(f"{len(answers)} answers for {n} texts")
    names, found, words = [], [], []
    for i, model in enumerate(description["models"]):
        name, categories = _text(model, "name"), model.get("categories") if isinstance(model, dict) else None
        if not isinstance(categories, list) or not categories or not all(isinstance(c, str) for c in categories):
            raise UnreadablePredictions(f"the categories of {name} cannot be read")
        k = len(categories)
        probabilities = _matrix(answers, [f"{i}/probability/{j}" for j in range(k)], np.float32)
        if model.get("several") is True:
            predicted = _matrix(answers, [f"{i}/predicted/{j}" for j in range(k)], np.int8)
            if not np.isin(predicted, (0, 1, NO_PREDICTION)).all():
                raise UnreadablePredictions(f"the answers of {name} are not 0 or 1")
        else:
            predicted = _matrix(answers, [f"{i}/predicted"], np.int32)[:, 0] if n else np.zeros(0, np.int32)
            if ((predicted < NO_PREDICTION) | (predicted >= k)).any():
                raise UnreadablePredictions(f"an answer of {name} is not one of its categories")
        seconds = model.get("seconds")
        found.append(Predictions(list(categories), predicted, probabilities,
                                 float(seconds) if isinstance(seconds, int | float) else 0.0))
        names.append(name)
        words.append([str(cell) for cell in answers[f"{i}/top words"]] if f"{i}/top words" in answers else None)
    warnings = description.get("warnings") or []
    source, sheet = description.get("source") or "", description.get("sheet")
    columns = description.get("text_columns") or []
    return PredictedTexts(
        NewTextPredictions(names, found, [str(w) for w in warnings if isinstance(w, str)],
                           words if any(w is not None for w in words) else []),
        table, str(source) if isinstance(source, str) else "", sheet if isinstance(sheet, str) else None,
        [str(c) for c in columns if isinstance(c, str)] if isinstance(columns, list) else [])


def _text(model: Any, key: str) -> str:
    value = model.get(key) if isinstance(model, dict) else None
    if not isinstance(value, str) or not value:
        raise UnreadablePredictions(f"a model's {key} cannot be read")
    return value


def _matrix(answers: pd.DataFrame, columns: list[str], dtype: Any) -> np.ndarray:
    missing = [column for column in columns if column not in answers.columns]
    if missing:
        raise UnreadablePredictions(f"the answers lack the column {missing[0]!r}")
    try:
        values = answers[columns].to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise UnreadablePredictions(f"the answers are not numbers ({error})") from None
    if np.dtype(dtype).kind == "i" and (not np.isfinite(values).all() or (values != np.round(values)).any()):
        raise UnreadablePredictions("a predicted category is not a whole number")
    return values.astype(dtype).reshape(len(answers), len(columns))
