"""A category column in a few words, counted exactly as the data check and the run count it.

The Data step shows a hint under the chosen category column ("e.g. “Democrat”, “Republican”,
“Repulican” (5 different categories)"). The categories are read by
:func:`~guiapp.core.tables.cell_values.category_labels` — spaces are kept, so "Democrat" and
"Democrat " are two, as the data check says, and whole numbers read "1" whether the cell holds
1 or 1.0 — and then, when the study has category fixes (merges, trimmed spaces, categories left
out), by :func:`~guiapp.core.study.category_fixes.fix_categories`, so the count after a merge is
the count the check and the run use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from guiapp.core.study.category_fixes import CategoryFixes, fix_categories, visible
from guiapp.core.tables.cell_values import category_labels

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

EXAMPLES = 3


@dataclass(frozen=True)
class CategoryPreview:
    written: int  # different categories as written in the column
    fixed: int  # different categories after the study's fixes (= written without fixes)
    examples: tuple[str, ...]  # the most frequent categories after the fixes, hidden spaces shown
    has_fixes: bool

    def sentence(self) -> str:
        """"e.g. “Democrat”, “Republican”, “Repulican”  (5 different categories)"."""
        if not self.written:
            return "no categories yet: every row of this column is empty"
        shown = ", ".join(f"“{_short(example)}”" for example in self.examples)
        count = f"{self.fixed:,} different {'category' if self.fixed == 1 else 'categories'}"
        if self.has_fixes and self.fixed != self.written:
            count += f" after your fixes; {self.written:,} as written"
        return f"e.g. {shown}  ({count})" if shown else f"({count})"


def category_preview(column: pd.Series, fixes: CategoryFixes | None = None) -> CategoryPreview:
    """The categories of ``column`` as the data check counts them, before and after ``fixes``."""
    labels = category_labels(column)
    written = labels.dropna()
    fixed, _ = fix_categories(labels, fixes)
    fixed = fixed.dropna()
    counts = fixed.value_counts(sort=True)
    examples = tuple(visible(str(label)) for label in counts.index[:EXAMPLES])
    has_fixes = fixes is not None and not fixes.is_empty()
    return CategoryPreview(int(written.nunique()), int(fixed.nunique()), examples, has_fixes)


def _short(value: str, limit: int = 28) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"
