"""A table's column in a few words, for the hints under the column pickers of the Data step."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from guiapp.core.study.mapping import ColumnMapping

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

    from guiapp.core.study.category_fixes import CategoryFixes

_PREVIEW_ROWS = 5000


def column_preview(series: pd.Series) -> str:
    """A short description of a column's content: a few distinct values and how many there are."""
    head = series.iloc[:_PREVIEW_ROWS].dropna()
    if head.empty:
        return "empty in the first rows"
    values = head.astype(str).str.strip()
    values = values[values != ""]
    distinct = values.unique()
    examples = ", ".join(f"“{_short(v)}”" for v in distinct[:3])
    where = f" in the first {_PREVIEW_ROWS:,} rows" if len(series) > _PREVIEW_ROWS else ""
    return f"e.g. {examples}  ({len(distinct):,} different values{where})"


def text_column_preview(series: pd.Series) -> str:
    """How the texts of a column look: typical length and an example opening."""
    head = series.iloc[:_PREVIEW_ROWS].dropna().astype(str)
    head = head[head.str.strip() != ""]
    if head.empty:
        return "empty in the first rows"
    words = head.str.count(r"\S+")
    where = f" (first {_PREVIEW_ROWS:,} rows)" if len(series) > _PREVIEW_ROWS else ""
    return f"Typically {words.median():,.0f} words per text{where}, e.g. “{_short(head.iloc[0], 60)}”"


def _short(value: str, limit: int = 28) -> str:
    value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def names_list(names: list[str], limit: int = 5) -> str:
    """“economy”, “health”, “crime” and 4 more."""
    shown = ", ".join(f"“{_short(name)}”" for name in names[:limit])
    return shown + (f" and {len(names) - limit:,} more" if len(names) > limit else "")


def label_sets_preview(column: pd.Series, separator: str, fixes: CategoryFixes | None = None) -> str:
    """A column that lists each text's categories, read as the data check reads it: the most
    frequent categories, how many there are, and how many a coded text has on average."""
    from guiapp.core.study.label_sets import read_label_sets

    mapping = ColumnMapping(category_column="categories", multi_label=True, label_separator=separator)
    sets = read_label_sets(column.to_frame(name="categories"), mapping, fixes)
    if not sets.n_coded:
        return "no categories yet: every row of this column is empty"
    counts = sets.counts
    names = [sets.categories[k] for k in sorted(range(len(counts)), key=lambda k: -counts[k])]
    count = f"{len(names):,} different {'category' if len(names) == 1 else 'categories'}"
    shown = ", ".join(f"“{_short(name)}”" for name in names[:3])
    text = f"e.g. {shown}  ({count}; {counts.sum() / sets.n_coded:.1f} per coded text on average)"
    if int(sets.matrix.sum(axis=1).max()) <= 1:
        text += (f". No text has more than one category when they are separated by “{separator}”: "
                 "is that the sign written between them?")
    return text


def texts_hint(frame: pd.DataFrame, columns: list[str]) -> str:
    """What the ticked text column(s) hold, in a sentence."""
    if not columns:
        return "Tick at least one column."
    return text_column_preview(frame[columns[0]]) if len(columns) == 1 else f"{len(columns)} columns will be joined into one text."


def several_categories_hint(frame: pd.DataFrame, mapping: ColumnMapping, indicator_columns: Callable[[], list[str]],
                            per_column: bool, fixes: CategoryFixes | None = None) -> str:
    """What the chosen columns hold, in a sentence, when a text can have several categories.
    ``indicator_columns()``: the table's columns that hold only 0 and 1 (asked only when columns are
    ticked); ``per_column``: one column per category is the chosen layout."""
    if mapping.category_columns:
        names = mapping.category_columns
        text = f"{len(names)} {'category' if len(names) == 1 else 'categories'}: {names_list(names)}."
        odd = [name for name in names if name not in indicator_columns()]
        if odd:
            text += (f" {names_list(odd)} {'does' if len(odd) == 1 else 'do'} not hold only 0 and 1 (or yes/no): "
                     "is it really a category?")
        return text
    if per_column:
        return "Tick one column for each category: 1 (or yes) where a text has that category, 0 where it has not."
    if not mapping.category_column:
        return "Choose the column that lists the categories of each text."
    return label_sets_preview(frame[mapping.category_column], mapping.label_separator, fixes)
