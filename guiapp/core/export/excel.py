"""Export predictions and a study's results to one Excel workbook (XlsxWriter).

Sheets, each written only when its data is there: *Predictions* (the user's table, untouched,
with each model's prediction, probabilities and top words beside it), *Model comparison*
(scores with their interval, per-category scores, a bar chart of macro-F1), *Is the best really
better*, *Confusion matrices*, *Test documents* (each test text with your coding and every model's
answer), *Settings* (the study in words, the fixes of the categories included) and *Findings* (the
categories' shares in a corpus with their intervals). Where a text can have several categories the
comparison adds micro-F1, exact match and Hamming loss, the scores per category their intervals and
thresholds, *Per-category tables* (a 2×2 table per category) replaces the confusion matrices, and
the test documents list categories joined by "; " with a probability per category. Every number
has a format (scores 0.000, shares 0.0 %, counts whole), every header row is frozen. Large tables (``CONSTANT_MEMORY_ROWS`` rows or more) are
written in XlsxWriter's ``constant_memory`` mode: every sheet is written top to bottom, so the
same code serves both modes and gives the same cells.

The workbook is written to a temporary file next to the target and renamed into place when
complete; an error or :class:`~guiapp.core.events.Cancelled` from ``on_event`` leaves no file.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd
import xlsxwriter

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.export.excel_attributions import write_attributions_sheets
from guiapp.core.export.excel_comparison import write_comparison_sheet
from guiapp.core.export.excel_confusion import write_confusion_sheet
from guiapp.core.export.excel_documents import write_test_documents_sheet
from guiapp.core.export.excel_learning_curve import write_learning_curve_sheet
from guiapp.core.export.excel_paired import write_paired_sheet
from guiapp.core.export.excel_predictions import write_predictions_sheet
from guiapp.core.export.excel_settings import write_settings_sheet
from guiapp.core.export.excel_style import Styles
from guiapp.core.export.excel_subgroups import write_subgroups_sheet
from guiapp.core.export.excel_findings import write_findings_sheets
from guiapp.core.export.predictions import ModelPredictions, check_rows, model_columns
from guiapp.core.export.target import study_data_files, writing_to

EXCEL_MAX_ROWS = 1_048_576  # header included
EXCEL_MAX_COLUMNS = 16_384
CONSTANT_MEMORY_ROWS = 50_000


def check_excel_size(table: pd.DataFrame, models: Sequence[ModelPredictions]) -> None:
    """A :class:`UserError` when Excel cannot hold the predictions table."""
    rows = len(table) + 1
    if rows > EXCEL_MAX_ROWS:
        raise UserError(
            f"Excel cannot hold that many rows: the table has {len(table):,} texts, and a worksheet "
            f"holds at most {EXCEL_MAX_ROWS - 1:,} below its header row.",
            "Export the predictions as CSV or Parquet instead.",
        )
    blocks = model_columns(table, models)
    columns = blocks[-1].first + len(blocks[-1].names) if blocks else table.shape[1]
    if columns > EXCEL_MAX_COLUMNS:
        raise UserError(
            f"Excel cannot hold that many columns: the predictions need {columns:,}, and a worksheet "
            f"holds at most {EXCEL_MAX_COLUMNS:,}.",
            "Export fewer models at a time, or export CSV or Parquet instead.",
        )


def _protected(result: ExperimentResult | None, protected: Iterable[str | Path]) -> list[str | Path]:
    return [*protected, *study_data_files(result)]


def _discard(workbook: xlsxwriter.Workbook) -> None:
    """Close the row files that ``constant_memory`` mode keeps open (the workbook is abandoned)."""
    for sheet in workbook.worksheets():
        handle = getattr(sheet, "row_data_fh", None)
        if handle is not None and not handle.closed:
            handle.close()


def write_excel(
    path: str | Path,
    *,
    table: pd.DataFrame | None = None,
    predictions: Sequence[ModelPredictions] = (),
    result: ExperimentResult | None = None,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    on_event: EventCallback = ignore_events,
    constant_memory: bool | None = None,
    attributions: Sequence[Sequence] | None = None,
    learning_curve=None,  # noqa: ANN001 — a LearningCurveResult: adds the *Learning curve* sheet
    subgroups=None,  # noqa: ANN001 — a SubgroupScores: adds the *Groups of texts* sheet
    findings=None,  # noqa: ANN001 — a Findings: adds the *Findings* sheets
) -> Path:
    """Write the workbook to ``path`` and return it.

    ``table`` with ``predictions`` gives the *Predictions* sheet (``table`` alone: the table by
    itself); ``result`` gives the comparison, confusion matrices, test documents and settings. ``protected`` are files never to write over (the
    study's data files are added from ``result``). ``constant_memory`` None: chosen by size.
    ``attributions`` (explained documents: ``(text, Attribution, Faithfulness | None[, name])``)
    adds the *Word attributions* sheet, and *Explanation faithfulness* when any was checked.
    """
    predictions = list(predictions)
    if table is None and predictions:
        raise ValueError("predictions need the table they belong to")
    if table is None and result is None and attributions is None:
        raise ValueError("nothing to export: give a table with predictions, a result, attributions, or some of them")
    if table is not None:
        check_rows(table, predictions)
        check_excel_size(table, predictions)
    rows = len(table) if table is not None else 0
    if constant_memory is None:
        constant_memory = rows >= CONSTANT_MEMORY_ROWS
    on_event(Progress(0.0, "Preparing the Excel workbook"))
    with writing_to(path, overwrite, _protected(result, protected)) as temporary:
        scratch = tempfile.mkdtemp(prefix="textlab-xlsx-")
        workbook = xlsxwriter.Workbook(
            str(temporary),
            {
                "constant_memory": constant_memory,
                "tmpdir": scratch,
                "strings_to_numbers": False,
                "strings_to_formulas": False,
                "strings_to_urls": False,
                "remove_timezone": True,
            },
        )
        closed = False
        try:
            styles = Styles(workbook)
            share = 0.0 if table is None else 0.85 if result is None else 0.7
            if table is not None:
                write_predictions_sheet(workbook, styles, table, predictions, on_event, 0.0, share)
            if result is not None:
                write_comparison_sheet(workbook, styles, result)
                if len(result.finished_models()) >= 2:
                    write_paired_sheet(workbook, styles, result)
                write_confusion_sheet(workbook, styles, result)
                write_test_documents_sheet(workbook, styles, result, on_event, share, 0.85)
                write_settings_sheet(workbook, styles, result)
            if learning_curve is not None:
                write_learning_curve_sheet(workbook, styles, learning_curve)
            if subgroups is not None:
                write_subgroups_sheet(workbook, styles, subgroups)
            if findings is not None:
                write_findings_sheets(workbook, styles, findings)
            if attributions is not None:
                write_attributions_sheets(workbook, styles, attributions)
            on_event(Progress(0.9, "Saving the Excel workbook"))
            workbook.close()
            closed = True
        finally:
            if not closed:
                _discard(workbook)
            shutil.rmtree(scratch, ignore_errors=True)
        on_event(Progress(1.0, "Excel workbook written", done=rows, total=rows))
    return Path(path)
