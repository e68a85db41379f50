"""The categories of each text in a study where a text can have several categories.

Two ways a table can hold them:

- **indicator columns** (``mapping.category_columns``): one column per category, named for it,
  with 1 where the text has that category. Accepted cells: 1/0, yes/no, true/false, x (has it),
  and numbers between 0 and 1 — a value between 0 and 1 (the average of several coders) counts as
  the category from 0.5 up and is counted in :attr:`LabelSets.thresholded`, so a run can say so.
  A row whose indicator cells are all empty is uncoded; an empty cell in a coded row counts as 0;
  a row of zeros is a coded text with none of the categories.
- **a delimited column** (``mapping.category_column``): the text's categories in one cell,
  separated by ``mapping.label_separator`` ("economy; health"). Parts are stripped of spaces,
  empty parts dropped, repeats counted once; an empty cell is uncoded, and a cell of nothing but
  the separator (";") is a coded text with none of the categories.

The study's category fixes (:mod:`guiapp.core.study.category_fixes`) apply to each category:
``merge`` renames (two columns merged into one are joined: the text has the category when either
column says so), ``leave_out`` drops the category — never the text, which keeps its other
categories. Everything is vectorised over distinct cell values, so 100,000 rows take a moment.

Also here: :func:`category_order` (the one order of a study's categories),
:func:`guess_label_separator` and :func:`indicator_like_columns` for the Data step's first guesses.
"""

from __future__ import annotations

import decimal
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

from guiapp.core.errors import DataError
from guiapp.core.study.category_fixes import CategoryFixes, visible
from guiapp.core.tables.cell_values import category_label, category_labels, cell_text

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

YES_WORDS = frozenset({"1", "yes", "true", "x"})
NO_WORDS = frozenset({"0", "no", "false"})
SEPARATORS = (";", "|", ",", "/", " + ", "+")
DEFAULT_SEPARATOR = ";"
THRESHOLD = 0.5
NO_CATEGORY = "(none of the categories)"  # how a text with none of the categories is written
LIST_SEPARATOR = "; "  # between a text's categories when they are written in one cell
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+")
_BAD = object()  # a cell that is not an indicator value


class LabelColumns(Protocol):
    """Where a table holds the categories (a ``ColumnMapping`` is one)."""

    category_column: str | None
    category_columns: list[str]
    label_separator: str


class LabelValueError(DataError):
    """An indicator column holds values that are not 0/1 (the mapping itself is fine)."""


def category_order(labels: Iterable[str]) -> list[str]:
    """Categories in a natural order: numerically when they are numbers ("2" before "10")."""

    def key(label: str) -> tuple:
        parts = re.split(r"(\d+)", label)
        return tuple((0, int(part)) if part.isdigit() else (1, part.casefold()) for part in parts)

    return sorted(set(labels), key=key)


@dataclass(frozen=True)
class LabelSets:
    """The categories of every row of a table: ``matrix[i, k]`` is 1 when row ``i`` has
    ``categories[k]``; ``coded[i]`` is False for an uncoded row (its matrix row is all 0)."""

    categories: list[str]  # in category_order
    matrix: np.ndarray  # (n_rows, K) uint8
    coded: np.ndarray  # (n_rows,) bool
    thresholded: int = 0  # cells between 0 and 1 (averaged coders) decided at 0.5
    layout: Literal["indicator", "delimited"] = "indicator"
    written: tuple[str, ...] = ()  # the categories as the table writes them, before the fixes
    left_out_texts: int = 0  # coded rows that had a category the study leaves out

    @property
    def n_coded(self) -> int:
        return int(self.coded.sum())

    @property
    def counts(self) -> np.ndarray:
        """Coded texts per category."""
        return self.matrix.sum(axis=0, dtype=np.int64)

    @property
    def no_category(self) -> np.ndarray:
        """Coded rows with none of the categories."""
        return self.coded & ~self.matrix.any(axis=1)

    def tuples(self) -> list[tuple[str, ...] | None]:
        """Per row the names of its categories in category order; () for a coded text with none,
        None for an uncoded row."""
        return label_tuples(self.matrix, self.categories, self.coded)


def label_tuples(matrix: np.ndarray, categories: Sequence[str], coded: np.ndarray | None = None
                 ) -> list[tuple[str, ...] | None]:
    """The rows of an indicator matrix as tuples of category names (None where not ``coded``)."""
    n = len(matrix)
    if n == 0:
        return []
    if matrix.shape[1] == 0:
        return [() if coded is None or coded[row] else None for row in range(n)]
    combos, inverse = np.unique(matrix, axis=0, return_inverse=True)
    names = [tuple(categories[k] for k in np.flatnonzero(combo)) for combo in combos]
    result: list[tuple[str, ...] | None] = [names[i] for i in np.asarray(inverse).ravel()]
    if coded is not None:
        for row in np.flatnonzero(~coded):
            result[row] = None
    return result


def label_matrix(sets: Iterable[Iterable[str] | None], categories: Sequence[str]) -> np.ndarray:
    """The indicator matrix (uint8, one column per category) of per-row category names."""
    position = {label: k for k, label in enumerate(categories)}
    rows: list[int] = []
    columns: list[int] = []
    n = 0
    for n, labels in enumerate(sets, start=1):
        for label in labels or ():
            rows.append(n - 1)
            columns.append(position[label])
    matrix = np.zeros((n, len(categories)), dtype=np.uint8)
    matrix[rows, columns] = 1
    return matrix


# --------------------------------------------------------------------------- reading


def read_label_sets(frame: pd.DataFrame, mapping: LabelColumns, fixes: CategoryFixes | None = None) -> LabelSets:
    """The categories of every row, from indicator columns (``mapping.category_columns``) or from a
    delimited column (``mapping.category_column``); see the module docstring. Raises
    :class:`LabelValueError` for indicator cells that are not 0/1-like."""
    fixes = fixes or CategoryFixes()
    if mapping.category_columns:
        return _read_indicators(frame, list(mapping.category_columns), fixes)
    if mapping.category_column is None:
        raise DataError(
            "No category columns are chosen.",
            "Tick the columns that mark each category, or choose the column that lists each text's categories.",
        )
    return _read_delimited(frame[mapping.category_column], mapping.label_separator, fixes)


def indicator_value(value: object) -> float | None | object:
    """What an indicator cell says: a number in [0, 1], None for an empty cell, or ``_BAD``."""
    if isinstance(value, (bool, np.bool_)):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float, np.integer, np.floating, decimal.Decimal)):
        number = float(value)
        if math.isnan(number):
            return None
        return number if 0.0 <= number <= 1.0 else _BAD
    text = cell_text(value)
    if text is None:
        return None
    word = text.strip().casefold()
    if not word:
        return None
    if word in YES_WORDS:
        return 1.0
    if word in NO_WORDS:
        return 0.0
    if _DECIMAL_COMMA.fullmatch(word):
        word = word.replace(",", ".")
    try:
        number = float(word)
    except ValueError:
        return _BAD
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else _BAD


def _indicator_cells(column: pd.Series) -> tuple[np.ndarray, list[tuple[str, int]]]:
    """(values as floats, NaN where empty; the bad values with their counts, most frequent first)."""
    import pandas as pd
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    read = [indicator_value(value) for value in uniques]
    numbers = np.array([np.nan if v is None or v is _BAD else v for v in read] + [np.nan], dtype=float)
    bad_codes = [i for i, v in enumerate(read) if v is _BAD]
    bad: list[tuple[str, int]] = []
    if bad_codes:
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        bad = sorted(((cell_text(uniques[i]) or "", int(counts[i])) for i in bad_codes), key=lambda item: -item[1])
    return numbers[codes], bad


def _bad_values_error(column: str, bad: list[tuple[str, int]]) -> LabelValueError:
    shown = ", ".join(f"“{visible(value)}” ({count:,} row{'' if count == 1 else 's'})" for value, count in bad[:5])
    more = f" and {len(bad) - 5:,} other values" if len(bad) > 5 else ""
    return LabelValueError(
        f"The category column '{column}' has values that are not 1 or 0: {shown}{more}.",
        "Write 1 (or yes, true, x) where a text has this category and 0 (or no, false, an empty cell) where "
        "it has not; values between 0 and 1, such as the average of several coders, count from 0.5. Or untick "
        "the column if it is not a category.",
        details=f"column: {column!r}; bad values: {[value for value, _ in bad[:20]]!r}",
    )


def _read_indicators(frame: pd.DataFrame, columns: list[str], fixes: CategoryFixes) -> LabelSets:
    n = len(frame)
    values = np.empty((n, len(columns)), dtype=float)
    for j, column in enumerate(columns):
        values[:, j], bad = _indicator_cells(frame[column])
        if bad:
            raise _bad_values_error(str(column), bad)
    filled = ~np.isnan(values)
    coded = filled.any(axis=1)
    fractional = filled & (values > 0.0) & (values < 1.0)
    has = filled & (values >= THRESHOLD)
    written = [str(column) for column in columns]
    fixed = [fixes.fix(label) for label in written]
    categories = category_order(label for label in fixed if label is not None)
    matrix = np.zeros((n, len(categories)), dtype=np.uint8)
    position = {label: k for k, label in enumerate(categories)}
    dropped = np.zeros(n, dtype=bool)
    for j, label in enumerate(fixed):
        if label is None:
            dropped |= has[:, j]
        else:
            matrix[:, position[label]] |= has[:, j].astype(np.uint8)
    return LabelSets(categories, matrix, coded, int(fractional.sum()), "indicator", tuple(written),
                     int(dropped.sum()))


def _split_cell(cell: str, separator: str) -> list[str]:
    """The parts of a cell: stripped, without empty parts, each once (first place kept)."""
    return list(dict.fromkeys(part.strip() for part in cell.split(separator) if part.strip()))


def _read_delimited(column: pd.Series, separator: str, fixes: CategoryFixes) -> LabelSets:
    import pandas as pd
    cells = category_labels(column)
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    parts = [_split_cell(str(cell), separator) for cell in uniques]
    written = sorted({part for cell in parts for part in cell})
    table = {label: fixes.fix(label) for label in written}
    fixed = [[table[part] for part in cell] for cell in parts]
    categories = category_order(label for cell in fixed for label in cell if label is not None)
    per_cell = label_matrix(_fixed_cell_sets(fixed), categories)
    per_cell = np.vstack([per_cell, np.zeros((1, len(categories)), dtype=np.uint8)])  # code -1: uncoded
    dropped_cell = np.array([any(label is None for label in cell) for cell in fixed] + [False], dtype=bool)
    coded = np.asarray(codes) >= 0
    return LabelSets(categories, per_cell[codes], coded, 0, "delimited", tuple(written),
                     int(dropped_cell[codes].sum()))


def _fixed_cell_sets(fixed: list[list[str | None]]) -> list[list[str]]:
    """Each cell's categories after the fixes: left-out ones dropped, merged ones once."""
    return [list(dict.fromkeys(label for label in cell if label is not None)) for cell in fixed]


# --------------------------------------------------------------------------- guessing


def guess_label_separator(values: Iterable[object], limit: int = 20_000) -> str:
    """The separator that splits most cells into categories that recur: among ``;``, ``|``, ``,``,
    ``/``, `` + `` and ``+``. A part counts as a category when it appears in at least two different
    cells, so "Law/Crime", always written together, is not taken for two categories. Works on
    the first ``limit`` distinct non-empty cells; ``;`` when no separator splits anything."""
    cells: list[str] = []
    seen: set[str] = set()
    for value in values:
        label = category_label(value)
        if label is not None and label not in seen:
            seen.add(label)
            cells.append(label)
            if len(cells) >= limit:
                break
    best, best_score = DEFAULT_SEPARATOR, 0
    for separator in SEPARATORS:
        split = [_split_cell(cell, separator) for cell in cells]
        if not any(separator in cell for cell in cells):
            continue
        known = Counter(part for parts in split for part in parts)
        score = sum(1 for cell, parts in zip(cells, split, strict=True)
                    if separator in cell and len(parts) >= 2 and all(known[part] >= 2 for part in parts))
        if score > best_score:
            best, best_score = separator, score
    return best


def indicator_like_columns(frame: pd.DataFrame, sample: int = 200) -> list[str]:
    """Columns that look like one category each: every non-empty value is 1/0, yes/no, true/false,
    x or a number between 0 and 1; at least two different states among "has it", "has it not" and
    "empty"; and at least half of the non-empty values plain 1/0 (not a score column). Cheap: a
    column is ruled out by its first ``sample`` values before all its distinct values are read."""
    import pandas as pd
    found = []
    for column in frame.columns:
        series = frame[column]
        head = series.iloc[:sample]
        if any(indicator_value(value) is _BAD for value in head.dropna().unique()):
            continue
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        read = [indicator_value(value) for value in uniques]
        if any(value is _BAD for value in read):
            continue
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        states: set[object] = set()
        plain = filled = 0
        for value, count in zip(read, counts, strict=True):
            if value is None:
                states.add("empty")
                continue
            assert isinstance(value, float)
            states.add(value >= THRESHOLD)
            filled += int(count)
            plain += int(count) if value in (0.0, 1.0) else 0
        if (codes < 0).any():
            states.add("empty")
        if filled and len(states) >= 2 and plain * 2 >= filled:
            found.append(str(column))
    return found


__all__ = [
    "DEFAULT_SEPARATOR",
    "SEPARATORS",
    "LabelSets",
    "LabelValueError",
    "category_order",
    "guess_label_separator",
    "indicator_like_columns",
    "indicator_value",
    "label_matrix",
    "label_tuples",
    "read_label_sets",
]


def category_list(row: np.ndarray, categories: Sequence[str]) -> str:
    """A text's categories from its 0/1 row, joined by "; " in category order (:data:`NO_CATEGORY`
    when it has none)."""
    names = [categories[index] for index in np.flatnonzero(np.asarray(row) == 1)]
    return LIST_SEPARATOR.join(names) if names else NO_CATEGORY
