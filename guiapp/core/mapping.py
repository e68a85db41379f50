"""Column mapping: which columns hold the text, the human-coded category, IDs, splits, metadata.

CONTRACT (implementation to be filled in):

- ``suggest_mapping(frame) -> ColumnMapping``: the longest free-text column as text; a
  low-cardinality column (a few distinct values that repeat) as category; a column named like
  an id with unique values as ID; a column whose values are like train/test as split. Never
  raises on any frame (an empty frame gives an empty mapping).
- ``check_mapping(frame, mapping) -> None``: raises :class:`DataError` with a plain message when
  the mapping cannot be used (no text column, unknown column, category column also used as text,
  a category column that is entirely empty, split column values that are not train/test-like …).
- ``apply_mapping(frame, mapping) -> CodedTexts``: one row per input row (same order, same
  positions), with ``text`` as str ("" for missing; several text columns joined with
  ``mapping.text_separator``, skipping empty parts), ``category`` as str label or None (uncoded),
  ``id`` (str or None), ``split`` ("train"/"test"/None), plus the metadata columns as they are.
- ``category_label(value) -> str | None``: the label a cell stands for: None for missing or
  whitespace-only; numbers without a fractional part as integers ("1.0" → "1"); dates as ISO
  dates ("2021-03-04"); strings kept exactly (spelling variants are reported by the health
  report, not silently merged).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

SPLIT_TRAIN = "train"
SPLIT_TEST = "test"


@dataclass
class ColumnMapping:
    """Which columns of the table play which role. Column names are those of the loaded frame."""

    text_columns: list[str] = field(default_factory=list)
    category_column: str | None = None
    id_column: str | None = None
    split_column: str | None = None
    metadata_columns: list[str] = field(default_factory=list)
    text_separator: str = " "

    def to_dict(self) -> dict:
        return {
            "text_columns": list(self.text_columns),
            "category_column": self.category_column,
            "id_column": self.id_column,
            "split_column": self.split_column,
            "metadata_columns": list(self.metadata_columns),
            "text_separator": self.text_separator,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "ColumnMapping":
        return cls(
            text_columns=list(data.get("text_columns", [])),
            category_column=data.get("category_column"),
            id_column=data.get("id_column"),
            split_column=data.get("split_column"),
            metadata_columns=list(data.get("metadata_columns", [])),
            text_separator=str(data.get("text_separator", " ")),
        )


@dataclass
class CodedTexts:
    """The mapped table: columns ``text``, ``category``, ``id``, ``split`` and the metadata."""

    frame: pd.DataFrame
    mapping: ColumnMapping


def suggest_mapping(frame: pd.DataFrame) -> ColumnMapping:
    raise NotImplementedError


def check_mapping(frame: pd.DataFrame, mapping: ColumnMapping) -> None:
    raise NotImplementedError


def apply_mapping(frame: pd.DataFrame, mapping: ColumnMapping) -> CodedTexts:
    raise NotImplementedError


def category_label(value: object) -> str | None:
    raise NotImplementedError
