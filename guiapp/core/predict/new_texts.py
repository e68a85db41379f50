"""Predict the texts of a table nobody has coded yet, with one or several trained models (the Predict
step and `textlab predict` add the top words on top: ``core/explain/top_words.py``).

The same mapping as for coded texts says which column(s) hold the text; the category column is not
needed (when the table has one, e.g. the uncoded rows of the study's own table, it is ignored).
Each model answers in chunks (:mod:`.stream`); before that, the new texts are compared with the
coded texts the model learnt from (:mod:`.text_checks`) and the warnings are logged and returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events, sub_progress
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.stream import DEFAULT_CHUNK_SIZE, Predictions, predict_in_chunks
from guiapp.core.predict.text_checks import compare_profiles, profile_texts
from guiapp.core.predict.trained_model import TrainedModel
from guiapp.core.study.mapping import ColumnMapping, apply_mapping
from guiapp.core.study.mapping_suggest import suggest_roles
from guiapp.core.tables.cell_values import category_labels

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd


@dataclass
class NewTextPredictions:
    """Every model's answers for the rows of one table, in the table's order."""

    models: list[str]
    predictions: list[Predictions]
    warnings: list[str] = field(default_factory=list)
    top_words: list[list[str] | None] = field(default_factory=list)  # per model, when asked: one cell per text

    def top_words_of(self, index: int) -> list[str] | None:
        return self.top_words[index] if index < len(self.top_words) else None


def texts_of(frame: pd.DataFrame, mapping: ColumnMapping) -> list[str]:
    """The text of each row (several text columns joined as for the coded texts)."""
    if not mapping.text_columns:
        raise UserError("No column is marked as holding the texts.", "Choose the text column of the new table.")
    texts_only = replace(mapping, category_column=None, id_column=None, split_column=None, metadata_columns=[])
    return apply_mapping(frame, texts_only).frame["text"].tolist()


def text_columns_for(frame: pd.DataFrame, study_columns: Sequence[str]) -> list[str]:
    """The text column(s) of a new table: the study's own when the table has them all, else the
    column that looks most like free text (the user can change it)."""
    present = [column for column in study_columns if column in frame.columns]
    if present and len(present) == len(study_columns):
        return present
    guess = suggest_roles(frame).text
    return present or ([guess] if guess is not None else [])


def uncoded_rows(frame: pd.DataFrame, mapping: ColumnMapping) -> pd.DataFrame:
    """The rows of the study's own table that have a text but no category yet, with their columns
    (one 0/1 column per category: every one of them empty)."""
    indicators = [c for c in mapping.category_columns if c in frame.columns] if mapping.multi_label else []
    if not indicators and (mapping.category_column is None or mapping.category_column not in frame.columns):
        return frame.iloc[0:0]
    texts_only = replace(mapping, category_column=None, id_column=None, split_column=None, metadata_columns=[],
                         multi_label=False, category_columns=[])
    has_text = apply_mapping(frame, texts_only).frame["text"].map(bool).to_numpy()
    if indicators:
        from guiapp.core.study.label_sets import indicator_value

        no_category = frame[indicators].map(lambda value: indicator_value(value) is None).all(axis=1).to_numpy()
        return frame.loc[has_text & no_category]
    no_category = category_labels(frame[mapping.category_column]).isna().to_numpy()
    return frame.loc[has_text & no_category]


def predict_new_texts(
    models: Sequence[TrainedModel],
    texts: Sequence[str],
    *,
    coded_texts: Sequence[str] | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    on_event: EventCallback = ignore_events,
) -> NewTextPredictions:
    """Each model's answers for ``texts``; ``coded_texts`` (a sample of what the models learnt
    from, e.g. the study's test texts) enables the warnings about language and length."""
    if not models:
        raise UserError("No trained model was chosen.", "Tick at least one model to apply to the new texts.")
    warnings: list[str] = []
    if coded_texts:
        seen: set[tuple[int | None, int | None]] = set()
        for model in models:
            key = (id(model.tokenizer) if model.tokenizer is not None else None, model.max_tokens)
            if key in seen:
                continue
            seen.add(key)
            coded = profile_texts(coded_texts, tokenizer=model.tokenizer, limit=model.max_tokens)
            new = profile_texts(texts, tokenizer=model.tokenizer, limit=model.max_tokens)
            warnings += [w for w in compare_profiles(coded, new) if w not in warnings]
    for warning in warnings:
        on_event(Log(warning, "warning"))
    results = []
    for index, model in enumerate(models):
        share = sub_progress(on_event, index / len(models), (index + 1) / len(models))
        if hasattr(model, "among_examples"):
            model.among_examples = 0  # counted for these texts only
        results.append(predict_in_chunks(model.answer, texts, model.categories,
                                         chunk_size=answer_chunk_size(model, chunk_size),
                                         on_event=share, what=f"{model.name}: predicting",
                                         multi_label=model.multi_label))
        shown = int(getattr(model, "among_examples", 0))  # a language model with your codebook
        if shown:
            warning = (f"{model.name}: {shown:,} of the new texts {'is' if shown == 1 else 'are'} among the examples "
                       "the language model was shown with your coding, so its answers for them largely repeat "
                       "your coding.")
            warnings.append(warning)
            on_event(Log(warning, "warning"))
        on_event(Log(f"{model.name}: {len(texts) - results[-1].n_empty:,} texts predicted in "
                     f"{results[-1].seconds:.1f} s" + (f"; {results[-1].n_empty:,} empty {'text' if results[-1].n_empty == 1 else 'texts'} left out."
                                                       if results[-1].n_empty else ".")))
    return NewTextPredictions([model.name for model in models], results, warnings)


def answer_chunk_size(model: TrainedModel, chunk_size: int = DEFAULT_CHUNK_SIZE) -> int:
    """How many texts ``model`` answers at once: ``chunk_size``, or fewer for a model that reads
    slowly (a language model with your codebook, or a combination with one among its parts), so
    that progress moves and Cancel stops soon."""
    sizes = [int(getattr(part, "chunk_size", chunk_size)) for part in [model, *getattr(model, "parts", [])]]
    return max(1, min([chunk_size, *sizes]))


def category_counts(found: NewTextPredictions) -> pd.DataFrame:
    """How many texts each model put in each category: one row per category, per model the count
    and its share of the predicted texts (empty texts are not counted; where a text can have several
    categories, it counts in each, so the shares can add up to more than one)."""
    import pandas as pd
    columns: dict[str, object] = {}
    categories: list[str] = []
    for predictions in found.predictions:
        categories += [c for c in predictions.categories if c not in categories]
    for name, predictions in zip(found.models, found.predictions, strict=True):
        answered = predictions.predicted[predictions.answered]
        if predictions.multi_label:  # a text counts in each of its categories; shares of the texts
            counts = answered.sum(axis=0, dtype=np.int64)
            total = max(int(answered.shape[0]), 1)
        else:
            counts = np.bincount(answered, minlength=len(predictions.categories))
            total = max(int(answered.size), 1)
        by_name = dict(zip(predictions.categories, counts.tolist(), strict=True))
        columns[f"{name}: texts"] = [by_name.get(c, 0) for c in categories]
        columns[f"{name}: share"] = [by_name.get(c, 0) / total for c in categories]
    return pd.DataFrame(columns, index=pd.Index(categories, name="category"))


def open_models(model_folders: Sequence[tuple[str, str | Path]], on_event: EventCallback = ignore_events,
                ) -> list[TrainedModel]:
    """Open the trained models (name, folder)."""
    on_event(Progress(None, "Opening the trained models"))
    return [open_trained_model(folder, name) for name, folder in model_folders]


def table_texts(frame: pd.DataFrame, text_columns: Sequence[str]) -> list[str]:
    """The texts of ``frame``'s text columns; a table without any text gets a message."""
    if not text_columns:
        raise UserError("No column is ticked as holding the texts.", "Tick the column with the texts to predict.")
    texts = texts_of(frame, ColumnMapping(text_columns=list(text_columns)))
    if not any(texts):
        raise UserError("Every text in the chosen column is empty, so there is nothing to predict.",
                        "Tick the column that holds the texts.")
    return texts
