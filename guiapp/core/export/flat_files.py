"""Export the predictions table (see :mod:`guiapp.core.export.predictions`) as CSV or Parquet.

CSV is UTF-8 with a byte-order mark, so Excel opens it with the right characters (as
``predictions.csv`` of a study); Parquet keeps the column types (probabilities stay float32).
Both are written in chunks to a temporary file next to the target, reporting progress between
chunks; an error or :class:`~guiapp.core.events.Cancelled` from ``on_event`` leaves no file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.export.predictions import (
    ModelPredictions,
    check_rows,
    predictions_table,
)
from guiapp.core.export.target import writing_to
from guiapp.core.tables.arrow_columns import ARROW_ERRORS, mixed_columns_as_text

CSV_CHUNK_ROWS = 20_000
PARQUET_ROW_GROUP = 50_000


def _progress(on_event: EventCallback, what: str, done: int, rows: int) -> None:
    fraction = done / rows if rows else 1.0
    on_event(Progress(fraction, f"Writing {what}: {done:,} of {rows:,} rows", done=done, total=rows))


def write_csv(
    path: str | Path,
    table: pd.DataFrame,
    predictions: Sequence[ModelPredictions] = (),
    *,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    on_event: EventCallback = ignore_events,
    chunk_rows: int = CSV_CHUNK_ROWS,
) -> Path:
    """Write the predictions table as UTF-8 CSV with a byte-order mark; returns ``path``."""
    predictions = list(predictions)
    check_rows(table, predictions)
    rows = len(table)
    with (
        writing_to(path, overwrite, protected) as temporary,
        open(temporary, "w", encoding="utf-8-sig", newline="") as handle,
    ):
        for start in range(0, max(rows, 1), chunk_rows):
            stop = min(start + chunk_rows, rows)
            chunk = predictions_table(table, predictions, start, stop)
            chunk.to_csv(handle, index=False, header=start == 0, lineterminator="\n")
            _progress(on_event, "CSV", stop, rows)
    return Path(path)


def _arrow_table(frame: pd.DataFrame, on_event: EventCallback) -> pa.Table:
    """``frame`` as an Arrow table; columns of mixed values that Parquet cannot type become text."""
    try:
        return pa.Table.from_pandas(frame, preserve_index=False)
    except ARROW_ERRORS:
        pass
    fixed, names = mixed_columns_as_text(frame)
    for name in names:
        on_event(Log(f"Column '{name}' mixes numbers and text; Parquet stores it as text.", "warning"))
    return pa.Table.from_pandas(fixed, preserve_index=False)


def write_parquet(
    path: str | Path,
    table: pd.DataFrame,
    predictions: Sequence[ModelPredictions] = (),
    *,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    on_event: EventCallback = ignore_events,
    row_group: int = PARQUET_ROW_GROUP,
) -> Path:
    """Write the predictions table as Parquet (zstd-compressed row groups); returns ``path``."""
    predictions = list(predictions)
    check_rows(table, predictions)
    rows = len(table)
    with writing_to(path, overwrite, protected) as temporary:
        on_event(Progress(0.0, "Preparing the Parquet file"))
        arrow = _arrow_table(predictions_table(table, predictions), on_event)
        with pq.ParquetWriter(temporary, arrow.schema, compression="zstd") as writer:
            if rows == 0:
                writer.write_table(arrow)
            for start in range(0, rows, row_group):
                writer.write_table(arrow.slice(start, row_group))
                _progress(on_event, "Parquet", min(start + row_group, rows), rows)
    return Path(path)
