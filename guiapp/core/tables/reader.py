"""Reading tables: spreadsheets, delimited text and Parquet into a pandas DataFrame.

CONTRACT:

- ``list_sheets(path) -> list[str]``: sheet names of a workbook (.xlsx .xlsm .xls .ods), ``[]`` for
  other formats. Raises :class:`DataError` with a plain message for unreadable files.
- ``read_table(path, sheet=None, on_event=ignore_events) -> LoadedTable``: reads the whole table.
  ``sheet=None`` means the first visible sheet, or — when that holds no table (a read-me) —
  the visible sheet with the biggest table, with a notice. Reports :class:`Progress` often (at least every ~0.1 s
  of work) and so can be cancelled by the callback raising :class:`Cancelled`.
- Column names are unique, non-empty strings (duplicates renamed "name (2)", empty ones
  "Column 3"); each rename adds a sentence to ``LoadedTable.notices``.
- Cell values: delimited text files keep every cell as a string; workbooks keep native values
  (numbers, booleans, datetimes, strings) — formulas give their cached values; empty cells are
  missing (``pd.NA``/NaN/None) in every format. The frame has a default RangeIndex (positions
  from 0) and records in ``frame.attrs`` where its rows sit in the file (:mod:`rows`): below a
  header in row 1, row ``i`` is spreadsheet row ``i + 2``; title rows or empty rows above the
  header (skipped, see ``header_row.py``) move it down, and a text file whose first line is data
  (no header line; the columns are then called "Column 1" …) starts at row 1.
- A table with column names but no rows of data raises :class:`EmptyTableError` (a
  :class:`DataError`; ``reason`` "no_rows", or "formulas" for an .xlsx whose formulas were
  never calculated). JSON lines (.jsonl, .ndjson, or one JSON object per line under any name)
  are read as a table; stray NUL bytes in text files are dropped, with a notice.
- Empty trailing rows and unnamed empty trailing columns are dropped. What a file really is
  comes from its bytes, not its name: images, PDFs, Word files, web pages and encrypted
  workbooks get a plain error; a workbook named .csv or text named .xls is read as what it is.
- Every failure is a :class:`DataError` whose message says what is wrong and whose hint says how
  to fix it; never a raw pandas/calamine/pyarrow traceback.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.tables.column_names import tidy_table
from guiapp.core.tables.delimited import read_delimited, read_sample
from guiapp.core.tables.empty_data import (
    has_uncalculated_formulas,
    no_data_rows,
    uncalculated_formula_notices,
    uncalculated_formulas,
)
from guiapp.core.tables.file_signatures import GZIP, HTML, PARQUET, WORKBOOK, identify
from guiapp.core.tables.rows import ATTR as ROWS_ATTR, RowOrigin, row_origin, set_row_origin
from guiapp.core.tables.json_lines import JSON_LINES_SUFFIXES, looks_like_json_lines, read_json_lines
from guiapp.core.tables.workbooks import read_workbook, workbook_sheet_names

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".xlsb", ".ods")
DELIMITED_SUFFIXES = (".csv", ".tsv", ".txt", ".tab")
TEXT_SUFFIXES = DELIMITED_SUFFIXES + JSON_LINES_SUFFIXES
PARQUET_SUFFIXES = (".parquet", ".pq")
SUPPORTED_SUFFIXES = WORKBOOK_SUFFIXES + TEXT_SUFFIXES + PARQUET_SUFFIXES


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


_PLAIN_FORMATS = (
    "Excel (.xlsx, .xlsm, .xls, .xlsb), OpenDocument (.ods), CSV or text (.csv, .tsv, .txt, "
    ".tab, also gzip-compressed like .csv.gz), JSON lines (.jsonl) and Parquet (.parquet)"
)


def list_sheets(path: str | Path) -> list[str]:
    path = Path(path)
    with _plain_errors(path):
        if format_suffix(path) not in WORKBOOK_SUFFIXES:
            return []
        _check_is_readable_file(path)
        if identify(path) != WORKBOOK:
            return []
        return workbook_sheet_names(path)


def read_table(
    path: str | Path, sheet: str | None = None, on_event: EventCallback = ignore_events
) -> LoadedTable:
    path = Path(path)
    with _plain_errors(path):
        suffix = format_suffix(path)
        _check_is_readable_file(path)
        content = identify(path)
        reader = _choose_reader(path, suffix, content)
        sha256 = file_sha256(path, sub_progress(on_event, 0.0, 0.05))
        reading = sub_progress(on_event, 0.05, 0.99)
        notices: list[str] = []
        if reader == "workbook":
            read = read_workbook(path, sheet, reading)
            file_format = suffix.lstrip(".") if suffix in WORKBOOK_SUFFIXES else "xlsx"
            loaded = LoadedTable(
                read.frame, path, file_format, sheet=read.sheet, sheets=read.sheets
            )
            header, notices = read.header, read.notices
            origin = RowOrigin(read.first_row, read.sheet if len(read.sheets) > 1 else None)
            if suffix not in WORKBOOK_SUFFIXES:
                notices.insert(
                    0, f'"{path.name}" is a workbook, not a text file; it was read as a workbook.'
                )
        elif reader == "parquet":
            frame, header = _read_parquet(path, reading)
            loaded = LoadedTable(frame, path, "parquet")
            origin = row_origin(frame)  # a snapshot TextLab wrote keeps its spreadsheet's rows
        elif reader == "json":
            lines = read_json_lines(path, reading)
            loaded = LoadedTable(lines.frame, path, "jsonl", encoding="utf-8")
            header, notices = lines.header, lines.notices
            origin = RowOrigin(1)  # one record per line, from line 1
        else:
            text = read_delimited(path, suffix, reading)
            file_format = suffix.lstrip(".") if suffix in DELIMITED_SUFFIXES else "csv"
            loaded = LoadedTable(
                text.frame, path, file_format, encoding=text.encoding, delimiter=text.delimiter
            )
            header, notices = text.header, text.notices
            origin = RowOrigin(text.first_row)
            if suffix not in DELIMITED_SUFFIXES:
                notices.insert(
                    0, f'"{path.name}" holds plain text, not a workbook; it was read as text.'
                )
        loaded.frame, renames = tidy_table(loaded.frame, header)
        if loaded.frame.shape[1] == 0:
            raise DataError(
                f'"{path.name}" holds no table: there are no columns with names or values.',
                "Choose the file (or sheet) that holds your coded texts.",
            )
        if len(loaded.frame) == 0 and reader != "parquet":
            if reader == "workbook" and has_uncalculated_formulas(path, loaded.sheet or ""):
                raise uncalculated_formulas(path.name, loaded.sheet or "")
            raise no_data_rows(path.name, loaded.sheet)
        loaded.notices = notices + renames
        if reader == "workbook":  # a column that is empty because its formulas were never calculated
            loaded.notices += uncalculated_formula_notices(path, loaded.sheet or "", loaded.frame)
        loaded.sha256 = sha256
        set_row_origin(loaded.frame, origin)
        on_event(Progress(1.0, f"Read {len(loaded.frame):,} rows from {path.name}"))
        return loaded


def file_sha256(path: str | Path, on_event: EventCallback = ignore_events) -> str:
    path = Path(path)
    with _plain_errors(path):
        total = max(path.stat().st_size, 1)
        digest = hashlib.sha256()
        done = 0
        with open(path, "rb") as handle:
            while chunk := handle.read(_HASH_CHUNK):
                digest.update(chunk)  # hashlib releases the GIL for large chunks
                done += len(chunk)
                on_event(Progress(done / total, f"Checking {path.name}"))
        return digest.hexdigest()


def format_suffix(path: Path) -> str:
    """The suffix that names the format: ".csv" for "data.csv" and for "data.csv.gz"."""
    suffixes = [s.lower() for s in path.suffixes]
    if len(suffixes) >= 2 and suffixes[-1] == ".gz":
        return suffixes[-2]
    return suffixes[-1] if suffixes else ""


_HASH_CHUNK = 4 << 20


def _check_is_readable_file(path: Path) -> None:
    suffix = format_suffix(path)
    gzipped = path.suffix.lower() == ".gz"
    if path.is_dir():
        raise DataError(
            f'"{path.name}" is a folder, not a file.',
            "Open the folder and choose the spreadsheet or CSV file inside it.",
        )
    if suffix not in SUPPORTED_SUFFIXES or (gzipped and suffix not in TEXT_SUFFIXES):
        shown = "".join(path.suffixes[-2:]) if gzipped else path.suffix
        what = f'files ending in "{shown}"' if shown else "files without an ending like .xlsx"
        raise DataError(
            f'TextLab cannot read "{path.name}": {what} are not tables it knows.',
            f"Save your table in one of these formats and open that file: {_PLAIN_FORMATS}.",
        )
    if path.stat().st_size == 0:
        raise DataError(
            f'"{path.name}" is empty (0 bytes).',
            "It may not have finished saving, downloading or copying. Save or copy it again "
            "and open the new copy.",
        )


def _choose_reader(path: Path, suffix: str, content: str) -> str:
    """"workbook", "parquet" or "text", from what the file holds rather than its name."""
    if content == HTML:
        raise DataError(
            f'"{path.name}" is a web page (HTML), not a spreadsheet, although its name ends in '
            f"{path.suffix}.",
            "Some websites and programs save tables like this. Open it in Excel, save it with "
            "File → Save As → Excel Workbook (.xlsx) and open that copy.",
        )
    if content in (WORKBOOK, PARQUET):
        return content
    if suffix in PARQUET_SUFFIXES:
        raise DataError(
            f'"{path.name}" is not a Parquet file, although its name ends in {path.suffix}.',
            "Choose the original file, or export the table again as Parquet, .xlsx or CSV.",
        )
    if content == GZIP and path.suffix.lower() != ".gz":
        raise DataError(
            f'"{path.name}" is compressed with gzip, although its name ends in {path.suffix}.',
            f'Rename it to "{path.name}.gz", or unpack it with your archive program and open '
            "the unpacked file.",
        )
    if suffix in JSON_LINES_SUFFIXES:
        return "json"
    try:
        sample = read_sample(path, 65536)[0]
    except (OSError, EOFError):  # a broken gzip file: the text reader explains it
        return "text"
    return "json" if looks_like_json_lines(sample) else "text"


def _read_parquet(path: Path, on_event: EventCallback) -> tuple[pd.DataFrame, list[object]]:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetFile(path) as parquet:
        total = max(parquet.metadata.num_rows, 1)
        schema = pa.schema(
            [
                f.with_type(pa.large_string()) if pa.types.is_string(f.type) else f
                for f in parquet.schema_arrow
            ],
            metadata=parquet.schema_arrow.metadata,
        )
        batches, done = [], 0
        for batch in parquet.iter_batches(batch_size=65_536):
            batches.append(batch.cast(schema))  # large strings: free conversion to pandas
            done += batch.num_rows
            on_event(Progress(done / total, f"Reading {path.name}: {done:,} rows"))
        table = pa.Table.from_batches(batches, schema=schema)
    frame = table.to_pandas()
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0:
        frame = frame.reset_index(drop=True)
    frame.attrs.update(_recorded_rows(schema.metadata or {}))
    header = [str(name) for name in frame.columns]
    frame.columns = pd.RangeIndex(frame.shape[1])
    return frame, header


def _recorded_rows(metadata: dict[bytes, bytes]) -> dict[str, object]:
    """The spreadsheet rows recorded in a Parquet snapshot TextLab wrote (pandas keeps a frame's
    ``attrs`` as JSON under ``PANDAS_ATTRS``); nothing for any other file."""
    import json

    try:
        attrs = json.loads(metadata.get(b"PANDAS_ATTRS", b"{}"))
    except ValueError:
        return {}
    recorded = attrs.get(ROWS_ATTR) if isinstance(attrs, dict) else None
    return {ROWS_ATTR: recorded} if isinstance(recorded, dict) else {}


@contextmanager
def _plain_errors(path: Path) -> Iterator[None]:
    """Turn any failure into a :class:`DataError` a user can act on (Cancelled passes)."""
    name = path.name
    try:
        yield
    except DataError:
        raise
    except FileNotFoundError as error:
        raise DataError(
            f'The file "{name}" is no longer there.',
            "It may have been moved, renamed or deleted, or it is on a drive or network share "
            "that is no longer connected. Choose the file again.",
            details=f"{path}\n{error!r}",
        ) from error
    except IsADirectoryError as error:
        raise DataError(
            f'"{name}" is a folder, not a file.',
            "Open the folder and choose the spreadsheet or CSV file inside it.",
            details=repr(error),
        ) from error
    except PermissionError as error:
        raise DataError(
            f'"{name}" is open in another program or you lack permission to read it.',
            "Close it in Excel (or the other program using it) and try again. If it is not open "
            "anywhere, copy it to your Documents folder and open the copy.",
            details=f"{path}\n{error!r}",
        ) from error
    except MemoryError as error:
        raise DataError(
            f'"{name}" is too large to read into this computer\'s memory.',
            "Close other programs and try again, or split the table into smaller files.",
            details=repr(error),
        ) from error
    except OSError as error:
        raise DataError(
            f'"{name}" could not be read.',
            "Check that the drive or network share is still connected, then try again.",
            details=f"{path}\n{type(error).__name__}: {error}",
        ) from error
    except Exception as error:
        raise DataError(
            f'"{name}" could not be read as a table.',
            "Open it in Excel or LibreOffice, save it again as .xlsx or CSV (UTF-8), and open "
            "that file.",
            details=f"{path}\n{type(error).__name__}: {error}",
        ) from error


__all__ = [
    "SUPPORTED_SUFFIXES",
    "DataError",
    "LoadedTable",
    "file_sha256",
    "list_sheets",
    "read_table",
]
