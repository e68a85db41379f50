"""Column mapping: which columns hold the text, the human-coded category, IDs, splits, metadata.

CONTRACT:

- ``suggest_mapping(frame) -> ColumnMapping``: the longest free-text column as text; a
  low-cardinality column (a few distinct values that repeat) as category; a column named like
  an id with unique values as ID; a column whose values are like train/test as split. Never
  raises on any frame (an empty frame gives an empty mapping).
- ``check_mapping(frame, mapping) -> None``: raises :class:`DataError` with a plain message when
  the mapping cannot be used (no text column, unknown column, category column also used as text,
  a category column that is entirely empty, split column values that are not train/test-like …).
  Choosing *no* category column is allowed here (texts can be coded by a saved model); the
  health report marks it as an error for model comparison.
- ``apply_mapping(frame, mapping) -> CodedTexts``: one row per input row (same order, same
  positions), with ``text`` as str ("" for missing; several text columns joined with
  ``mapping.text_separator``, skipping empty parts), ``category`` as str label or None (uncoded),
  ``id`` (str or None), ``split`` ("train"/"test"/None), plus the metadata columns as they are
  (a metadata column named like one of those four gets " (extra)" added to its name).
  It raises :class:`DataError` only for the structural problems (no text column, unknown
  column, a column in two roles); split values that are not train/test-like become None here
  and are reported by ``check_mapping`` and the health report. ``fixes`` (the study's
  ``[data] category_fixes``) are applied to ``category`` here, the one place both the health
  report and the run read categories from; rows of a left-out category get None and are marked
  in ``CodedTexts.left_out``.
- A study where a text can have several categories (``mapping.multi_label``) reads them with
  :func:`guiapp.core.study.label_sets.read_label_sets`: from one indicator column per category
  (``category_columns``) or from one column that lists them (``category_column`` with
  ``label_separator``). ``category`` then holds per row a tuple of category names in category
  order, ``()`` for a coded text with none of them, None for an uncoded row; the fixes apply to
  each category (a left-out category is dropped from the tuples, the row stays, so ``left_out``
  is all False) and ``CodedTexts.label_sets`` keeps the indicator matrix. ``check_mapping`` then
  also wants a category column (or at least two indicator columns) and indicator cells that are
  0/1-like.
- ``category_label(value) -> str | None``: the label a cell stands for: None for missing or
  whitespace-only; numbers without a fractional part as integers (``1.0`` and the text
  ``"1.0"`` → ``"1"``); dates as ISO dates ("2021-03-04"); other strings kept exactly (spelling
  variants are reported by the health report, not silently merged).

Split values (case and surrounding spaces ignored; ``_``/``-`` count as spaces):
train, training, training set, trainset, and also dev, development, valid, validation,
val (development/validation texts are used for training, since TextLab makes its own validation
folds) → ``"train"``; test, testing, test set, testset, holdout, hold out, held out → ``"test"``.

The rules for single cells live in :mod:`guiapp.core.tables.cell_values`, the guessing in
:mod:`guiapp.core.study.mapping_suggest`; both are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from guiapp.core.errors import DataError
from guiapp.core.study.category_fixes import CategoryFixes, fix_categories
from guiapp.core.study.label_sets import LabelSets, read_label_sets
from guiapp.core.study.mapping_suggest import suggest_roles
from guiapp.core.study.schema import MappingSchema
from guiapp.core.study.schema_section import SchemaSection
from guiapp.core.tables.cell_values import (
    SPLIT_TEST,
    SPLIT_TRAIN,
    TEST_WORDS,
    TRAIN_WORDS,
    category_label,
    category_labels,
    cell_text,
    id_values,
    split_label,
    split_labels,
    text_values,
)

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd


class ColumnMapping(SchemaSection, schema=MappingSchema, where=("data", "mapping")):
    """Which columns of the table play which role (the settings of ``[data.mapping]``). Column
    names are those of the loaded frame."""

    @classmethod
    def from_dict(cls, data: dict) -> ColumnMapping:
        """The mapping of a dictionary as a results folder holds it, taken as it is (unchecked)."""
        return cls(
            text_columns=list(data.get("text_columns", [])),
            category_column=data.get("category_column"),
            id_column=data.get("id_column"),
            split_column=data.get("split_column"),
            metadata_columns=list(data.get("metadata_columns", [])),
            text_separator=str(data.get("text_separator", cls.text_separator)),
            multi_label=bool(data.get("multi_label", False)),
            category_columns=list(data.get("category_columns", [])),
            label_separator=str(data.get("label_separator", cls.label_separator)),
        )


@dataclass
class CodedTexts:
    """The mapped table: columns ``text``, ``category``, ``id``, ``split`` and the metadata."""

    frame: pd.DataFrame
    mapping: ColumnMapping
    left_out: pd.Series | None = None  # rows whose category the study leaves out (category_fixes)
    label_sets: LabelSets | None = None  # several categories per text: the indicator matrix behind ``category``


# --------------------------------------------------------------------------- checking


_ROLE_WORDS = {
    "text": "text",
    "category": "category",
    "id": "ID",
    "split": "split",
    "metadata": "extra information",
}


def _roles(mapping: ColumnMapping) -> list[tuple[str, str]]:
    roles = [(column, "text") for column in mapping.text_columns]
    if mapping.category_column is not None:
        roles.append((mapping.category_column, "category"))
    if mapping.multi_label:
        roles += [(column, "category") for column in mapping.category_columns]
    if mapping.id_column is not None:
        roles.append((mapping.id_column, "id"))
    if mapping.split_column is not None:
        roles.append((mapping.split_column, "split"))
    roles += [(column, "metadata") for column in mapping.metadata_columns]
    return roles


def _short_list(values: Iterable[object], limit: int = 10) -> str:
    values = list(values)
    shown = ", ".join(f"'{value}'" for value in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _check_structure(frame: pd.DataFrame, mapping: ColumnMapping) -> None:
    if not mapping.text_columns:
        raise DataError(
            "No text column is chosen.",
            "Choose the column that holds your texts.",
        )
    columns = set(frame.columns)
    seen: dict[str, str] = {}
    for column, role in _roles(mapping):
        if column not in columns:
            raise DataError(
                f"The column '{column}' is not in the table.",
                f"Choose one of the table's columns: {_short_list(frame.columns)}.",
                details=f"role: {role}; columns: {list(frame.columns)!r}",
            )
        if column in seen:
            first, second = _ROLE_WORDS[seen[column]], _ROLE_WORDS[role]
            what = f"twice as {first}" if first == second else f"both as {first} and as {second}"
            raise DataError(
                f"The column '{column}' is chosen {what}.",
                "Each column can have only one role; choose a different column for one of them.",
            )
        seen[column] = role
    if mapping.multi_label and mapping.category_columns and mapping.category_column is not None:
        raise DataError(
            f"Both one column per category and the column '{mapping.category_column}' that lists categories "
            "are chosen.",
            "Choose one of the two: tick the columns that mark each category, or choose the one column that lists "
            "each text's categories.",
        )


def _check_label_sets(frame: pd.DataFrame, mapping: ColumnMapping) -> None:
    """The categories of a study where a text can have several: chosen, and readable."""
    if not mapping.category_columns and mapping.category_column is None:
        raise DataError(
            "No category columns are chosen for a study where a text can have several categories.",
            "Tick the columns that mark each category (1 or yes where a text has it), or choose the one column "
            "that lists each text's categories.",
        )
    if mapping.category_columns and len(mapping.category_columns) < 2:
        raise DataError(
            f"Only one category column is ticked ('{mapping.category_columns[0]}'); a study where a text can "
            "have several categories needs at least two.",
            "Tick the column of each category. For a single yes/no category, make it a study with one category "
            "per text and use that column as its category column.",
        )
    if len(frame) == 0:
        return
    sets = read_label_sets(frame, mapping)  # raises for cells that are not 0/1-like
    if not sets.coded.any():
        where = ("the ticked category columns" if mapping.category_columns
                 else f"the column '{mapping.category_column}'")
        raise DataError(
            f"There are no coded values in {where}: every cell is empty.",
            "Choose the columns that hold your categories, or code some texts first.",
        )


def check_mapping(frame: pd.DataFrame, mapping: ColumnMapping) -> None:
    """Raise :class:`DataError` if the mapping cannot be used with this table."""
    _check_structure(frame, mapping)
    if mapping.multi_label:
        _check_label_sets(frame, mapping)
    elif mapping.category_column is not None and len(frame) > 0:
        labels = category_labels(frame[mapping.category_column])
        if labels.isna().all():
            raise DataError(
                f"The column '{mapping.category_column}' has no coded values: every cell is empty.",
                "Choose the column that holds your categories, or code some texts first.",
            )
    if mapping.split_column is not None:
        column = frame[mapping.split_column]
        _, unknown = split_labels(column)
        if unknown.any():
            counts = column[unknown].map(cell_text).value_counts()
            shown = ", ".join(f"'{value}' ({count} rows)" for value, count in counts.iloc[:5].items())
            more = f" and {len(counts) - 5} other values" if len(counts) > 5 else ""
            raise DataError(
                f"The split column '{mapping.split_column}' has values that are not 'train' or "
                f"'test': {shown}{more}.",
                "Write train or test in every row of that column (dev and validation count as "
                "train), or choose no split column and let TextLab set texts aside at random.",
            )


# --------------------------------------------------------------------------- applying


def apply_mapping(frame: pd.DataFrame, mapping: ColumnMapping, fixes: CategoryFixes | None = None) -> CodedTexts:
    """The table in TextLab's terms (see the module docstring)."""
    import pandas as pd
    _check_structure(frame, mapping)
    index = pd.RangeIndex(len(frame))
    text: pd.Series | None = None
    for column in mapping.text_columns:
        part = text_values(frame[column]).set_axis(index)
        if text is None:
            text = part
            continue
        joined = text + mapping.text_separator + part
        text = joined.where(text.ne("") & part.ne(""), text.where(part.eq(""), part))
    assert text is not None
    data: dict[str, object] = {"text": text.astype("str")}
    left_out = pd.Series(False, index=index)
    label_sets = None
    if mapping.multi_label and (mapping.category_columns or mapping.category_column is not None):
        label_sets = read_label_sets(frame, mapping, fixes)
        data["category"] = pd.Series(label_sets.tuples(), index=index, dtype=object)
    elif mapping.category_column is not None:
        labels = category_labels(frame[mapping.category_column]).set_axis(index)
        data["category"], left_out = fix_categories(labels, fixes)
    else:
        data["category"] = pd.Series([None] * len(frame), index=index, dtype=object)
    if mapping.id_column is not None:
        ids = id_values(frame[mapping.id_column])
        data["id"] = pd.Series(ids, index=index, dtype=object)
    else:
        data["id"] = pd.Series([None] * len(frame), index=index, dtype=object)
    if mapping.split_column is not None:
        data["split"] = split_labels(frame[mapping.split_column])[0].set_axis(index)
    else:
        data["split"] = pd.Series([None] * len(frame), index=index, dtype=object)
    for column in mapping.metadata_columns:
        data[column if column not in data else f"{column} (extra)"] = frame[column].set_axis(index)
    return CodedTexts(frame=pd.DataFrame(data, index=index), mapping=mapping, left_out=left_out, label_sets=label_sets)

# --------------------------------------------------------------------------- suggesting


def suggest_mapping(frame: pd.DataFrame) -> ColumnMapping:
    """A first guess at the roles of the columns (see the module docstring). Never raises."""
    roles = suggest_roles(frame)
    return ColumnMapping(
        text_columns=[roles.text] if roles.text is not None else [],
        category_column=roles.category,
        id_column=roles.id,
        split_column=roles.split,
    )


__all__ = [
    "SPLIT_TEST",
    "SPLIT_TRAIN",
    "TEST_WORDS",
    "TRAIN_WORDS",
    "CodedTexts",
    "ColumnMapping",
    "apply_mapping",
    "category_label",
    "category_labels",
    "cell_text",
    "check_mapping",
    "split_label",
    "split_labels",
    "suggest_mapping",
]
