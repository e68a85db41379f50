"""Row numbers as a user sees them in a spreadsheet."""

from __future__ import annotations


def spreadsheet_row(position: int) -> int:
    """The row number a user sees in their spreadsheet (header in row 1)."""
    return position + 2
