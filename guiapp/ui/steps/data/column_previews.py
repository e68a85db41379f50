"""A table's column in a few words, for the hints under the column pickers of the Data step."""

from __future__ import annotations

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
