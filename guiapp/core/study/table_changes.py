"""What changed in a study's table: rows, categories, and the column roles that could be kept.

Used when a table is read again (Reload on the Data step) and when a study file is opened whose
table is no longer the one it was saved with. Pure pandas; the sentences are for researchers.

- ``category_set(frame, column) -> list[str]``: the category labels of a column, sorted.
- ``keep_mapping(mapping, columns) -> (ColumnMapping, lost)``: the mapping without the columns
  that are gone; ``lost`` lists ``(column, role)`` pairs that lost their role.
- ``compare_tables(before, after, category_column)`` and ``compare_with_record(rows, categories,
  after, category_column)`` give a :class:`TableChanges`; its ``sentences()`` say what changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.cell_values import category_labels

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

ROLE_WORDS = {"text": "text column", "category": "category column", "id": "ID column",
              "split": "train/test column", "metadata": "kept for later"}


@dataclass
class TableChanges:
    """The differences between two versions of a table (``None`` where unknown)."""

    rows_before: int | None = None
    rows_after: int = 0
    new_categories: list[str] = field(default_factory=list)
    gone_categories: list[str] = field(default_factory=list)
    gone_columns: list[str] = field(default_factory=list)
    new_columns: list[str] = field(default_factory=list)
    lost_roles: list[tuple[str, str]] = field(default_factory=list)  # (column, role) no longer in the table

    @property
    def any(self) -> bool:
        return bool(
            (self.rows_before is not None and self.rows_before != self.rows_after)
            or self.new_categories or self.gone_categories or self.gone_columns or self.new_columns or self.lost_roles
        )

    def sentences(self) -> list[str]:
        """What changed, one short phrase each ("1,122 → 1,130 rows", "new category “Green”")."""
        parts: list[str] = []
        if self.rows_before is not None and self.rows_before != self.rows_after:
            difference = self.rows_after - self.rows_before
            what = f"{abs(difference):,} {'added' if difference > 0 else 'removed'}"
            parts.append(f"{self.rows_before:,} → {self.rows_after:,} rows ({what})")
        if self.new_categories:
            parts.append(_named("new category", "new categories", self.new_categories))
        if self.gone_categories:
            parts.append(_named("category", "categories", self.gone_categories) + " no longer in the file")
        if self.new_columns:
            parts.append(_named("new column", "new columns", self.new_columns))
        lost = {column for column, _role in self.lost_roles}
        for column, role in self.lost_roles:
            parts.append(f"column “{column}” is gone, so it is no longer the {ROLE_WORDS.get(role, role)}"
                         if role != "metadata" else f"column “{column}” is gone, so it is no longer kept for later")
        others = [column for column in self.gone_columns if column not in lost]
        if others:
            parts.append(_named("column", "columns", others) + " " + ("is" if len(others) == 1 else "are") + " gone")
        return parts

    def summary(self) -> str:
        """All phrases in one sentence, or "nothing changed" in words."""
        parts = self.sentences()
        if not parts:
            return f"Same {self.rows_after:,} rows, categories and columns as before."
        return "; ".join(parts) + "."


def _named(one: str, several: str, names: list[str], limit: int = 6) -> str:
    shown = ", ".join(f"“{name}”" for name in names[:limit])
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"{one if len(names) == 1 else several} {shown}{more}"


def category_set(frame: pd.DataFrame, column: str | None) -> list[str]:
    """The distinct category labels of ``column`` (uncoded cells left out), sorted; [] without one."""
    if not column or column not in frame.columns:
        return []
    labels = category_labels(frame[column]).dropna()
    return sorted({str(label) for label in labels})


def keep_mapping(mapping: ColumnMapping, columns: Iterable[object]) -> tuple[ColumnMapping, list[tuple[str, str]]]:
    """``mapping`` with the columns that are no longer in ``columns`` left out, and what was lost."""
    present = {str(column) for column in columns}
    lost: list[tuple[str, str]] = []

    def single(column: str | None, role: str) -> str | None:
        if column and column not in present:
            lost.append((column, role))
            return None
        return column

    def several(names: list[str], role: str) -> list[str]:
        lost.extend((name, role) for name in names if name not in present)
        return [name for name in names if name in present]

    kept = ColumnMapping(
        text_columns=several(mapping.text_columns, "text"),
        category_column=single(mapping.category_column, "category"),
        id_column=single(mapping.id_column, "id"),
        split_column=single(mapping.split_column, "split"),
        metadata_columns=several(mapping.metadata_columns, "metadata"),
        text_separator=mapping.text_separator,
        multi_label=mapping.multi_label,
        category_columns=several(mapping.category_columns, "category"),
        label_separator=mapping.label_separator,
    )
    return kept, lost


def compare_tables(before: pd.DataFrame, after: pd.DataFrame, category_column: str | None) -> TableChanges:
    """The changes from ``before`` to ``after`` (rows, categories of ``category_column``, columns)."""
    old_columns = [str(c) for c in before.columns]
    new_columns = [str(c) for c in after.columns]
    changes = compare_with_record(len(before), category_set(before, category_column), after, category_column)
    changes.gone_columns = [c for c in old_columns if c not in set(new_columns)]
    changes.new_columns = [c for c in new_columns if c not in set(old_columns)]
    return changes


def compare_with_record(
    rows: int | None, categories: list[str] | None, after: pd.DataFrame, category_column: str | None
) -> TableChanges:
    """The changes from what a study recorded (``rows``, ``categories``; None = not recorded) to ``after``."""
    changes = TableChanges(rows_before=rows, rows_after=len(after))
    if categories is not None and category_column and category_column in after.columns:
        now = category_set(after, category_column)
        changes.new_categories = [c for c in now if c not in set(categories)]
        changes.gone_categories = [c for c in categories if c not in set(now)]
    return changes
