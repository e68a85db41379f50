"""Which columns to offer for "per group" (party, year, outlet): those with few values first.

A column where nearly every text has its own value (an id, a date to the day) makes no groups to
estimate a share in; it is offered last and marked, so that it is not picked by mistake.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

NEARLY_UNIQUE_SHARE = 0.5  # a column with at least this many distinct values per filled row
MOST_GROUPS = 50  # more groups than this are many: each holds few texts


@dataclass(frozen=True)
class GroupColumn:
    """A column that shares could be given per, with how many groups it makes."""

    name: object
    n_values: int
    nearly_unique: bool  # nearly one value per text: no groups to speak of

    @property
    def label(self) -> str:
        """How it is offered: "outlet (3 groups)", "id (one value per text, nearly)"."""
        if self.nearly_unique:
            return f"{self.name} (nearly one value per text)"
        return f"{self.name} ({self.n_values:,} group{'s' if self.n_values != 1 else ''})"

    @property
    def tip(self) -> str:
        if self.nearly_unique:
            return (f"“{self.name}” has {self.n_values:,} different values, nearly one per text, so its groups "
                    "would hold a text or two each. Choose a column such as party, year or outlet.")
        if self.n_values > MOST_GROUPS:
            return f"“{self.name}” has {self.n_values:,} groups: each holds few texts, so its shares are uncertain."
        return f"Shares for each of the {self.n_values:,} values of “{self.name}”."


def group_columns(frame: pd.DataFrame, columns: Iterable) -> list[GroupColumn]:
    """``columns`` of ``frame`` as columns to group by: fewest values first, those with nearly one value
    per row last (each keeps the table's order among equals)."""
    found = []
    for order, column in enumerate(columns):
        if column not in frame.columns:
            continue
        series = frame[column]
        filled = int(series.notna().sum())
        try:
            n_values = int(series.nunique(dropna=True))
        except TypeError:  # cells pandas cannot compare (lists): counted as text
            n_values = int(series.dropna().astype(str).nunique())
        nearly_unique = filled > 0 and n_values > MOST_GROUPS and n_values >= NEARLY_UNIQUE_SHARE * filled
        found.append((nearly_unique, n_values, order, GroupColumn(column, n_values, nearly_unique)))
    return [entry[-1] for entry in sorted(found, key=lambda entry: entry[:3])]
