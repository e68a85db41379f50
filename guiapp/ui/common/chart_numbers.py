"""How the charts and the tables beside them write numbers: counts, shares and durations.

Plain functions with no chart library behind them, so that a page can write its numbers before
(or without) drawing a chart.
"""

from __future__ import annotations


def format_count(value: float) -> str:
    """1234567 -> "1,234,567"."""
    return f"{int(round(value)):,}"


def format_share(share: float) -> str:
    """0.234 -> "23.4 %"; tiny non-zero shares are not rounded to zero."""
    percent = share * 100
    if 0 < percent < 0.1:
        return "< 0.1 %"
    return f"{percent:.1f} %"


def format_row_share(share: float) -> str:
    """A cell's share of its row: "45 %", "<1 %" for tiny non-zero shares."""
    percent = share * 100
    if 0 < percent < 0.5:
        return "<1 %"
    return f"{percent:.0f} %"


def format_seconds(seconds: float) -> str:
    """A duration in words: "0.4 s", "12 s", "2 min 05 s", "1 h 02 min"."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
