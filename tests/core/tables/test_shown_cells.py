"""Cells as shown on screen: dates at midnight without a time, per column; columns to group by, few values first."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

from guiapp.core.tables.group_columns import group_columns
from guiapp.core.tables.shown_cells import (
    DATE,
    MINUTES,
    date_formats,
    shown_cell,
    shown_row,
)


def test_a_column_of_midnight_dates_shows_dates_only():
    frame = pd.DataFrame({"date": pd.to_datetime(["1996-05-19", "2003-01-01", None]),
                          "stamp": pd.to_datetime(["1996-05-19 00:00", "2003-01-01 14:30", None]),
                          "year": [1996.0, 2003.0, np.nan], "party": ["A", "B", None]})
    formats = date_formats(frame)
    assert formats == {"date": DATE, "stamp": MINUTES}
    assert shown_row(frame, 0, ["date", "stamp", "year", "party"], formats) == {
        "date": "1996-05-19", "stamp": "1996-05-19 00:00", "year": "1996", "party": "A"}
    assert shown_row(frame, 2, ["date", "year", "party"], formats) == {"date": "", "year": "", "party": ""}
    assert shown_cell(pd.Timestamp("2003-01-01 00:00:00")) == "2003-01-01"  # alone: ISO date


def test_dates_held_as_python_objects_are_read_too():
    frame = pd.DataFrame({"when": [dt.datetime(2001, 2, 3), dt.datetime(2001, 2, 4), None]}, dtype=object)
    assert date_formats(frame) == {"when": DATE}
    assert shown_row(frame, 1, ["when"], date_formats(frame)) == {"when": "2001-02-04"}


def test_columns_with_few_values_come_first_and_ids_and_days_last():
    rng = np.random.default_rng(0)
    n = 3104
    frame = pd.DataFrame({"id": np.arange(n),
                          "date": pd.Timestamp("1996-01-01") + pd.to_timedelta(rng.integers(0, 4000, n), unit="D"),
                          "year": rng.integers(1996, 2007, n), "outlet": rng.choice(["Times", "Post", "Herald"], n)})
    offered = group_columns(frame, ["id", "date", "year", "outlet"])
    assert [c.name for c in offered] == ["outlet", "year", "id", "date"] or \
        [c.name for c in offered] == ["outlet", "year", "date", "id"]
    assert [c.nearly_unique for c in offered] == [False, False, True, True]
    assert offered[0].label == "outlet (3 groups)" and offered[1].label == "year (11 groups)"
    assert "nearly one value per text" in offered[-1].label and "different values" in offered[-1].tip
