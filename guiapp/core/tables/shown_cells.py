"""Cells as a researcher reads them on screen: a column of dates whose times are all midnight shows
dates only ("2003-05-19", not "2003-05-19 00:00:00"); whole numbers lose their ".0"; a column of
dates with times shows them to the minute, or to the second where any has seconds.

The rule is the whole column's, so that every row of one column looks alike: one timestamp with a
time of day keeps the times of the others.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from guiapp.core.tables.cell_values import cell_text

if TYPE_CHECKING:  # pandas loads on first use
    import pandas as pd

DATE = "%Y-%m-%d"
MINUTES = "%Y-%m-%d %H:%M"
SECONDS = "%Y-%m-%d %H:%M:%S"


def date_formats(frame: pd.DataFrame, columns: Iterable | None = None) -> dict:
    """Column → how its dates are written (``DATE``, ``MINUTES`` or ``SECONDS``), for the columns of
    ``frame`` (or ``columns``) that hold dates; other columns are left out."""
    import pandas as pd

    formats = {}
    for column in frame.columns if columns is None else columns:
        series = frame[column]
        if pd.api.types.is_datetime64_any_dtype(series):
            stamps = series.dropna()
        elif series.dtype == object:
            values = series.dropna()
            if values.empty or not all(isinstance(v, _dt.datetime) for v in values.head(1000)):
                continue
            try:
                stamps = pd.to_datetime(values, utc=any(getattr(v, "tzinfo", None) for v in values.head(1000)))
            except (TypeError, ValueError):
                continue
        else:
            continue
        if stamps.empty:
            continue
        formats[column] = _format_of(stamps)
    return formats


def _format_of(stamps: pd.Series) -> str:
    if (stamps.dt.second != 0).any() or (stamps.dt.microsecond != 0).any():
        return SECONDS
    if (stamps.dt.hour != 0).any() or (stamps.dt.minute != 0).any():
        return MINUTES
    return DATE


def shown_cell(value: object, date_format: str | None = None) -> str:
    """One cell as text ("" when missing); ``date_format``: its column's (see :func:`date_formats`)."""
    text = cell_text(value)
    if text is not None and date_format is not None and isinstance(value, _dt.datetime):
        return value.strftime(date_format)
    return "" if text is None else text


def shown_row(frame: pd.DataFrame, row: object, columns: Iterable, formats: Mapping) -> dict[str, str]:
    """Column → the text of ``row``'s cell, for ``columns`` of ``frame``; ``formats`` from
    :func:`date_formats`."""
    return {column: shown_cell(frame.at[row, column], formats.get(column)) for column in columns}
