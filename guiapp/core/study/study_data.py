"""The coded texts of a study, ready for the engine: texts, category codes, and the test split.

Reads the spec's table (or takes the table the GUI already holds), applies the column mapping,
sets aside texts without a category or without any text (saying how many), and decides the
test texts: from a separate test file, from the split column, or a stratified random hold-out.

``load_study_data`` is also the one set of data-side checks a study must pass before it runs:
``run_experiment`` calls it, and ``textlab health --spec`` calls it to answer exactly as a run
would (tables that exist, a test file with the study's columns, at least two categories, and
enough texts of each category for the study's cross-validation folds).
"""

from __future__ import annotations

import os
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
from guiapp.core.tables.reader import LoadedTable, read_table
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
        table = read_study_table(spec, spec_file, notes, on_event=sub_progress(on_event, 0.0, 0.8)).frame
    check_mapping(table, mapping)
    main = _usable(apply_mapping(table, mapping).frame, "the table", notes)

    test_part: pd.DataFrame | None = None
    if spec.data.test_source:
        loaded_test = read_study_table(spec, spec_file, notes, test=True, on_event=sub_progress(on_event, 0.8, 1.0))
        test_file, test_table = loaded_test.path, loaded_test.frame
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
    check_fold_sizes(y[split.train], spec.evaluation.folds, categories)
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


def read_study_table(spec: ExperimentSpec, spec_file: str | Path | None, notes: list[str], *, test: bool = False,
                     on_event: EventCallback = ignore_events) -> LoadedTable:
    """The study's table (or test table) as the study file names it; a sheet only for a workbook,
    and a note in ``notes`` when the table changed since the study was set up."""
    path = study_table_path(spec, spec_file, notes, test=test)
    key, sheet = ("test_sheet", spec.data.test_sheet) if test else ("sheet", spec.data.sheet)
    loaded = read_table(path, sheet, on_event=on_event)
    if sheet is not None and loaded.sheet is None:
        raise DataError(
            f"[data] {key} is \"{sheet}\", but {path.name} is not a workbook and has no sheets.",
            f"Leave {key} out of the study file for a CSV or Parquet file; it is only for workbooks (.xlsx, .ods …).",
        )
    if not test:
        notes += changed_file_notes(spec, path, loaded.sha256)
    return loaded


def study_table_path(spec: ExperimentSpec, spec_file: str | Path | None, notes: list[str], *, test: bool = False) -> Path:
    """The study's table (or test table), which must exist; a relative path that climbs out of
    the study file's folder is allowed but named in ``notes``, resolved, so nobody is surprised."""
    key, name = ("test_source", spec.data.test_source) if test else ("source", spec.data.source)
    path = spec.test_source_path(spec_file) if test else spec.source_path(spec_file)
    assert path is not None
    what = "test file" if test else "table"
    if not path.exists():
        where = " (relative to the study file's folder)" if spec_file is not None and not Path(name).is_absolute() else ""
        raise DataError(
            f"The study's {what} {path} does not exist.",
            f"Check [data] {key} = \"{name}\" in the study file{where}, or move the file there.",
        )
    if spec_file is not None and not Path(name).expanduser().is_absolute():
        folder = Path(spec_file).resolve().parent
        resolved = Path(os.path.normpath(path))
        if not resolved.is_relative_to(folder):
            notes.append(f"The study's {what} is outside the study file's folder: {key} = \"{name}\" is {resolved}.")
    return path


def changed_file_notes(spec: ExperimentSpec, source: Path, sha256: str) -> list[str]:
    """A note when the table's checksum differs from the one the study was set up with."""
    if spec.data.sha256 and sha256 != spec.data.sha256:
        return [f"The file {source.name} has changed since the study was set up; results may differ from earlier runs."]
    return []


def check_fold_sizes(y_train: np.ndarray, n_folds: int, categories: list[str] | None = None) -> None:
    """Refuse when the smallest category has fewer training texts than cross-validation folds."""
    counts = np.bincount(y_train)
    present = np.flatnonzero(counts)
    smallest = int(present[np.argmin(counts[present])])
    size = int(counts[smallest])
    if size < n_folds:
        name = f" ('{categories[smallest]}')" if categories is not None else ""
        raise DataError(
            f"The smallest category{name} has only {size} training texts, fewer than the {n_folds} "
            "cross-validation folds, so some folds would miss it.",
            f"Code more texts for the rare categories, merge them, or use at most {max(size, 2)} folds.",
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
