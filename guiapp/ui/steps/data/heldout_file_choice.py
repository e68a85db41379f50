"""Where the test texts come from, on the Data step: set aside at random, the split column, or
a separate file of coded test texts with the same columns (read and checked in the background)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.study.mapping import ColumnMapping, check_mapping
from guiapp.core.tables.cell_values import category_labels
from guiapp.core.tables.reader import read_table
from guiapp.ui.common.open_table_dialog import ask_table_path
from guiapp.workers import Worker, WorkerSlot

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd


def read_test_file(path: str, sheet: str | None, mapping: ColumnMapping,
                   on_event: EventCallback = ignore_events) -> tuple[int, pd.DataFrame]:
    """The number of coded texts in a separate test file, and its table; DataError when it lacks
    the study's columns."""
    table = read_table(Path(path), sheet, on_event=on_event)
    wanted = ColumnMapping(text_columns=list(mapping.text_columns), category_column=mapping.category_column,
                           multi_label=mapping.multi_label, category_columns=list(mapping.category_columns),
                           label_separator=mapping.label_separator)
    try:
        check_mapping(table.frame, wanted)
    except DataError as error:
        raise DataError(
            f"The test file {Path(path).name} does not have the study's columns: {error.message}",
            "Choose a file with the same text and category columns as your table.",
        ) from None
    if mapping.multi_label:  # a text can have several categories: coded where any category cell is filled in
        from guiapp.core.study.label_sets import read_label_sets

        return read_label_sets(table.frame, wanted).n_coded, table.frame
    return int(category_labels(table.frame[mapping.category_column]).notna().sum()), table.frame


class HeldOutFileChoice(QWidget):
    """Says where the test texts come from; lets the user pick or drop a separate test file."""

    changed = Signal()  # a test file was accepted or removed

    def __init__(self, mapping: Callable[[], ColumnMapping], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._mapping = mapping
        self.file: tuple[str, str | None] | None = None
        self.count: int | None = None
        self.frame: pd.DataFrame | None = None  # the test file's table once read (a project keeps it)
        self._slot = WorkerSlot(self)
        self.label = QLabel("", objectName="testFileLabel")
        self.label.setWordWrap(True)
        self.choose_button = QPushButton("Use a separate file of test texts…", objectName="chooseTestFile", toolTip=(
            "If your test texts are coded in another file (with the same columns), TextLab tests every "
            "model on them instead of setting texts aside."), clicked=self.choose)
        self.remove_button = QPushButton("Don't use it", objectName="removeTestFile", clicked=self.remove)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.choose_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 6, 10, 8)  # in line with the mapping panel's groups
        title = QLabel("<b>Test texts</b>")
        column.addWidget(title)
        column.addWidget(self.label)
        column.addLayout(buttons)
        self.refresh()

    def refresh(self) -> None:
        split = self._mapping().split_column
        if self._slot.is_busy():
            text = f"Reading {Path(self.file[0]).name if self.file else 'the test file'}…"
        elif self.file is not None and split:
            text = (f"The split column '{split}' says which texts are for testing, so the file "
                    f"{Path(self.file[0]).name} is not used.")
        elif self.file is not None:
            count = f"{self.count:,} coded texts" if self.count is not None else "coded texts"
            text = f"From the file {Path(self.file[0]).name} ({count}); every text of this table is used for training."
        elif split:
            text = f"The rows marked 'test' in the split column '{split}'."
        else:
            text = "Set aside at random from this table (30 % unless changed on the Models step)."
        self.label.setText(text)
        self.remove_button.setVisible(self.file is not None)

    def choose(self) -> None:
        path = ask_table_path(self, "Choose the file with your coded test texts")
        if path is not None:
            self.set_file((str(path), None))

    def set_file(self, file: tuple[str, str | None] | None, on_error: Callable[[BaseException], None] | None = None) -> None:
        """Use ``file`` (path, sheet) once it has been read and checked; None = no test file."""
        self._slot.cancel()
        if file is None:
            self.remove()
            return
        previous = (self.file, self.count, self.frame)
        self.file, self.count, self.frame = file, None, None
        worker = Worker(read_test_file, file[0], file[1], self._mapping(), name="reading the test file", light=True)
        worker.signals.finished.connect(lambda read: self._accepted(*read))
        worker.signals.failed.connect(lambda error: self._refused(previous, error, on_error))
        worker.signals.done.connect(self.refresh)
        self._slot.start(worker)
        self.refresh()

    def remove(self) -> None:
        self._slot.cancel()
        self.file, self.count, self.frame = None, None, None
        self.refresh()
        self.changed.emit()

    def is_busy(self) -> bool:
        return self._slot.is_busy()

    def cancel_jobs(self) -> None:
        self._slot.cancel()

    def _accepted(self, count: int, frame: pd.DataFrame) -> None:
        self.count, self.frame = count, frame
        self.changed.emit()

    def _refused(self, previous, error: BaseException, on_error) -> None:  # noqa: ANN001
        self.file, self.count, self.frame = previous
        if on_error is not None:
            on_error(error)
        self.changed.emit()
