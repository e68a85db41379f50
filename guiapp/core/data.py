"""Reading tables: spreadsheets, delimited text and Parquet into a pandas DataFrame.

CONTRACT (implementation to be filled in):

- ``list_sheets(path) -> list[str]``: sheet names of a workbook (.xlsx .xlsm .xls .ods), ``[]`` for
  other formats. Raises :class:`DataError` with a plain message for unreadable files.
- ``read_table(path, sheet=None, on_event=ignore_events) -> LoadedTable``: reads the whole table.
  ``sheet=None`` means the first sheet. Reports :class:`Progress` often (at least every ~0.1 s
  of work) and so can be cancelled by the callback raising :class:`Cancelled`.
- Column names are unique, non-empty strings (duplicates renamed "name (2)", empty ones
  "Column 3"); each rename adds a sentence to ``LoadedTable.notices``.
- Cell values: delimited text files keep every cell as a string; workbooks keep native values
  (numbers, booleans, datetimes, strings) — formulas give their cached values; empty cells are
  missing (``pd.NA``/NaN/None) in every format. The frame has a default RangeIndex: row ``i``
  is spreadsheet row ``i + 2`` (the header is row 1).
- Every failure is a :class:`DataError` whose message says what is wrong and whose hint says how
  to fix it; never a raw pandas/calamine/pyarrow traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, ignore_events

WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".xlsb", ".ods")
DELIMITED_SUFFIXES = (".csv", ".tsv", ".txt", ".tab")
PARQUET_SUFFIXES = (".parquet", ".pq")
SUPPORTED_SUFFIXES = WORKBOOK_SUFFIXES + DELIMITED_SUFFIXES + PARQUET_SUFFIXES


@dataclass
class LoadedTable:
    """A table read from a file, with what we learned about the file on the way."""

    frame: pd.DataFrame
    path: Path
    file_format: str  # "xlsx", "xls", "ods", "csv", "parquet", …
    sheet: str | None = None  # the sheet read, for workbooks
    sheets: list[str] = field(default_factory=list)  # all sheets of a workbook
    encoding: str | None = None  # detected encoding, for delimited text
    delimiter: str | None = None  # detected delimiter, for delimited text
    sha256: str = ""  # of the file's bytes
    notices: list[str] = field(default_factory=list)  # plain-language remarks (renamed columns …)


def list_sheets(path: str | Path) -> list[str]:
    raise NotImplementedError


def read_table(
    path: str | Path, sheet: str | None = None, on_event: EventCallback = ignore_events
) -> LoadedTable:
    raise NotImplementedError


def file_sha256(path: str | Path, on_event: EventCallback = ignore_events) -> str:
    raise NotImplementedError


__all__ = [
    "DataError",
    "LoadedTable",
    "SUPPORTED_SUFFIXES",
    "file_sha256",
    "list_sheets",
    "read_table",
]
