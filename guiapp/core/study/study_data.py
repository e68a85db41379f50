"""The coded texts of a study, ready for the engine: texts, category codes, and the test split.

Reads the spec's table (or takes the table the GUI already holds), applies the column mapping,
sets aside texts without a category or without any text (saying how many), and decides the
test texts: from a separate test file, from the split column, or a stratified random hold-out.
In a study where a text can have several categories (``mapping.multi_label``), ``StudyData.y`` is
the indicator matrix (texts × categories, 0/1), coded texts with none of the categories are kept
(and counted in a note), the hold-out and the folds are made by iterative stratification, and each
category needs enough training texts that have it — and enough that do not.

``load_study_data`` is also the one set of data-side checks a study must pass before it runs:
``run_experiment`` calls it, and ``textlab health --spec`` calls it to answer exactly as a run
would (tables that exist, a test file with the study's columns whose texts are not mostly the
training texts again — ``training_overlap.py`` —, at least two categories, and enough texts of each
category for the study's cross-validation folds). Its notes say what the run should not keep
quiet about: category fixes that match no category, some test texts that are also training
texts, a table that changed since the study was set up or while it was being read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Log, ignore_events, sub_progress
from guiapp.core.study.category_fixes import UNMATCHED_HINT, CategoryFixes, unmatched_fixes_note, visible
from guiapp.core.study.label_set_checks import (
    common_categories,
    common_categories_error,
    no_texts_error,
    thresholded_note,
)
from guiapp.core.study.label_sets import LabelSets, category_order, label_matrix
from guiapp.core.study.left_out_words import BRING_BACK, every_category_left_out
from guiapp.core.study.mapping import CodedTexts, apply_mapping, category_labels, check_mapping
from guiapp.core.study.printable import printable
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.split import TrainTestSplit, random_holdout
from guiapp.core.study.training_overlap import check_test_overlap, same_file
from guiapp.core.tables.reader import LoadedTable, file_sha256, read_table
from guiapp.core.tables.rows import row_origin, spreadsheet_rows


@dataclass
class StudyData:
    """Usable coded texts (training table first, then the test file's, if any)."""

    texts: list[str]
    y: np.ndarray  # category index per text; several categories per text: (texts, categories) 0/1 uint8
    categories: list[str]
    rows: list[int]  # spreadsheet row numbers in the file each text came from
    ids: list[object]
    split: TrainTestSplit
    notes: list[str] = field(default_factory=list)
    test_rows_in: str = ""  # where the test texts' rows are counted, in words ("" for the table's one sheet)

    @property
    def multi_label(self) -> bool:
        """A text can have several categories (``y`` is an indicator matrix)."""
        return self.y.ndim == 2


def load_study_data(
    spec: ExperimentSpec,
    spec_file: str | Path | None = None,
    table: pd.DataFrame | None = None,
    on_event: EventCallback = ignore_events,
) -> StudyData:
    notes: list[str] = []
    mapping = spec.data.mapping
    if mapping.multi_label and not mapping.category_columns and mapping.category_column is None:
        raise DataError("The study has no category columns.",
                        "Tick the columns that mark each category, or choose the column that lists each text's "
                        "categories.")
    if mapping.category_column is None and not mapping.multi_label:
        raise DataError("The study has no category column.", "Choose the column that holds your coding.")
    if table is None:
        table = read_study_table(spec, spec_file, notes, on_event=sub_progress(on_event, 0.0, 0.8)).frame
    check_mapping(table, mapping)
    sheet = row_origin(table).sheet
    test_rows_in = f"sheet “{sheet}”" if sheet else ""  # where the test texts' rows are counted
    fixes = spec.data.category_fixes
    coded = [apply_mapping(table, mapping, fixes)]
    main = _usable(coded[0], spreadsheet_rows(table), "the table", notes, fixes)

    test_part: pd.DataFrame | None = None
    if spec.data.test_source:
        loaded_test = read_study_table(spec, spec_file, notes, test=True, on_event=sub_progress(on_event, 0.8, 1.0))
        test_file, test_table = loaded_test.path, loaded_test.frame
        sheet = row_origin(test_table).sheet
        test_rows_in = test_file.name + (f", sheet “{sheet}”" if sheet else "")
        try:
            check_mapping(test_table, mapping)
        except DataError as error:
            raise DataError(
                f"The test file {test_file.name} does not have the study's columns: {error.message}",
                "Give the test file the same column names as the training table.",
            ) from None
        coded.append(apply_mapping(test_table, mapping, fixes))
        test_part = _usable(coded[1], spreadsheet_rows(test_table), "the test file", notes, fixes)
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
    notes += _unmatched_fix_notes(spec, [table, *([test_table] if spec.data.test_source else [])], coded)
    if test_part is not None:  # a model tested on texts it learnt from scores far too well
        one_file = bool(spec.data.source) and same_file(spec.source_path(spec_file), spec.test_source_path(spec_file))
        notes += check_test_overlap(train_part["text"], test_part["text"], how, one_file)

    parts = [train_part] if test_part is None else [train_part, test_part]
    frame = pd.concat(parts)
    if mapping.multi_label:
        categories, y, split = _label_sets_and_split(spec, frame, train_part, test_part, how, coded, notes)
        return _finish(spec, frame, categories, y, split, notes, test_rows_in, on_event)
    categories = category_order(set(frame["category"]))
    if len(set(train_part["category"])) < 2:
        raise DataError(
            "The training texts have only one category, so there is nothing to tell apart.",
            "Code texts of at least two categories.",
        )
    code = {label: index for index, label in enumerate(categories)}
    y = np.array([code[label] for label in frame["category"]], dtype=np.int64)
    if test_part is None:
        single = [(categories[i], 1) for i in np.flatnonzero(np.bincount(y, minlength=len(categories)) == 1)]
        if single:  # a random hold-out cannot put it among both the training and the test texts
            raise fold_size_error(single, spec.evaluation.folds, what="coded text")
        split = random_holdout(y, spec.evaluation.test_share, spec.seed)
    else:
        n_train = len(train_part)
        split = TrainTestSplit(np.arange(n_train), np.arange(n_train, len(frame)), how)
        unseen = sorted(set(test_part["category"]) - set(train_part["category"]))
        if unseen:
            notes.append(
                "Categories only in the test texts (no model can predict them): " + ", ".join(unseen) + "."
            )
    return _finish(spec, frame, categories, y, split, notes, test_rows_in, on_event)


def _finish(spec: ExperimentSpec, frame: pd.DataFrame, categories: list[str], y: np.ndarray, split: TrainTestSplit,
            notes: list[str], test_rows_in: str, on_event: EventCallback) -> StudyData:
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
        test_rows_in=test_rows_in,
    )


def _label_sets_and_split(spec: ExperimentSpec, frame: pd.DataFrame, train_part: pd.DataFrame,
                          test_part: pd.DataFrame | None, how: str, coded: list[CodedTexts],
                          notes: list[str]) -> tuple[list[str], np.ndarray, TrainTestSplit]:
    """Several categories per text: the categories, the indicator matrix of the usable texts
    (training texts first) and the test texts; notes on texts with none of the categories and on
    values between 0 and 1."""
    sets = [part.label_sets for part in coded if part.label_sets is not None]
    present = {label for labels in frame["category"] for label in labels}
    listed = {label for found in sets if found.layout == "indicator" for label in found.categories}
    categories = category_order(present | listed)
    if len(categories) < 2:
        only = f" (“{visible(categories[0])}”)" if categories else ""
        raise DataError(
            f"The coded texts have fewer than two categories{only}, so there is nothing to tell apart.",
            "Choose the columns of at least two categories, or code texts of at least two categories.",
        )
    y = label_matrix(frame["category"], categories)
    n_train = len(train_part)
    counts = y.sum(axis=0)
    never = [categories[k] for k in np.flatnonzero(counts == 0)]
    if never:
        raise no_texts_error(never)
    if test_part is None:
        single = [(categories[k], 1) for k in np.flatnonzero(counts == 1)]
        if single:  # a random hold-out cannot put it among both the training and the test texts
            raise fold_size_error(single, spec.evaluation.folds, what="coded text")
        split = random_holdout(y, spec.evaluation.test_share, spec.seed)
    else:
        split = TrainTestSplit(np.arange(n_train), np.arange(n_train, len(frame)), how)
        unseen = [categories[k] for k in np.flatnonzero(y[:n_train].sum(axis=0) == 0)]
        if len(categories) - len(unseen) < 2:
            raise DataError(
                "The training texts have fewer than two of the categories, so there is nothing to tell apart.",
                "Code training texts of at least two categories.",
            )
        if unseen:
            notes.append("Categories only in the test texts (no model can predict them): " + ", ".join(unseen) + ".")
    none = int((y.sum(axis=1) == 0).sum())
    if none:
        notes.append(f"{none:,} coded text{' has' if none == 1 else 's have'} none of the categories.")
    thresholded = sum(found.thresholded for found in sets)
    if thresholded:
        notes.append(thresholded_note(thresholded))
    return categories, y, split


def _unmatched_fix_notes(spec: ExperimentSpec, tables: list[pd.DataFrame], coded: list[CodedTexts]) -> list[str]:
    """A note when the study's category fixes name categories that none of its tables has."""
    fixes, column = spec.data.category_fixes, spec.data.mapping.category_column
    sets: list[LabelSets] = [part.label_sets for part in coded if part.label_sets is not None]
    if (column is None and not sets) or not (fixes.merge or fixes.leave_out):
        return []
    if sets:  # several categories per text: the categories as the tables write them
        labels = {label for found in sets for label in found.written}
    else:
        labels = {label for table in tables for label in category_labels(table[column]).dropna().unique()}
    where = "the table" if len(tables) == 1 else "the table or the test file"
    text = unmatched_fixes_note(fixes, labels, where)
    return [] if text is None else [f"{text} {UNMATCHED_HINT}"]


def read_study_table(spec: ExperimentSpec, spec_file: str | Path | None, notes: list[str], *, test: bool = False,
                     on_event: EventCallback = ignore_events) -> LoadedTable:
    """The study's table (or test table) as the study file names it; a sheet only for a workbook,
    and a note in ``notes`` when the table changed since the study was set up."""
    path = study_table_path(spec, spec_file, notes, test=test)
    key, sheet = ("test_sheet", spec.data.test_sheet) if test else ("sheet", spec.data.sheet)
    before = _file_state(path)
    loaded = read_table(path, sheet, on_event=on_event)
    notes += changed_while_read_notes(path, before, loaded.sha256)
    if sheet is not None and loaded.sheet is None:
        raise DataError(
            f"[data] {key} is \"{printable(sheet)}\", but {printable(path.name)} is not a workbook and has no sheets.",
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
            f"The study's {what} {printable(path)} does not exist.",
            f"Check [data] {key} = \"{printable(name)}\" in the study file{where}, or move the file there.",
        )
    if spec_file is not None and not Path(name).expanduser().is_absolute():
        folder = Path(spec_file).resolve().parent
        resolved = Path(os.path.normpath(path))
        if not resolved.is_relative_to(folder):
            notes.append(f"The study's {what} is outside the study file's folder: {key} = \"{printable(name)}\" is "
                         f"{printable(resolved)}.")
    return path


def _file_state(path: Path) -> tuple[int, int, int] | None:
    """What changes when a file is saved again or replaced: its inode, size and time of change."""
    try:
        state = path.stat()
    except OSError:
        return None
    return state.st_ino, state.st_size, state.st_mtime_ns


def changed_while_read_notes(path: Path, before: tuple[int, int, int] | None, sha256: str) -> list[str]:
    """A note when the file was saved again or replaced while it was read (its state differs from
    ``before`` and its checksum from ``sha256``, the one taken as the reading began)."""
    if _file_state(path) == before:
        return []
    try:
        now = file_sha256(path)
    except DataError:  # gone or unreadable now: it certainly changed
        now = ""
    if now == sha256:
        return []
    return [f"The file {printable(path.name)} was changed or replaced while TextLab was reading it, so the texts "
            "used may be those of the old version, of the new one, or a mix of both. Run the study again once the "
            "file is saved and nobody is writing to it."]


def changed_file_notes(spec: ExperimentSpec, source: Path, sha256: str) -> list[str]:
    """A note when the table's checksum differs from the one the study was set up with."""
    if spec.data.sha256 and sha256 != spec.data.sha256:
        return [f"The file {printable(source.name)} has changed since the study was set up; results may differ "
                "from earlier runs."]
    return []


def small_categories(y_train: np.ndarray, n_folds: int, categories: list[str] | None = None) -> list[tuple[str, int]]:
    """``(category, training texts)`` of the categories with fewer training texts than folds,
    smallest first (categories with no training text at all are not counted here). ``y_train`` may
    be an indicator matrix (several categories per text): then the texts that have each category."""
    if y_train.ndim == 2:
        counts = y_train.sum(axis=0, dtype=np.int64)
    else:
        counts = np.bincount(y_train, minlength=len(categories) if categories is not None else 0)
    small = [int(i) for i in np.flatnonzero((counts > 0) & (counts < n_folds))]
    names = categories if categories is not None else [str(i) for i in range(len(counts))]
    return sorted(((names[i], int(counts[i])) for i in small), key=lambda item: (item[1], item[0]))


def fold_size_error(small: list[tuple[str, int]], n_folds: int, what: str = "training text",
                    multi_label: bool = False) -> DataError:
    """The run's words for categories too small for the folds: each named (hidden spaces shown),
    counted right, and a suggestion that works (no number of folds helps a single text).
    ``multi_label``: counted are the training texts that have the category, among others."""
    def count(n: int) -> str:
        return f"{n:,} {what}{'' if n == 1 else 's'}"

    names = [f"“{visible(label)}”" for label, _ in small]
    smallest = min(n for _, n in small)
    listed = ", ".join(f"{name} ({n:,})" for name, (_, n) in zip(names[:10], small[:10], strict=True))
    listed += f" and {len(small) - 10:,} more" if len(small) > 10 else ""
    if what == "coded text" and len(small) == 1:
        message = (f"The category {names[0]} has only {count(small[0][1])}, so it cannot be among both the "
                   "training texts and the test texts.")
    elif what == "coded text":
        message = (f"{len(small):,} categories have only 1 coded text, so they cannot be among both the training "
                   f"texts and the test texts: {listed}.")
    elif len(small) == 1 and multi_label:
        n = small[0][1]
        message = (f"Only {count(n)} {'has' if n == 1 else 'have'} the category {names[0]}, fewer than the {n_folds} "
                   "cross-validation folds, so some folds would miss it.")
    elif multi_label:
        message = (f"{len(small):,} categories are each given to fewer training texts than the {n_folds} "
                   f"cross-validation folds, so some folds would miss them: {listed}.")
    elif len(small) == 1:
        message = (f"The category {names[0]} has only {count(small[0][1])}, fewer than the {n_folds} "
                   "cross-validation folds, so some folds would miss it.")
    else:
        message = (f"{len(small):,} categories have fewer training texts than the {n_folds} cross-validation folds, "
                   f"so some folds would miss them: {listed}.")
    it = "it" if len(small) == 1 else "them"
    if smallest < 2:
        hint = (f"No number of folds works with a single text: merge {it} with a related category, leave {it} out "
                "(buttons in the Data step's check, or [data] category_fixes in the study file), or code more texts.")
    else:
        hint = (f"Code more texts of {'this category' if len(small) == 1 else 'these categories'}, merge or leave "
                f"{it} out (the Data step's check offers both), or use at most {smallest} folds.")
    if any(visible(label) != label for label, _ in small):
        hint += " ␣ marks a space at the start or end of a category; “Trim spaces” removes it."
    return DataError(message, hint)


def check_fold_sizes(y_train: np.ndarray, n_folds: int, categories: list[str] | None = None) -> None:
    """Refuse when a category has fewer training texts than cross-validation folds (several
    categories per text: fewer training texts that have it, or that do not have it)."""
    small = small_categories(y_train, n_folds, categories)
    if small:
        raise fold_size_error(small, n_folds, multi_label=y_train.ndim == 2)
    if y_train.ndim == 2:
        common = common_categories(y_train, n_folds, categories)
        if common:
            raise common_categories_error(common, n_folds)


def _usable(coded, rows: np.ndarray, where: str, notes: list[str], fixes: CategoryFixes | None = None) -> pd.DataFrame:
    """Rows with a category and some text; the others are counted in ``notes``. ``rows``: the
    spreadsheet row of each of the table's rows."""
    frame = coded.frame.assign(row=rows)
    left_out = coded.left_out if coded.left_out is not None else pd.Series(False, index=frame.index)
    sets = coded.label_sets
    if sets is not None and sets.left_out_texts and fixes is not None:
        names = ", ".join(f"“{visible(label)}”" for label in fixes.leave_out)
        notes.append(f"{sets.left_out_texts:,} coded texts in {where} have a category the study leaves out "
                     f"({names}); they are used with their other categories.")
    if left_out.any():
        names = ", ".join(f"“{visible(label)}”" for label in (fixes.leave_out if fixes else []))
        notes.append(f"{int(left_out.sum()):,} texts in {where} belong to categories the study leaves out ({names}) "
                     "and are not used.")
    uncoded = frame["category"].isna() & ~left_out
    empty = frame["text"].str.strip().eq("") & frame["category"].notna()
    if uncoded.any():
        notes.append(f"{int(uncoded.sum()):,} texts in {where} have no category yet and are not used.")
    if empty.any():
        notes.append(f"{int(empty.sum()):,} coded rows in {where} have no text and are not used.")
    usable = frame[frame["category"].notna() & ~empty]
    if usable.empty and left_out.any() and not frame["category"].notna().any():
        raise DataError(every_category_left_out(fixes.leave_out if fixes else [], int(left_out.sum()), where),
                        BRING_BACK)
    if usable.empty:
        raise DataError(f"There are no coded texts in {where}.", "Check the category and text columns.")
    return usable
