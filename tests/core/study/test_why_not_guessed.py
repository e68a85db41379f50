"""Why no column was guessed as the texts or the categories, column by column."""

from __future__ import annotations

import pandas as pd

from guiapp.core.study.mapping_suggest import why_not


def test_each_column_gets_its_reason() -> None:
    n = 40
    frame = pd.DataFrame({
        "blank": [None] * n, "same": ["yes"] * n, "day": pd.date_range("2021-01-01", periods=n),
        "written_day": [f"{1 + i % 28}.3.2021" for i in range(n)], "count": list(range(n)),
        "share": [i / 3 for i in range(n)], "code": [f"c{i}" for i in range(n)],
        "note": [f"a short comment {i}" if i % 2 else f"b {i}" for i in range(n)],
    })
    category = dict(why_not(frame, "category", {"note": "text"}))
    assert category["blank"] == "empty in every row"
    assert category["same"] == "the same value in every row (“yes”)"
    assert category["day"] == category["written_day"] == "dates"
    assert category["count"] == "numbers, a different value in every row (like IDs)"
    assert category["share"].startswith("numbers with decimals")
    assert category["code"] == "a different value in every row"
    assert category["note"] == "chosen for the texts"
    text = dict(why_not(frame, "text"))
    assert text["count"] == "numbers" and text["code"].startswith("short values (1.0 words on average)")
    assert len(why_not(frame, "text", limit=3)) == 3
