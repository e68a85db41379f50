"""Write the predictions for a table of new texts, as Excel, CSV or Parquet by the file's ending.

One entry point for the command line (``textlab predict``) and the Predict step, so both write
the same file for the same answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.export.excel import write_excel
from guiapp.core.export.flat_files import write_csv, write_parquet
from guiapp.core.export.predictions import ModelPredictions
from guiapp.core.export.target import study_data_files
from guiapp.core.predict.new_texts import NewTextPredictions
from guiapp.core.tables.rows import row_origin, spreadsheet_rows

FORMATS = {".xlsx": "Excel workbook", ".csv": "CSV (comma-separated, UTF-8)", ".parquet": "Parquet"}


def model_predictions(found: NewTextPredictions) -> list[ModelPredictions]:
    """The answers of each model as the export sheets show them (blank where a text was empty)."""
    return [ModelPredictions(name, p.categories, p.predicted, p.probabilities, found.top_words_of(index))
            for index, (name, p) in enumerate(zip(found.models, found.predictions, strict=True))]


def with_row_numbers(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a first column that names each text's row in the file it came from (title
    rows and the header counted, as Excel and LibreOffice show them), so that every answer can be
    traced back to its text; ``table`` itself is not changed."""
    name, taken = row_origin(table).column_name(), {str(column) for column in table.columns}
    while name in taken:
        name += " (TextLab)"
    numbered = table.copy(deep=False)
    numbered.insert(0, name, spreadsheet_rows(table))
    return numbered


def check_output_name(path: str | Path, formats: Iterable[str] = FORMATS,
                      endings: str = ".xlsx (Excel), .csv or .parquet") -> str:
    """The file ending that decides the format (one of ``formats``, described to the user as
    ``endings``); a name without a known ending is explained."""
    suffix = Path(path).suffix.lower()
    if suffix not in formats:
        raise UserError(f"TextLab cannot tell which kind of file “{Path(path).name}” should be.",
                        f"End the name with {endings}.")
    return suffix


def write_predictions(
    path: str | Path,
    table: pd.DataFrame,
    found: NewTextPredictions,
    *,
    result: ExperimentResult | None = None,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    on_event: EventCallback = ignore_events,
) -> Path:
    """Write ``table`` with every model's answers to ``path``; Excel also gets the study's
    comparison, confusion matrices and settings when ``result`` is given."""
    suffix = check_output_name(path)
    predictions = model_predictions(found)
    table = with_row_numbers(table)
    if suffix == ".xlsx":
        return write_excel(path, table=table, predictions=predictions, result=result,
                           overwrite=overwrite, protected=protected, on_event=on_event)
    writer = write_csv if suffix == ".csv" else write_parquet
    protected = [*protected, *study_data_files(result)]
    return writer(path, table, predictions, overwrite=overwrite, protected=protected, on_event=on_event)
