"""Export the predictions table (see :mod:`guiapp.core.export.predictions`) as CSV or Parquet.

CSV is UTF-8 with a byte-order mark, so Excel opens it with the right characters (as
``predictions.csv`` of a study); Parquet keeps the column types (probabilities stay float32).
Both are written in chunks to a temporary file next to the target, reporting progress between
chunks; an error or :class:`~guiapp.core.events.Cancelled` from ``on_event`` leaves no file.

:func:`write_results_csv` writes a study's results as a folder of CSV files, the tables of the Excel
workbook one file each, for R, Stata or SPSS: the model comparison, the scores per category, the
confusion matrices (where a text can have several categories: a 2×2 table per category) and the
test texts with every model's answer (several categories joined by "; ", a probability per category).
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


# -- a study's results as a folder of CSV files ----------------------------------------------------------
COMPARISON_CSV = "model comparison.csv"
CATEGORY_CSV = "scores per category.csv"
CONFUSION_CSV = "confusion matrices.csv"
CATEGORY_TABLES_CSV = "per-category tables.csv"
TEST_TEXTS_CSV = "test texts.csv"


def results_frames(result) -> dict[str, pd.DataFrame]:  # noqa: ANN001 — an ExperimentResult
    """The tables of :func:`write_results_csv`, by file name (the same numbers as the workbook's sheets)."""
    from guiapp.core.export.excel_comparison import (
        category_headers,
        category_rows,
        has_sensitivity,
        ordered,
        summary_headers,
        summary_row,
    )
    from guiapp.core.export.excel_confusion import (
        CATEGORY_TABLE_HEADERS,
        category_table_rows,
    )

    models = ordered(result)
    frames = {
        COMPARISON_CSV: pd.DataFrame([summary_row(model, result.multi_label, has_sensitivity(result))
                                      for model in models],
                                     columns=summary_headers(result)),
        CATEGORY_CSV: pd.DataFrame([row for model in result.finished_models() for row in category_rows(result, model)],
                                   columns=category_headers(result)),
    }
    if result.multi_label:
        frames[CATEGORY_TABLES_CSV] = pd.DataFrame(
            [[model.name, *row] for model in result.finished_models() for row in category_table_rows(result, model)],
            columns=["Model", *CATEGORY_TABLE_HEADERS])
    else:
        frames[CONFUSION_CSV] = _confusion_frame(result)
    frames[TEST_TEXTS_CSV] = _test_texts_frame(result)
    return frames


def _confusion_frame(result) -> pd.DataFrame:  # noqa: ANN001 — an ExperimentResult
    """Every model's confusion matrix in long form: model, your coding, the model's answer, test texts."""
    rows = [[model.name, coded, predicted, int(count)]
            for model in result.finished_models()
            for coded, counts in zip(result.categories, model.test.confusion, strict=True)
            for predicted, count in zip(result.categories, counts, strict=True)]
    return pd.DataFrame(rows, columns=["Model", "Your coding", "Model's prediction", "Test texts"])


def _test_texts_frame(result) -> pd.DataFrame:  # noqa: ANN001 — an ExperimentResult
    from guiapp.core.export.excel_documents import (
        answer_headers,
        answered_models,
        several_categories_columns,
    )

    if result.multi_label:
        return pd.DataFrame({header: values for header, values, _ in several_categories_columns(result)})
    n = len(result.test_true)
    categories = result.categories
    frame = pd.DataFrame({
        "Row in your spreadsheet": list(result.test_rows) if len(result.test_rows) == n else list(range(2, n + 2)),
        "ID": list(result.test_ids) if len(result.test_ids) == n else [None] * n,
        "Text": list(result.test_texts) if len(result.test_texts) == n else [None] * n,
        "Your coding": [categories[code] for code in result.test_true],
    })
    for model in answered_models(result):
        answer, confidence, agrees = answer_headers(model.name)
        frame[answer] = [categories[code] for code in model.predictions]
        if model.probabilities is not None and len(model.probabilities) == n:
            frame[confidence] = [row[code] for row, code in zip(model.probabilities, model.predictions, strict=True)]
        frame[agrees] = [int(a == b) for a, b in zip(model.predictions, result.test_true, strict=True)]
    return frame


def write_results_csv(
    folder: str | Path,
    result,  # noqa: ANN001 — an ExperimentResult
    *,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    on_event: EventCallback = ignore_events,
) -> list[Path]:
    """Write the tables of :func:`results_frames` into ``folder`` (created if needed), UTF-8 with a
    byte-order mark so Excel reads them right; each file whole or not at all. Returns their paths."""
    from guiapp.core.export.target import study_data_files

    frames = results_frames(result)
    keep = [*protected, *study_data_files(result)]
    written = []
    for done, (name, frame) in enumerate(frames.items(), start=1):
        path = Path(folder) / name
        with writing_to(path, overwrite, keep) as temporary:
            frame.to_csv(temporary, index=False, encoding="utf-8-sig", lineterminator="\n")
        written.append(path)
        on_event(Progress(done / len(frames), f"Writing {name}", done=done, total=len(frames)))
    return written
