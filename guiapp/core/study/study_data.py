"""The coded texts of a study, ready for the engine: texts, category codes, and the test split.

Reads the spec's table (or takes the table the GUI already holds), applies the column mapping,
sets aside texts without a category or without any text (saying how many), and decides the
test texts: from a separate test file, from the split column, or a stratified random hold-out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Log, ignore_events, sub_progress
from guiapp.core.study.mapping import apply_mapping, check_mapping
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.split import TrainTestSplit, random_holdout
from guiapp.core.tables.reader import read_table
from guiapp.core.tables.rows import spreadsheet_row


@dataclass
class StudyData:
    """Usable coded texts (training table first, then the test file's, if any)."""

    texts: list[str]
    y: np.ndarray  # category index per text
    categories: list[str]
    rows: list[int]  # spreadsheet row numbers in the file each text came from
    ids: list[object]
    split: TrainTestSplit
    notes: list[str] = field(default_factory=list)


def category_order(labels: set[str]) -> list[str]:
    """Categories in a natural order: numerically when they are numbers ("2" before "10")."""

    def key(label: str) -> tuple:
        parts = re.split(r"(\d+)", label)
        return tuple((0, int(part)) if part.isdigit() else (1, part.casefold()) for part in parts)

    return sorted(labels, key=key)


def load_study_data(
    spec: ExperimentSpec,
    spec_file: str | Path | None = None,
    table: pd.DataFrame | None = None,
    on_event: EventCallback = ignore_events,
) -> StudyData:
    notes: list[str] = []
    mapping = spec.data.mapping
    if mapping.category_column is None:
        raise DataError("The study has no category column.", "Choose the column that holds your coding.")
    if table is None:
        source = spec.source_path(spec_file)
        loaded = read_table(source, spec.data.sheet, on_event=sub_progress(on_event, 0.0, 0.8))
        table = loaded.frame
        if spec.data.sha256 and loaded.sha256 != spec.data.sha256:
            notes.append(
                f"The file {source.name} has changed since the study was set up; results may differ from earlier runs."
            )
    check_mapping(table, mapping)
    main = _usable(apply_mapping(table, mapping).frame, "the table", notes)

    test_part: pd.DataFrame | None = None
    test_file = spec.test_source_path(spec_file)
    if test_file is not None:
        test_table = read_table(test_file, spec.data.test_sheet, on_event=sub_progress(on_event, 0.8, 1.0)).frame
        try:
            check_mapping(test_table, mapping)
        except DataError as error:
            raise DataError(
                f"The test file {test_file.name} does not have the study's columns: {error.message}",
                "Give the test file the same column names as the training table.",
            ) from None
        test_part = _usable(apply_mapping(test_table, mapping).frame, "the test file", notes)
        train_part = main
        how = "test file"
    elif mapping.split_column is not None:
        missing = main["split"].isna()
        if missing.any():
            notes.append(f"{int(missing.sum()):,} texts with an empty split cell are used for training.")
        test_part = main[main["split"].eq("test")]
        train_part = main[~main["split"].eq("test")]
        how = "split column"
        if test_part.empty:
            raise DataError(
                f"No coded text is marked 'test' in the split column '{mapping.split_column}'.",
                "Mark some rows as test, or choose no split column to set texts aside at random.",
            )
    else:
        train_part, how = main, "random hold-out"
    if train_part.empty:
        raise DataError("There are no coded training texts.", "Code some texts, then run the study again.")

    parts = [train_part] if test_part is None else [train_part, test_part]
    frame = pd.concat(parts)
    categories = category_order(set(frame["category"]))
    if len(set(train_part["category"])) < 2:
        raise DataError(
            "The training texts have only one category, so there is nothing to tell apart.",
            "Code texts of at least two categories.",
        )
    code = {label: index for index, label in enumerate(categories)}
    y = np.array([code[label] for label in frame["category"]], dtype=np.int64)
    if test_part is None:
        split = random_holdout(y, spec.evaluation.test_share, spec.seed)
    else:
        n_train = len(train_part)
        split = TrainTestSplit(np.arange(n_train), np.arange(n_train, len(frame)), how)
        unseen = sorted(set(test_part["category"]) - set(train_part["category"]))
        if unseen:
            notes.append(
                "Categories only in the test texts (no model can predict them): " + ", ".join(unseen) + "."
            )
    for note in notes:
        on_event(Log(note, "warning"))
    return StudyData(
        texts=frame["text"].tolist(),
        y=y,
        categories=categories,
        rows=[int(row) for row in frame["row"]],
        ids=[None if pd.isna(value) else value for value in frame["id"]],
        split=split,
        notes=notes,
    )


def _usable(frame: pd.DataFrame, where: str, notes: list[str]) -> pd.DataFrame:
    """Rows with a category and some text; the others are counted in ``notes``."""
    frame = frame.assign(row=[spreadsheet_row(position) for position in range(len(frame))])
    uncoded = frame["category"].isna()
    empty = frame["text"].str.strip().eq("") & ~uncoded
    if uncoded.any():
        notes.append(f"{int(uncoded.sum()):,} texts in {where} have no category yet and are not used.")
    if empty.any():
        notes.append(f"{int(empty.sum()):,} coded rows in {where} have no text and are not used.")
    usable = frame[~uncoded & ~empty]
    if usable.empty:
        raise DataError(f"There are no coded texts in {where}.", "Check the category and text columns.")
    return usable
