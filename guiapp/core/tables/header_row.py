"""Finding the header row below title lines ("Study 2024", a merged title cell, an export date).

People put one or two lines of title above a table; read naively, the title becomes the column
names and the real column names a row of data. :func:`find_header_row` looks at the first rows
(of a sheet, or records of a text file) and says which row holds the column names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

LOOK_AHEAD = 30  # rows looked at, from the top
MAX_TITLE_ROWS = 5
MAX_NAME_CHARS = 100


@dataclass(frozen=True)
class HeaderRow:
    index: int  # position of the header row among the rows looked at
    titles: tuple[int, ...] = ()  # positions of the title rows skipped above it

    def describe(self, rows: Sequence[Sequence[object]]) -> str:
        """“Study 2024”, “Exported 2024-05-01” (the title rows' text, shortened)."""
        return ", ".join(f"“{_shorten(_row_text(rows[i]))}”" for i in self.titles)


def is_filled(cell: object) -> bool:
    if cell is None:
        return False
    if isinstance(cell, str):
        return bool(cell.strip())
    return not (isinstance(cell, float) and cell != cell)  # NaN


def filled_count(row: Sequence[object]) -> int:
    return sum(1 for cell in row if is_filled(cell))


def find_header_row(rows: Sequence[Sequence[object]]) -> HeaderRow | None:
    """The header row among ``rows`` (None when all are empty). Blank rows are skipped; a few
    non-blank rows that fill one cell (two when the header names six columns or more) are title
    rows when the row below them looks like column names: two or more short, distinct
    strings, none of which comes back as a value in its column further down (as category
    labels would), above rows of data of the same width. Otherwise the first non-blank row is the header."""
    nonblank = [i for i, row in enumerate(rows[:LOOK_AHEAD]) if filled_count(row)]
    if not nonblank:
        return None
    titles: list[int] = []
    for k, i in enumerate(nonblank[: MAX_TITLE_ROWS + 1]):
        n = filled_count(rows[i])
        if titles:
            widest_title = max(filled_count(rows[t]) for t in titles)
            if (n >= 2 and widest_title <= (1 if n < 6 else 2)
                    and _looks_like_names(rows[i], [rows[j] for j in nonblank[k + 1:]])):
                return HeaderRow(i, tuple(titles))
        if n <= 2 and all(isinstance(c, str) for c in rows[i] if is_filled(c)):
            titles.append(i)
            continue
        break
    return HeaderRow(nonblank[0])


def _looks_like_names(row: Sequence[object], below: list[Sequence[object]]) -> bool:
    names = [cell.strip() for cell in row if is_filled(cell) and isinstance(cell, str)]
    if len(names) < 0.8 * filled_count(row) or len(set(names)) < len(names):
        return False
    if any(len(name) > MAX_NAME_CHARS for name in names) or not below:
        return False
    same_width = sum(len(r) == len(row) for r in below) / len(below)
    filled = sum(filled_count(r) >= 2 for r in below) / len(below)
    if same_width < 0.8 or filled < 0.5:
        return False  # no table of that width below it
    come_back = 0  # names that come back as a value in their column, as category labels do
    for position, cell in enumerate(row):
        if not (is_filled(cell) and isinstance(cell, str)):
            continue
        name = cell.strip()
        if any(position < len(r) and isinstance(r[position], str) and r[position].strip() == name
               for r in below):
            come_back += 1
    # a row of category labels repeats them below; one name among three or more may also be a
    # value by chance (a column "debate" holding "first", "second" … "debate")
    return come_back == 0 or (len(names) >= 3 and come_back == 1)


def _row_text(row: Sequence[object]) -> str:
    return " ".join(" ".join(str(cell).split()) for cell in row if is_filled(cell))


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def skipped_rows_notice(count: int, titles: str, header_row: int | None) -> str:
    """"Skipped 2 rows above the header: “Study 2024”, “Exported …”; row 4 holds the column
    names." (``header_row``: the row number a user sees, or None for a text file's line)."""
    rows = "1 row" if count == 1 else f"{count} rows"
    where = f"; row {header_row} is used as the column names" if header_row else ""
    return f"Skipped {rows} above the header: {titles}{where}."
