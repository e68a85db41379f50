"""Small tables of new texts with predictions of two models, for the export tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

from guiapp.core.export.predictions import ModelPredictions

CATEGORIES = ["Economy", "Health", "Foreign affairs"]


def new_texts(rows: int, seed: int = 0) -> pd.DataFrame:
    """A user's table: an ID, a text, a number with gaps, a date, a yes/no and a mixed column."""
    rng = np.random.default_rng(seed)
    score = rng.random(rows)
    score[::7] = np.nan
    mixed = np.array([1, "a", None, 2.5], dtype=object)[np.arange(rows) % 4]
    return pd.DataFrame(
        {
            "ID": np.arange(100, 100 + rows),
            "Text": [f"Text {i} über Steuern" for i in range(rows)],
            "Score": score,
            "Date": pd.date_range("2021-01-01", periods=rows, freq="D"),
            "Checked": rng.random(rows) > 0.5,
            "Mixed": mixed,
        },
        index=pd.RangeIndex(5, 5 + rows),  # not 0-based, like a filtered table
    )


def two_models(rows: int, seed: int = 1, top_words: bool = True) -> list[ModelPredictions]:
    rng = np.random.default_rng(seed)
    models = []
    for position, name in enumerate(["SVM · Basic BOW", "Logistic regression · Sentence embeddings"]):
        probabilities = rng.dirichlet(np.ones(len(CATEGORIES)), rows).astype(np.float32)
        words = [f"tax (+0.{i % 10}1), cut (+0.22)" for i in range(rows)] if top_words and position == 0 else None
        models.append(ModelPredictions(name, CATEGORIES, probabilities.argmax(axis=1), probabilities, words))
    return models
