"""Reading the Data step's table off the GUI thread (open, read again), and the line under its
name that says what was read: rows, columns, kind of file, separator and encoding."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.study.mapping import ColumnMapping, check_mapping, suggest_mapping
from guiapp.core.study.table_changes import TableChanges, compare_tables, keep_mapping
from guiapp.core.tables.reader import LoadedTable, read_table
from guiapp.core.tables.text_sniffing import describe_encoding

if TYPE_CHECKING:  # pandas loads with the first table, not when the window opens
    import pandas as pd

FORMAT_NAMES = {
    "xlsx": "Excel workbook", "xlsm": "Excel workbook with macros", "xls": "Excel 97–2003 workbook",
    "xlsb": "Excel binary workbook", "ods": "OpenDocument spreadsheet", "csv": "CSV file",
    "tsv": "tab-separated file", "txt": "text file", "parquet": "Parquet file",
}
DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "vertical bars"}


def read_and_suggest(
    path: Path, sheet: str | None = None, wanted: ColumnMapping | None = None, on_event: EventCallback = ignore_events
) -> tuple[LoadedTable, ColumnMapping]:
    """Read a table and guess its column roles, both off the GUI thread. ``wanted`` (the mapping
    of an opened study) is used when its columns are in the table; otherwise the guess is."""
    table = read_table(path, sheet=sheet, on_event=on_event)
    if wanted is not None:
        try:
            check_mapping(table.frame, wanted)
        except DataError as error:
            table.notices.append(f"The study's column roles do not fit this table ({error.message}); TextLab guessed them again.")
        else:
            return table, wanted
    return table, suggest_mapping(table.frame)


def read_again(
    path: Path, sheet: str | None, mapping: ColumnMapping, before: pd.DataFrame, on_event: EventCallback = ignore_events
) -> tuple[LoadedTable, ColumnMapping, TableChanges]:
    """Read a table again (Reload), keeping every column role whose column is still there, and
    say what changed since ``before`` (the version on screen). Off the GUI thread."""
    table = read_table(path, sheet=sheet, on_event=on_event)
    kept, lost = keep_mapping(mapping, table.frame.columns)
    # a column that lists several categories per cell is not compared as single categories
    changes = compare_tables(before, table.frame, None if kept.multi_label else kept.category_column)
    changes.lost_roles = lost
    return table, kept, changes


def table_details(table: LoadedTable, test_file: tuple[str, str | None] | None) -> str:
    """E.g. "1,204 rows  ·  5 columns  ·  CSV file  ·  values separated by semicolons  ·  encoding …";
    ``test_file``: the separate file of test texts set in the study file, if any."""
    rows, columns = table.frame.shape
    parts = [f"{rows:,} rows", f"{columns} columns", FORMAT_NAMES.get(table.file_format, table.file_format)]
    if test_file is not None:
        parts.append(f"test texts from {Path(test_file[0]).name} (set in the study file)")
    if table.delimiter:
        parts.append(f"values separated by {DELIMITER_NAMES.get(table.delimiter, repr(table.delimiter))}")
    if table.encoding:
        parts.append(f"encoding {describe_encoding(table.encoding)}")
    return "  ·  ".join(parts)
