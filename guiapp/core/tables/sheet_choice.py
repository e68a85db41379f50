"""Which sheet of a workbook to read when the user named none.

The first visible sheet is read when it looks like a table. Workbooks often open with a read-me,
a title page or notes instead; then the other visible sheets are looked at too and the one
with the most data (rows × named columns below a header row) is read, with a notice.
"""

from __future__ import annotations

from itertools import islice

from guiapp.core.tables.header_row import LOOK_AHEAD, filled_count, find_header_row


def table_size(sheet_data) -> int:
    """Rows × columns of data below a header row; 0 when the sheet does not look like a
    table (no header row naming two or more columns, or no row of data filling two cells)."""
    head = list(islice(sheet_data.iter_rows(), LOOK_AHEAD + 10))
    found = find_header_row(head)
    if found is None:
        return 0
    n_columns = filled_count(head[found.index])
    below = head[found.index + 1:]
    if n_columns < 2 or not any(filled_count(row) >= 2 for row in below):
        return 0
    return n_columns * max(sheet_data.height - found.index - 1, 1)


def choose_sheet(workbook, first: str, visible: list[str]):
    """(name, parsed sheet) of the sheet to read: ``first`` if it looks like a table, else
    the visible worksheet with the biggest table (``first`` when none looks like one)."""
    first_data = workbook.get_sheet_by_name(first)
    if table_size(first_data) > 0:
        return first, first_data
    best_name, best_data, best_size = first, first_data, 0
    for name in visible:
        if name == first:
            continue
        data = workbook.get_sheet_by_name(name)
        size = table_size(data)
        if size > best_size:
            best_name, best_data, best_size = name, data, size
    return best_name, best_data


def other_sheet_notice(first: str, chosen: str, sheets: list[str]) -> str:
    others = [f"“{name}”" for name in sheets if name != chosen]
    return (
        f"The first sheet “{first}” does not look like a table, so the sheet “{chosen}” was "
        f"read. The workbook's other sheets: {', '.join(others)}; choose one of them to read "
        "it instead."
    )
