"""Where the texts to predict come from, on the Predict step: a file (chosen or dropped onto the
window) or the rows of the study's own table that have no category yet; which sheet; which
column(s) hold the text; and a glimpse of the first rows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QTableView, QWidget

from guiapp.core.errors import UserError
from guiapp.core.predict.new_texts import text_columns_for, uncoded_rows
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.reader import LoadedTable, read_table
from guiapp.ui import theme
from guiapp.ui.common.column_check_list import ColumnCheckList
from guiapp.ui.common.frame_model import DataFrameModel
from guiapp.ui.common.job_progress import JobProgress
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.open_table_dialog import ask_table_path
from guiapp.workers import Worker, WorkerSlot

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

PREVIEW_ROWS = 5
OWN_TABLE = "the rows of your table without a category"


class NewTextsSource(QWidget):
    """Holds the table of new texts (``frame``) and the chosen text columns."""

    changed = Signal()  # a table was read, or the text columns changed
    failed = Signal(object, str)  # an error while reading, and what was being done

    def __init__(self, study_table: Callable[[], tuple[pd.DataFrame | None, ColumnMapping | None]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._study_table = study_table
        self._study_columns: list[str] = []
        self._slot = WorkerSlot(self)
        self.frame: pd.DataFrame | None = None
        self.path: Path | None = None  # None for the study's own uncoded rows
        self.sheet: str | None = None
        self.own_rows: pd.Index | None = None  # the table's uncoded rows when last counted (refresh_own_rows)

        self.choose_button = QPushButton("Choose a file…", objectName="chooseNewTexts", toolTip=(
            "A spreadsheet with one text per row (Excel, CSV, ODS, Parquet …). It is only read, never changed."),
            clicked=self.choose)
        self.own_button = QPushButton("Use the uncoded rows of your table", objectName="useUncodedRows", toolTip=(
            "Predict the rows of the table you opened on the Data step that have a text but no category yet."),
            clicked=self.use_uncoded_rows)
        self.drop_hint = QLabel("… or drop a file onto this window.", objectName="dropHint")
        self.drop_hint.setStyleSheet(theme.HINT_STYLE)
        buttons = hbox(None, self.choose_button, self.own_button, self.drop_hint, STRETCH)

        self.label = QLabel("No texts chosen yet.", objectName="newTextsLabel")
        self.label.setWordWrap(True)
        self.reading = JobProgress()
        self.reading.hide()
        self.sheet_label = QLabel("Sheet:")
        self.sheet_combo = QComboBox(objectName="newTextsSheet")
        self.sheet_combo.activated.connect(self._sheet_chosen)
        self.columns_label = QLabel("Column(s) with the text:")
        self.columns_list = ColumnCheckList("newTextsColumns", max_height=110)
        self.columns_list.setToolTip("Tick the column that holds the texts. Several ticked columns are "
                                     "joined, as they were for your coded texts.")
        self.columns_list.itemChanged.connect(lambda _item: self.changed.emit())
        self.preview = QTableView(objectName="newTextsPreview")
        self.preview.setMaximumHeight(170)
        self.preview.verticalHeader().setDefaultSectionSize(24)
        self.preview_model = DataFrameModel()
        self.preview.setModel(self.preview_model)
        sheet_row = hbox(None, self.sheet_label, self.sheet_combo, STRETCH)
        self.details = QWidget()
        vbox(self.details, sheet_row, self.columns_label, self.columns_list, QLabel("The first rows:"), self.preview,
             margins=(0, 0, 0, 0))
        self.details.hide()

        vbox(self, buttons, self.label, self.reading, self.details, margins=(0, 0, 0, 0))
        self.refresh_own_rows()

    # -- what the page asks -------------------------------------------------------------------------
    def set_study_columns(self, columns: list[str]) -> None:
        """The text column(s) the models were trained on, ticked first when a new table has them."""
        self._study_columns = list(columns)

    def text_columns(self) -> list[str]:
        return self.columns_list.checked()

    def source_name(self) -> str:
        return self.path.name if self.path is not None else OWN_TABLE

    def is_busy(self) -> bool:
        return self._slot.is_busy()

    def cancel_jobs(self) -> None:
        self._slot.cancel()

    def refresh_own_rows(self) -> None:
        """Enable "use the uncoded rows" only when the study's table has such rows."""
        frame, mapping = self._study_table()
        self.own_rows = None if frame is None or mapping is None else uncoded_rows(frame, mapping).index
        count = 0 if self.own_rows is None else len(self.own_rows)
        self.own_button.setEnabled(count > 0)
        self.own_button.setText(f"Use the {count:,} uncoded rows of your table" if count
                                else "Use the uncoded rows of your table")
        if not count:
            self.own_button.setToolTip("Your table has no rows with a text but no category. Choose a file instead.")

    # -- choosing -----------------------------------------------------------------------------------
    def choose(self) -> None:
        path = ask_table_path(self, "Open the texts to predict", str(Path.home()))
        if path is not None:
            self.open_path(path)

    def open_path(self, path: Path, sheet: str | None = None) -> None:
        """Read ``path`` in the background; the texts shown so far stay until it is read."""
        worker = Worker(read_table, Path(path), sheet, name=f"read {Path(path).name}", light=True)
        worker.signals.finished.connect(lambda table, w=worker: self._read(w, table))
        worker.signals.failed.connect(lambda error, w=worker: self._ended(w, error))
        worker.signals.cancelled.connect(lambda w=worker: self._ended(w, None))
        self.reading.show()
        self.reading.attach(worker, f"Reading {Path(path).name}…")
        self._slot.start(worker)

    def use_uncoded_rows(self) -> None:
        frame, mapping = self._study_table()
        if frame is None or mapping is None:
            return
        self._show(uncoded_rows(frame, mapping), None, None, [])  # each row keeps its own number
        self.columns_list.set_checked(mapping.text_columns)
        self.changed.emit()

    def clear(self) -> None:
        self.frame, self.path, self.sheet = None, None, None
        self.label.setText("No texts chosen yet.")
        self.details.hide()
        self.changed.emit()

    # -- reading ended ------------------------------------------------------------------------------
    def _read(self, worker: Worker, table: LoadedTable) -> None:
        if worker is not self._slot.current:
            return
        self.reading.hide()
        if len(table.frame) == 0:
            self.failed.emit(UserError(f"{table.path.name} has no rows below its header, so there is nothing to predict.",
                                       "Choose the file (or sheet) that holds the texts."), "Reading the texts to predict")
            return
        self._show(table.frame, table.path, table.sheet, table.sheets)
        self.changed.emit()

    def _ended(self, worker: Worker, error: BaseException | None) -> None:
        if worker is not self._slot.current:
            return
        self.reading.hide()
        if error is not None:
            self.failed.emit(error, "Reading the texts to predict")

    def _sheet_chosen(self, index: int) -> None:
        if self.path is not None and self.sheet_combo.itemText(index) != self.sheet:
            self.open_path(self.path, self.sheet_combo.itemText(index))

    def _show(self, frame: pd.DataFrame, path: Path | None, sheet: str | None, sheets: list[str]) -> None:
        self.frame, self.path, self.sheet = frame, path, sheet
        where = path.name + (f", sheet “{sheet}”" if sheet and len(sheets) > 1 else "") if path else OWN_TABLE
        self.label.setText(f"<b>{len(frame):,} rows</b> from {where}")
        self.label.setToolTip(str(path) if path else "")
        self.sheet_combo.clear()
        self.sheet_combo.addItems(sheets)
        if sheet:
            self.sheet_combo.setCurrentText(sheet)
        self.sheet_label.setVisible(len(sheets) > 1)
        self.sheet_combo.setVisible(len(sheets) > 1)
        ticked = [str(column) for column in text_columns_for(frame, self._study_columns)]
        self.columns_list.set_columns([str(column) for column in frame.columns], ticked)
        self.preview_model.set_frame(frame.head(PREVIEW_ROWS))
        self.details.show()
