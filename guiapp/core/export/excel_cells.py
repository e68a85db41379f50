"""Turning pandas columns into Excel cells, fast: one writer per column kind, values as lists.

Numbers stay numbers, text stays text (never read as a formula or a link), dates become Excel
dates, missing values become empty cells. Whole numbers beyond 2**53 and infinities, which Excel
cannot hold as numbers, are written as text so that no digit is lost.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype
from xlsxwriter.format import Format
from xlsxwriter.worksheet import Worksheet

EXACT_INTEGER = 2**53
MAX_WIDTH = 50
MIN_WIDTH = 8
SAMPLE_ROWS = 500


@dataclass
class CellFormats:
    """The workbook's formats that cell values need."""

    date: Format
    datetime: Format
    time: Format
    percent: Format | None = None


def _is_midnight(value: dt.datetime) -> bool:
    return not (value.hour or value.minute or value.second or value.microsecond)


def write_any(sheet: Worksheet, row: int, col: int, value: Any, formats: CellFormats) -> None:
    """Write one value of unknown type (slow path for mixed columns)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return
    if isinstance(value, str):
        sheet.write_string(row, col, value)
    elif isinstance(value, bool | np.bool_):
        sheet.write_boolean(row, col, bool(value))
    elif isinstance(value, int | np.integer):
        number = int(value)
        if abs(number) < EXACT_INTEGER:
            sheet.write_number(row, col, number)
        else:
            sheet.write_string(row, col, str(number))
    elif isinstance(value, float | np.floating):
        number = float(value)
        if math.isfinite(number):
            sheet.write_number(row, col, number)
        elif not math.isnan(number):
            sheet.write_string(row, col, str(number))
    elif isinstance(value, dt.datetime):
        sheet.write_datetime(row, col, value, formats.date if _is_midnight(value) else formats.datetime)
    elif isinstance(value, dt.date):
        sheet.write_datetime(row, col, value, formats.date)
    elif isinstance(value, dt.time):
        sheet.write_datetime(row, col, value, formats.time)
    elif isinstance(value, np.datetime64):
        write_any(sheet, row, col, pd.Timestamp(value).to_pydatetime(), formats)
    else:
        sheet.write_string(row, col, str(value))


ColumnWriter = Callable[[int, int, Any], Any]


def fast_writer(sheet: Worksheet, name: str) -> Callable[..., Any]:
    """XlsxWriter's undecorated ``_write_<name>`` (no A1-notation parsing: ~10 % faster per
    cell), or the public ``write_<name>`` where a version lacks it."""
    return getattr(sheet, f"_write_{name}", getattr(sheet, f"write_{name}"))


def column_writer(
    sheet: Worksheet, series: pd.Series, formats: CellFormats, cell_format: Format | None = None
) -> tuple[list[Any], ColumnWriter]:
    """The values of ``series`` as a list (None = empty cell) and the function that writes one.

    ``cell_format`` (e.g. percent) applies to number columns only.
    """
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype):
        values = series.astype(object).where(series.notna(), None).tolist()
        boolean = fast_writer(sheet, "boolean")
        return values, lambda r, c, v: boolean(r, c, bool(v))
    number = fast_writer(sheet, "number")
    write_number = number if cell_format is None else (lambda r, c, v: number(r, c, v, cell_format))
    if pd.api.types.is_float_dtype(dtype) and isinstance(dtype, np.dtype):
        array = series.to_numpy()
        if np.isfinite(array).all():
            return array.tolist(), write_number
        values = series.astype(object).where(np.isfinite(array), None).tolist()
        odd = {i for i, finite in enumerate(np.isfinite(array)) if not finite and not np.isnan(array[i])}
        if not odd:
            return values, write_number
        values = [str(float(array[i])) if i in odd else value for i, value in enumerate(values)]
        return values, lambda r, c, v: write_any(sheet, r, c, v, formats)
    if pd.api.types.is_integer_dtype(dtype) and isinstance(dtype, np.dtype):
        array = series.to_numpy()
        if len(array) == 0 or (np.abs(array.astype(np.float64)) < EXACT_INTEGER).all():
            return array.tolist(), write_number
        return array.tolist(), lambda r, c, v: write_any(sheet, r, c, v, formats)
    if pd.api.types.is_datetime64_any_dtype(dtype):
        stamps = series.dt.tz_localize(None) if getattr(dtype, "tz", None) is not None else series
        values = stamps.astype(object).where(stamps.notna(), None).tolist()
        return values, lambda r, c, v: write_any(sheet, r, c, v, formats)
    values = series.astype(object).where(series.notna(), None).tolist() if len(series) else []
    kind = infer_dtype(values, skipna=True)
    if kind in ("string", "empty"):
        return values, fast_writer(sheet, "string")
    return values, lambda r, c, v: write_any(sheet, r, c, v, formats)


def write_frame_rows(
    sheet: Worksheet,
    frame: pd.DataFrame,
    first_row: int,
    formats: CellFormats,
    column_formats: dict[int, Format] | None = None,
) -> None:
    """Write ``frame`` (no header) from ``first_row`` down, row by row (constant-memory safe)."""
    column_formats = column_formats or {}
    columns = []
    for col in range(frame.shape[1]):
        values, write = column_writer(sheet, frame.iloc[:, col], formats, column_formats.get(col))
        columns.append((col, values, write))
    for offset in range(len(frame)):
        row = first_row + offset
        for col, values, write in columns:
            value = values[offset]
            if value is not None:
                write(row, col, value)


def text_width(text: str) -> float:
    """Approximate width in Excel's character units (the longest line)."""
    return max((len(line) for line in text.split("\n")), default=0) * 1.1 + 2


def column_width(header: str, series: pd.Series, header_cap: int = 24, cap: int = MAX_WIDTH) -> float:
    """A width that fits the header (its words may wrap) and a sample of values, capped."""
    sample = series.iloc[:SAMPLE_ROWS]
    longest = 0.0
    for value in sample.tolist():
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        if isinstance(value, float):
            text = f"{value:.6g}"
        elif isinstance(value, dt.datetime | pd.Timestamp):
            text = "2024-01-01 00:00:00" if not _is_midnight(value) else "2024-01-01"
        else:
            text = str(value)
        longest = max(longest, text_width(text))
    words = max((len(word) for word in header.split()), default=0) * 1.1 + 2
    head = max(min(text_width(header), header_cap), words)
    return max(MIN_WIDTH, min(cap, max(longest, head)))


def write_cells(sheet: Worksheet, row: int, values: Sequence[Any], formats: Sequence[Format | None] = (),
                text_format: Format | None = None) -> None:
    """One row of a small table: numbers with the format of their column (``formats[col]``), text
    as text (never a formula), None and NaN as empty cells, infinities as text."""
    for col, value in enumerate(values):
        if value is None or value is pd.NA:
            continue
        if isinstance(value, bool | np.bool_):
            sheet.write_string(row, col, "yes" if value else "no", text_format)
        elif isinstance(value, int | float | np.integer | np.floating):
            number = float(value)
            if math.isfinite(number):
                sheet.write_number(row, col, number, formats[col] if col < len(formats) else None)
            elif not math.isnan(number):
                sheet.write_string(row, col, str(number), text_format)
        else:
            sheet.write_string(row, col, str(value), text_format)
