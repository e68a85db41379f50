"""Reading workbooks (.xlsx .xlsm .xlsb .xls .ods) with python-calamine into a DataFrame.

calamine parses a whole sheet in one Rust call that releases the GIL but cannot report
progress or be interrupted, so it runs in a daemon helper thread while the calling thread
reports time-based progress and lets the callback cancel; a cancelled parse finishes in the
background and its result is dropped. Turning the rows into columns happens in slices, with
progress, so no single step holds the GIL for long. Cells keep their native types.
"""

from __future__ import annotations

import datetime as dt
import gc
import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import python_calamine as calamine

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Progress, sub_progress
from guiapp.core.tables.empty_data import has_uncalculated_formulas, uncalculated_formulas
from guiapp.core.tables.file_signatures import damaged_workbook, password_protected
from guiapp.core.tables.header_row import LOOK_AHEAD, find_header_row, skipped_rows_notice
from guiapp.core.tables.sheet_choice import choose_sheet, other_sheet_notice

if TYPE_CHECKING:  # pandas and pyarrow load on first use, not when the window opens
    import pandas as pd

ROWS_PER_STEP = 10_000
VALUES_PER_STEP = 50_000
_EXPECTED_BYTES_PER_SECOND = 8e6  # calamine on one core, for the progress estimate only
_INT64_LIMIT = 2**63
EXCEL_ROW_LIMIT = 1_048_576  # the most rows a sheet of Excel (and LibreOffice) holds, header included


@dataclass
class WorkbookTable:
    """Columns are positions 0…n-1; ``header`` holds the cells of the header row."""

    frame: pd.DataFrame
    header: list[object]
    sheet: str
    sheets: list[str]
    notices: list[str] = field(default_factory=list)
    first_row: int = 2  # the sheet row (from 1) of the first row of data, below the header


def _open(path: Path) -> calamine.CalamineWorkbook:
    # from_filelike recognises the format from the content, so a renamed file still opens.
    with open(path, "rb") as handle:
        return calamine.CalamineWorkbook.from_filelike(handle)


def _calamine_error(path: Path, error: Exception) -> DataError:
    if isinstance(error, calamine.PasswordError):
        return password_protected(path.name, details=repr(error))
    return damaged_workbook(path.name, details=f"{type(error).__name__}: {error}")


def workbook_sheet_names(path: Path) -> list[str]:
    try:
        workbook = _open(path)
    except calamine.CalamineError as error:
        raise _calamine_error(path, error) from error
    try:
        return list(workbook.sheet_names)
    finally:
        workbook.close()


class _CollectorPause:
    lock = threading.Lock()
    pausers = 0
    was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while we build millions of cells.

    The rows calamine hands over are lists that live just long enough to reach the oldest
    generation, and every ~75,000 of them trigger a full collection of the whole process that
    holds the GIL for ~50 ms: a visible stutter in the GUI. Nothing built here forms reference
    cycles, so pausing the collector is safe; it is restored afterwards (threads that pause it
    at the same time are counted, and a collector someone else disabled stays disabled)."""
    with _CollectorPause.lock:
        if _CollectorPause.pausers == 0:
            _CollectorPause.was_enabled = gc.isenabled()
            gc.disable()
        _CollectorPause.pausers += 1
    try:
        yield
    finally:
        with _CollectorPause.lock:
            _CollectorPause.pausers -= 1
            if _CollectorPause.pausers == 0 and _CollectorPause.was_enabled:
                gc.enable()


def _visible_worksheets(workbook: calamine.CalamineWorkbook) -> list[str]:
    return [
        meta.name for meta in workbook.sheets_metadata
        if meta.typ == calamine.SheetTypeEnum.WorkSheet
        and meta.visible == calamine.SheetVisibleEnum.Visible
    ]


def _default_sheet(workbook: calamine.CalamineWorkbook) -> str:
    """The first visible worksheet (the tab Excel shows first), else the first sheet."""
    for meta in workbook.sheets_metadata:
        if (
            meta.typ == calamine.SheetTypeEnum.WorkSheet
            and meta.visible == calamine.SheetVisibleEnum.Visible
        ):
            return meta.name
    return workbook.sheet_names[0]


def _parse_sheet_in_background(path: Path, sheet: str | None, on_event: EventCallback):
    """Open the workbook and parse one sheet in a helper thread; report progress meanwhile."""
    outcome: dict = {}
    finished = threading.Event()

    def work() -> None:
        try:
            workbook = _open(path)
            try:
                outcome["sheets"] = names = list(workbook.sheet_names)
                if not names:
                    return
                if sheet is None:
                    first = _default_sheet(workbook)
                    name, outcome["rows"] = choose_sheet(workbook, first, _visible_worksheets(workbook))
                    outcome["sheet"] = name
                    if name != first:
                        outcome["instead_of"] = first
                else:
                    outcome["sheet"] = name = sheet
                    if name in names:
                        outcome["rows"] = workbook.get_sheet_by_name(name)
            finally:
                workbook.close()
        except BaseException as error:  # handed to the calling thread  # noqa: BLE001
            outcome["error"] = error
        finally:
            finished.set()

    helper = threading.Thread(target=work, name="textlab-read-workbook", daemon=True)
    helper.start()
    expected = max(path.stat().st_size / _EXPECTED_BYTES_PER_SECOND, 0.05)
    started = time.perf_counter()
    message = f"Reading {path.name}"
    on_event(Progress(0.0, message))
    while not finished.wait(0.05):
        elapsed = time.perf_counter() - started
        on_event(Progress(0.95 * (1 - math.exp(-elapsed / expected)), message))
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, calamine.CalamineError):
            raise _calamine_error(path, error) from error
        raise error
    return outcome


def read_workbook(path: Path, sheet: str | None, on_event: EventCallback) -> WorkbookTable:
    outcome = _parse_sheet_in_background(path, sheet, sub_progress(on_event, 0.0, 0.6))
    sheets = outcome["sheets"]
    if not sheets:
        raise DataError(
            f'"{path.name}" contains no sheets.',
            "Open it in Excel or LibreOffice, check that the table is there, and save it again.",
        )
    name = outcome["sheet"]
    if "rows" not in outcome:
        listed = ", ".join(f'"{s}"' for s in sheets)
        raise DataError(
            f'"{path.name}" has no sheet called "{name}".',
            f"Choose one of its sheets: {listed}.",
        )
    sheet_data = outcome.pop("rows")
    _check_row_limit(path, name, sheet_data)
    with gc_paused():
        rows, skipped, titles = _rows_as_columns(sheet_data, path.name, sub_progress(on_event, 0.6, 0.85))
        del sheet_data
        if rows is not None:
            frame = _typed_frame(rows[1], path.name, sub_progress(on_event, 0.85, 1.0))
    if rows is None:
        if has_uncalculated_formulas(path, name):
            raise uncalculated_formulas(path.name, name)
        raise DataError(
            f'The sheet "{name}" in "{path.name}" is empty.',
            "Choose the sheet that holds your table, or check that the file was saved with "
            "its data.",
            details=f"sheets: {sheets}",
        )
    header = rows[0]
    notices = []
    if "instead_of" in outcome:
        notices.append(other_sheet_notice(outcome["instead_of"], name, sheets))
    if titles:
        notices.append(skipped_rows_notice(skipped, titles, skipped + 1))
    elif skipped:
        notices.append(
            f'The first {skipped} rows of the sheet "{name}" are empty; row {skipped + 1} is '
            "used as the column names."
        )
    return WorkbookTable(frame, header, name, sheets, notices, first_row=skipped + 2)


def _check_row_limit(path: Path, sheet: str, sheet_data) -> None:  # noqa: ANN001 — calamine's sheet
    """A :class:`DataError` when the sheet holds (or says it holds) more rows than a spreadsheet can:
    such a file was cut off or damaged when it was saved, so its table cannot be trusted."""
    rows = max(int(getattr(sheet_data, "total_height", 0) or 0), int(getattr(sheet_data, "height", 0) or 0))
    if rows > EXCEL_ROW_LIMIT:
        raise DataError(
            f'The sheet "{sheet}" in "{path.name}" has {rows:,} rows, more than the {EXCEL_ROW_LIMIT:,} '
            "a spreadsheet can hold, so part of the table may be missing or damaged.",
            "Save the table as CSV or Parquet (for example with the program that made it) and open "
            "that file instead: they hold any number of rows.",
        )


def _rows_as_columns(sheet_data, file_name: str, on_event: EventCallback):
    """(header cells, one list of values per column) from the sheet's rows, skipping empty
    rows and title rows above the header (see :mod:`header_row`); None for an empty sheet.
    Also returns how many rows were skipped and the skipped titles ("" when none)."""
    total = max(sheet_data.end[0] + 1 if sheet_data.end else sheet_data.height, 1)
    rows = sheet_data.iter_rows()
    skipped = 0
    first = None
    for row in rows:
        if any(cell != "" for cell in row):
            first = row
            break
        skipped += 1
    if first is None:
        return None, skipped, ""
    head = [first, *islice(rows, LOOK_AHEAD - 1)]
    found = find_header_row(head)
    titles = ""
    if found is not None and found.index > 0:
        titles = found.describe(head)
        skipped += found.index
        head = head[found.index:]
    header = head[0]
    columns: list[list] = [[] for _ in header]
    for column, values in zip(columns, zip(*head[1:])):
        column.extend(values)
    done = skipped + len(head)
    while chunk := list(islice(rows, ROWS_PER_STEP)):
        for column, values in zip(columns, zip(*chunk)):
            column.extend(values)
        done += len(chunk)
        on_event(Progress(done / total, f"Reading {file_name}: {done:,} rows"))
    return (list(header), columns), skipped, titles


def _typed_frame(columns: list[list], file_name: str, on_event: EventCallback) -> pd.DataFrame:
    import pandas as pd
    total = max(sum(len(c) for c in columns), 1)
    done = 0
    series = {}
    for position, values in enumerate(columns):
        done += len(values)
        series[position] = _typed_series(values)  # empties values: frees the cells as we go
        on_event(Progress(done / total, f"Reading {file_name}: preparing columns"))
    return pd.DataFrame(series, index=pd.RangeIndex(len(next(iter(series.values()), []))))


def _slices(values: list) -> list[list]:
    step = VALUES_PER_STEP
    return [values[start : start + step] for start in range(0, len(values), step)]


def _consume(parts: list[list]) -> Iterator[list]:
    """Hand out the slices one by one, dropping each from ``parts`` as it goes."""
    for i in range(len(parts)):
        part, parts[i] = parts[i], []
        yield part


def _timestamps(parts: list[list], with_times: bool) -> pd.Series:
    """Dates and date-times as ``datetime64[us]`` (pyarrow converts them ~10x faster than
    numpy; dates become midnight)."""
    import pyarrow as pa
    chunks = []
    for part in _consume(parts):
        if with_times:  # pyarrow wants datetime objects only for a timestamp array
            part = [v if type(v) is not dt.date else dt.datetime(v.year, v.month, v.day)
                    for v in part]
            chunks.append(pa.array(part, type=pa.timestamp("us")))
        else:
            chunks.append(pa.array(part, type=pa.date32()).cast(pa.timestamp("us")))
    return pa.chunked_array(chunks, type=pa.timestamp("us")).to_pandas()


def _typed_series(values: list) -> pd.Series:
    """One column as the most specific pandas dtype that holds its cells unchanged; empties
    the ``values`` list. calamine gives "" for an empty cell; that becomes missing.

    Works slice by slice so that no single call holds the GIL for long, even for a million
    cells, and lets go of the cells slice by slice too: freeing a million strings at once
    would itself stall the GUI for ~50 ms."""
    import pandas as pd
    import pyarrow as pa
    parts = _slices(values)
    values.clear()  # the slices still hold the cells
    kinds: set[type] = set()
    for i, part in enumerate(parts):
        if "" in part:
            parts[i] = part = [None if v == "" else v for v in part]
        kinds |= set(map(type, part))
    has_missing = type(None) in kinds
    kinds.discard(type(None))
    if kinds and kinds <= {str}:
        chunks = [pa.array(part, type=pa.large_string()) for part in _consume(parts)]
        return pa.chunked_array(chunks, type=pa.large_string()).to_pandas()
    if kinds and kinds <= {int, float}:
        numbers = np.concatenate([np.array(part, dtype=float) for part in _consume(parts)])
        whole = not has_missing and all(
            bool(np.all(np.mod(part, 1) == 0) and np.all(np.abs(part) < _INT64_LIMIT))
            for part in np.array_split(numbers, max(len(numbers) // VALUES_PER_STEP, 1))
        )
        return pd.Series(numbers.astype(np.int64) if whole else numbers)
    if kinds and kinds <= {bool} and not has_missing:
        return pd.Series(np.concatenate([np.array(part, dtype=bool) for part in parts]))
    if kinds and kinds <= {dt.date, dt.datetime}:
        return _timestamps(parts, with_times=dt.datetime in kinds)
    if kinds and kinds <= {dt.timedelta}:
        return pd.Series(np.concatenate([np.array(p, dtype="timedelta64[us]") for p in parts]))
    objects = np.empty(sum(len(part) for part in parts), dtype=object)
    start = 0
    for part in parts:
        objects[start : start + len(part)] = part
        start += len(part)
    return pd.Series(objects, dtype=object)
