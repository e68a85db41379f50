"""The dialog that asks for a table to read (a spreadsheet, CSV or Parquet file), with the file types
TextLab reads: used where the Data step opens a study's table or a separate test file and where the
Predict step opens new texts."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

TABLES = "Tables (*.xlsx *.xlsm *.xls *.xlsb *.ods *.csv *.tsv *.txt *.tab *.parquet *.pq *.gz)"
ALL_FILES = "All files (*)"
TABLE_FILTER = f"{TABLES};;{ALL_FILES}"
TABLE_KINDS_FILTER = ";;".join([  # every table, then each kind on its own
    TABLES, "Excel (*.xlsx *.xlsm *.xls *.xlsb)", "OpenDocument (*.ods)", "CSV and text (*.csv *.tsv *.txt *.tab *.gz)",
    "Parquet (*.parquet *.pq)", ALL_FILES])


def ask_table_path(parent: QWidget, title: str, folder: str = "", kinds: str = TABLE_FILTER) -> Path | None:
    """The table the user chose, starting in ``folder``; None when the dialog was cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, title, folder, kinds)
    return Path(path) if path else None
