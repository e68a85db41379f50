"""Tables that Arrow, and so Parquet, can store: a column that mixes numbers and words (as
spreadsheets allow) has no single Arrow type, so its values are kept as text, gaps as gaps."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pyarrow as pa

ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError)


def mixed_columns_as_text(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` with every column Arrow cannot type turned into text, and those columns' names
    (``frame`` itself when there are none; it is never changed)."""
    fixed: pd.DataFrame | None = None
    names: list[str] = []
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        try:
            pa.array(column, from_pandas=True)
        except ARROW_ERRORS:
            fixed = frame.copy(deep=False) if fixed is None else fixed
            fixed.isetitem(position, column.map(_as_text))
            names.append(str(frame.columns[position]))
    return (frame if fixed is None else fixed), names


def _as_text(value: Any) -> Any:
    if isinstance(value, str) or value is None or (not isinstance(value, (list, tuple, dict)) and pd.isna(value)):
        return value
    return str(value)
