"""Tidying a freshly read table: unique, non-empty column names and no empty trailing edges.

Spreadsheets often carry empty rows and unnamed empty columns after the table, and header rows
with blank or repeated names. Each rename is explained in a plain sentence (a "notice").
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

_COUNT_WORDS = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight"}


def tidy_table(frame: pd.DataFrame, header: list[object] | None) -> tuple[pd.DataFrame, list[str]]:
    """Name the columns of ``frame`` (whose columns are positions) from the ``header`` cells
    (None: "Column 1" …), drop empty trailing rows and unnamed empty trailing columns, and
    return the frame with the notices about renamed columns."""
    import pandas as pd
    names = [cell_as_name(cell) for cell in header] if header is not None else []
    names += [""] * (frame.shape[1] - len(names))
    keep = frame.shape[1]
    while keep > 0 and not names[keep - 1] and frame.iloc[:, keep - 1].isna().all():
        keep -= 1
    if keep < frame.shape[1]:
        frame = frame.iloc[:, :keep]
        names = names[:keep]
    last = _end_of_data(frame)
    if last < len(frame):
        frame = frame.iloc[:last]
    final, notices = unique_names(names, report_blanks=header is not None)
    frame = frame.copy(deep=False)
    frame.columns = pd.Index(final, dtype=object)
    return frame, notices


def cell_as_name(cell: object) -> str:
    """A header cell as a column name: numbers without ".0", dates as ISO dates, whitespace
    (including line breaks) collapsed to single spaces."""
    if cell is None or (isinstance(cell, float) and np.isnan(cell)):
        return ""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    if isinstance(cell, dt.datetime) and cell.time() == dt.time(0):
        return cell.date().isoformat()
    if isinstance(cell, dt.date | dt.datetime):
        return cell.isoformat()
    return " ".join(str(cell).split())


def unique_names(names: list[str], report_blanks: bool = True) -> tuple[list[str], list[str]]:
    """Blank names become "Column N" (N = position, from 1); repeated names get " (2)",
    " (3)" …; returns the new names and one sentence per kind of rename."""
    notices: list[str] = []
    taken = {name for name in names if name}
    final = list(names)
    blanks = [i for i, name in enumerate(names) if not name]
    for i in blanks:
        final[i] = _free(f"Column {i + 1}", taken)
        taken.add(final[i])
    if blanks and report_blanks:
        notices.append(_blank_notice([i + 1 for i in blanks], [final[i] for i in blanks]))
    counts = Counter(name for name in names if name)
    for name, count in counts.items():
        if count < 2:
            continue
        positions = [i for i, n in enumerate(names) if n == name]
        for copy, i in enumerate(positions[1:], start=2):
            final[i] = _free(f"{name} ({copy})", taken)
            taken.add(final[i])
        notices.append(_duplicate_notice(name, [final[i] for i in positions]))
    return final, notices


def _free(name: str, taken: set[str]) -> str:
    candidate, extra = name, 2
    while candidate in taken:
        candidate = f"{name} ({extra})"
        extra += 1
    return candidate


def _listing(items: list[str]) -> str:
    quoted = [f'"{item}"' for item in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _blank_notice(positions: list[int], new_names: list[str]) -> str:
    if len(positions) == 1:
        return (
            f"Column {positions[0]} has no name in the header row; it is shown as "
            f'"{new_names[0]}".'
        )
    numbers = ", ".join(str(p) for p in positions[:-1]) + f" and {positions[-1]}"
    return (
        f"Columns {numbers} have no name in the header row; they are shown as "
        f"{_listing(new_names)}."
    )


def _duplicate_notice(name: str, new_names: list[str]) -> str:
    if len(new_names) == 2:
        return f'Two columns were both called "{name}"; the second is shown as "{new_names[1]}".'
    count = _COUNT_WORDS.get(len(new_names), str(len(new_names)))
    return f'{count} columns were all called "{name}"; they are shown as {_listing(new_names)}.'


def _end_of_data(frame: pd.DataFrame) -> int:
    """One past the last row that has at least one value (looking at growing tails only, so a
    big table with data in its last row costs almost nothing)."""
    end, step = len(frame), 64
    if frame.shape[1] == 0:
        return 0
    while end > 0:
        start = max(end - step, 0)
        filled = np.flatnonzero(frame.iloc[start:end].notna().to_numpy().any(axis=1))
        if filled.size:
            return start + int(filled[-1]) + 1
        end, step = start, step * 4
    return 0
