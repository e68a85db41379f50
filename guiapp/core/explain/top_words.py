"""The words behind each prediction of new texts: one cell per row ("tax (+0.412), cut (+0.220)"),
for the "top words" column of the exported predictions.

Each text is explained toward the category the model predicted, with the best method the model
allows (:mod:`.choose_method`): exact and quick for linear models, naive Bayes and XGBoost on a bag of
words (thousands of texts a second); combined models through their parts, and leaving words out
with the shortened texts of many texts sharing each model call; integrated gradients for
Transformers, which take seconds per text, so the Predict step estimates the time and asks before a
long job (:mod:`.job_estimate`). Empty texts (no prediction) get an empty cell. Progress is
reported per text (per batch of texts where they are explained together), and raising
``Cancelled`` from ``on_event`` stops between steps.

Where a text can have several categories, each text is explained toward the first category the
model gave it (in category order), or, when it gave none, toward its most probable category; the
cell then starts with that category's name ("economy: tax (+0.412), …"), since the file is read
without the explanation beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from guiapp.core.events import EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.explain.attribution import LINEAR_EXACT, TREE_SHAP
from guiapp.core.explain.category_choice import default_targets
from guiapp.core.explain.choose_method import AUTO, explain_in_chunks, method_for
from guiapp.core.explain.transformer_attributions import DEFAULT_STEPS
from guiapp.core.predict.new_texts import NewTextPredictions, open_models, predict_new_texts, table_texts
from guiapp.core.predict.trained_model import TrainedModel

TOP_WORDS_K = 5
DOCUMENTS_PER_CHUNK = 256  # texts explained together (their shortened texts share model calls)
QUICK_METHODS = frozenset({LINEAR_EXACT, TREE_SHAP})


def is_quick(model: TrainedModel) -> bool:
    """Whether the model's explanations are exact arithmetic (fast) rather than repeated model calls."""
    return method_for(model) in QUICK_METHODS


def quick_in_result(representation: str, classifier: str, chosen_params: dict | None = None) -> bool:
    """:func:`is_quick` read from a study's result, without opening the trained model (the same
    rule :mod:`.choose_method` applies to the opened model; a test keeps the two in step)."""
    params = chosen_params or {}
    linear = classifier == "logistic_regression" or (classifier == "svm" and params.get("kernel", "linear") == "linear")
    if representation == "bow":
        return linear or classifier in ("naive_bayes", "xgboost")
    return representation == "word_vectors" and linear


def slow_models(models: Sequence[TrainedModel]) -> list[str]:
    """The names of the models whose top words take long (integrated gradients or leaving words out)."""
    return [model.name for model in models if not is_quick(model)]


def top_words_for(
    model: TrainedModel,
    texts: Sequence[str],
    predicted: np.ndarray,
    probabilities: np.ndarray,
    *,
    k: int = TOP_WORDS_K,
    method: str = AUTO,
    steps: int = DEFAULT_STEPS,
    on_event: EventCallback = ignore_events,
) -> list[str]:
    """For each text, the ``k`` words that pushed the model most toward its predicted category
    (``predicted``: a category index per text, or a 0/1 row per text where a text can have several;
    −1 for an empty text).

    The texts are explained in chunks of ``DOCUMENTS_PER_CHUNK``; within a chunk, leaving words
    out and combined models explain all texts together (batched model calls)."""
    total = len(texts)
    cells = [""] * total
    predicted = np.asarray(predicted)
    several = predicted.ndim == 2
    answered = predicted[:, 0] >= 0 if several else predicted >= 0
    todo = np.flatnonzero(answered)
    targets = np.full(total, -1, dtype=np.int64)
    if todo.size:
        targets[todo] = default_targets(predicted[todo], np.asarray(probabilities)[todo])
    what = f"{model.name}: finding the words behind each answer"
    on_event(Progress(0.0, what, 0, len(todo)))
    chunks = explain_in_chunks(model, texts, targets, probabilities, todo.tolist(), chunk=DOCUMENTS_PER_CHUNK,
                               describe=lambda done: what, method=method, steps=steps, on_event=on_event)
    for rows, found in chunks:
        for row, attribution in zip(rows, found, strict=True):
            words = attribution.top_words_text(k)
            cells[row] = f"{attribution.target_name}: {words}" if several and words else words
    on_event(Progress(1.0, what, len(todo), len(todo)))
    return cells


def add_top_words(
    found: NewTextPredictions,
    models: Sequence[TrainedModel],
    texts: Sequence[str],
    *,
    k: int = TOP_WORDS_K,
    steps: int = DEFAULT_STEPS,
    on_event: EventCallback = ignore_events,
) -> NewTextPredictions:
    """Fill ``found.top_words`` for every model (in place; returned for convenience)."""
    cells: list[list[str] | None] = []
    for index, (model, predictions) in enumerate(zip(models, found.predictions, strict=True)):
        share = sub_progress(on_event, index / len(models), (index + 1) / len(models))
        cells.append(top_words_for(model, texts, predictions.predicted, predictions.probabilities,
                                   k=k, steps=steps, on_event=share))
    found.top_words = cells
    return found


def predict_with_words(
    models: Sequence[TrainedModel],
    texts: Sequence[str],
    *,
    coded_texts: Sequence[str] | None = None,
    top_words: bool = True,
    steps: int = DEFAULT_STEPS,
    on_event: EventCallback = ignore_events,
) -> NewTextPredictions:
    """Every model's answers for ``texts`` then (when asked) the top words of every prediction.
    The predictions take the first share of the progress bar: a small one when some model
    explains slowly, half when all explanations are exact arithmetic."""
    split = 1.0 if not top_words else (0.1 if slow_models(models) else 0.5)
    found = predict_new_texts(models, texts, coded_texts=coded_texts, on_event=sub_progress(on_event, 0.0, split))
    if top_words:
        add_top_words(found, models, texts, steps=steps, on_event=sub_progress(on_event, split, 1.0))
    return found


def predict_table_with_words(
    model_folders: Sequence[tuple[str, str | Path]],
    frame: pd.DataFrame,
    text_columns: Sequence[str],
    *,
    coded_texts: Sequence[str] | None = None,
    top_words: bool = True,
    steps: int = DEFAULT_STEPS,
    on_event: EventCallback = ignore_events,
) -> NewTextPredictions:
    """Open the trained models (name, folder) and :func:`predict_with_words` the texts of
    ``frame``'s text columns (the Predict step's job)."""
    texts = table_texts(frame, text_columns)
    models = open_models(model_folders, on_event)
    return predict_with_words(models, texts, coded_texts=coded_texts, top_words=top_words, steps=steps,
                              on_event=on_event)
