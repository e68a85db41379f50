"""Which columns of a table count the coders who chose each category (as in Davidson et al. 2017:
``hate_speech``, ``offensive_language``, ``neither``, each holding how many coders chose it).

:func:`find_coder_columns` returns one column per category, in the study's category order, or None
when the table has no such columns. A column is matched to a category

1. by an explicit name (``names``: category -> column, the column's name matched case-insensitively),
2. else by its name, loosely: case, spaces, ``_`` and ``-`` do not matter, and a category may be the
   first word(s) of the column's name ("hate" ↔ "hate_speech") or the other way round,
3. else (categories such as 0, 1, 2) by the coding itself: the column that is highest on the texts
   coded with that category compared with the rest (in standard deviations), when the most-voted
   of the columns found equals the coding on most texts.

Count columns hold whole numbers ≥ 0 on every row, and at least two coders on most rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

MOST = 0.5  # "most rows": more than half
MAJORITY_MATCH = 0.8  # the most-voted column must equal the coding on this share of texts


def _words(name: object) -> list[str]:
    return [w for w in re.split(r"[^0-9a-z]+", str(name).lower()) if w]


def names_match(category: object, column: object) -> bool:
    """Loose match of a category and a column name: same words, or one's words start the other's."""
    a, b = _words(category), _words(column)
    if not a or not b:
        return False
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return longer[:len(shorter)] == shorter


def count_values(table: pd.DataFrame, column: str) -> np.ndarray | None:
    """The column as whole numbers ≥ 0, or None when it is not such a column (or has gaps)."""
    values = table[column]
    if pd.api.types.is_bool_dtype(values):
        return None
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    if len(numbers) == 0 or np.isnan(numbers).any() or (numbers < 0).any() or (np.mod(numbers, 1) != 0).any():
        return None
    return numbers


def _enough_coders(counts: np.ndarray) -> bool:
    return bool(np.mean(counts.sum(axis=1) >= 2) > MOST)


def _checked(table: pd.DataFrame, columns: list[str]) -> list[str] | None:
    if len(columns) < 2 or len(set(columns)) != len(columns):
        return None
    values = [count_values(table, c) for c in columns]
    if any(v is None for v in values):
        return None
    return columns if _enough_coders(np.column_stack(values)) else None


def _by_name(columns: list[str], categories: list[str], wanted: Mapping[str, str] | None) -> list[str] | None:
    found = []
    for category in categories:
        if wanted is not None:
            target = str(wanted.get(category, wanted.get(str(category), ""))).strip().lower()
            matches = [c for c in columns if str(c).strip().lower() == target] if target else []
        else:
            matches = [c for c in columns if str(c).strip().lower() == str(category).strip().lower()]
            matches = matches or [c for c in columns if names_match(category, c)]
        if len(matches) != 1:
            return None
        found.append(matches[0])
    return found


def _separation(values: np.ndarray, rows: np.ndarray) -> float:
    """How much higher the column is on the texts coded with the category than on the rest, in
    standard deviations (a row number or a total of coders hardly differs)."""
    spread = float(values.std())
    return float(values[rows].mean() - values[~rows].mean()) / spread if spread > 0 else float("-inf")


def _by_coding(table: pd.DataFrame, candidates: list[str], categories: list[str],
               category_column: str) -> list[str] | None:
    coded = table[category_column].astype(str).str.strip().to_numpy()
    counts = {c: count_values(table, c) for c in candidates}
    if len(counts) < len(categories):
        return None
    found = []
    for category in categories:
        rows = coded == str(category).strip()
        if not rows.any() or rows.all():
            return None
        best = max(counts, key=lambda c: _separation(counts[c], rows))
        found.append(best)
    if len(set(found)) != len(found):
        return None
    matrix = np.column_stack([counts[c] for c in found])
    known = np.isin(coded, [str(c).strip() for c in categories])
    top = np.asarray([str(c).strip() for c in categories])[matrix.argmax(axis=1)]
    if not known.any() or np.mean(top[known] == coded[known]) < MAJORITY_MATCH:
        return None
    return found


def find_coder_columns(table: pd.DataFrame | None, categories: list, names: Mapping[str, str] | None = None,
                       category_column: str | None = None) -> list[str] | None:
    """One count-of-coders column per category (in the order of ``categories``), or None.

    ``names`` maps categories to column names (all of them; case does not matter). Without it, the
    columns are found by name, then, given the ``category_column``, by the coding itself."""
    if table is None or len(table) == 0 or len(categories) < 2:
        return None
    categories = [str(c) for c in categories]
    skip = {category_column} if category_column else set()
    columns = [c for c in table.columns if c not in skip]
    if names is not None:
        found = _by_name(columns, categories, names)
        return _checked(table, found) if found is not None else None
    counting = [c for c in columns if count_values(table, c) is not None]
    found = _by_name(counting, categories, None)
    if found is None and category_column and category_column in table.columns:
        found = _by_coding(table, counting, categories, category_column)
    return _checked(table, found) if found is not None else None


def coder_count_columns(table: pd.DataFrame | None, categories: list, mapping=None) -> list[str] | None:  # noqa: ANN001
    """:func:`find_coder_columns` with the study's column mapping (a ColumnMapping or its dict)."""
    if isinstance(mapping, Mapping):
        category_column = mapping.get("category_column")
    else:
        category_column = getattr(mapping, "category_column", None)
    return find_coder_columns(table, categories, category_column=category_column)
