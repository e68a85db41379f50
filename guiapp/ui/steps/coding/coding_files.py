"""The Coding step's files: a second file of texts to code (read in the background, made to fit the
study) and "Export codings…" (the table with every coding made in TextLab, as Excel or CSV). Neither
the spreadsheet nor the second file is ever changed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from guiapp.core.coding.coding_record import SOURCES
from guiapp.core.coding.second_file import file_name
from guiapp.core.errors import UserError
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.open_table_dialog import ask_table_path
from guiapp.ui.common.save_dialogs import ask_save_path, proposed_name
from guiapp.workers import Worker, WorkerSlot

SECOND_FILE = SOURCES[1]
OPENING = "Opening a file of texts to code"


def snapshot(log):  # noqa: ANN001, ANN201 — a CodingLog
    """A copy of the record for a job in the background (coding goes on meanwhile)."""
    return log.copy()


def _export_job(path, table, mapping, log, codebook, coding_texts, on_event):  # noqa: ANN001, ANN202
    from guiapp.core.coding.codings import coded_counts
    from guiapp.core.export.codings_export import write_codings

    written = write_codings(path, table, mapping, log, codebook=codebook, coding_texts=coding_texts,
                            on_event=on_event)
    here = sum(len(log.latest(source)) for source in SOURCES)
    coded = sum(coded_counts(table, mapping, log).values()) + len(log.latest(SECOND_FILE))
    return written, coded, here


def export_words(written, coded: int, here: int) -> str:  # noqa: ANN001 — a path
    """What an export says: where the file is, and how many codings it holds."""
    texts = f"{coded:,} coded text{'s' if coded != 1 else ''}"
    return f"Saved {texts} ({here:,} coded in TextLab) to {written}"


class CodingFiles(QObject):
    statusMessage = Signal(str)
    exported = Signal(str)  # what was saved where, in words
    errorRaised = Signal(object, str)
    textsRead = Signal(object)  # the second file's texts (a DataFrame), now the session's texts to code

    def __init__(self, session: StudySession, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self._window = parent  # where the dialogs open
        self._read_slot = WorkerSlot(self)
        self._export_slot = WorkerSlot(self)

    # -- a second file of texts ---------------------------------------------------------------------------
    def choose_texts_file(self) -> None:
        """Ask for a second file of texts to code."""
        path = ask_table_path(self._window, "Open a file of texts to code", str(Path.home()))
        if path is not None:
            self.open_texts_file(path)

    def open_texts_file(self, path: Path) -> None:
        from guiapp.core.coding.second_file import read_texts_to_code

        session = self.session
        if session.frame is None:
            return
        if session.coding_texts is not None and session.codings.latest(SECOND_FILE):
            self.errorRaised.emit(UserError(
                f"You have coded texts of {file_name(session.coding_texts)} already.",
                "Their codings belong to that file, so it stays the file of texts to code in this project. Export "
                "the codings, or code the new texts in a new project."), OPENING)
            return
        worker = Worker(read_texts_to_code, Path(path), session.mapping, name=f"read {Path(path).name}", light=True)
        worker.signals.finished.connect(self._read)
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, OPENING))
        self._read_slot.start(worker)
        self.statusMessage.emit(f"Reading {Path(path).name}…")

    def _read(self, texts) -> None:  # noqa: ANN001 — a DataFrame
        self.session.set_coding_texts(texts)
        self.textsRead.emit(texts)
        self.statusMessage.emit(f"{len(texts):,} texts of {file_name(texts)} to code.")

    # -- export ---------------------------------------------------------------------------------------------
    def choose_export_path(self) -> None:
        session = self.session
        if session.table is None:
            return
        name = proposed_name(str(session.table.path), "TextLab codings", ".xlsx")
        path, _ = ask_save_path(self._window, "Export the codings", name, "Excel (*.xlsx);;CSV (*.csv)",
                                protected=[session.table.path])
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> None:
        session = self.session
        worker = Worker(_export_job, path, session.frame, session.mapping, snapshot(session.codings), session.codebook,
                        session.coding_texts, name="export codings")
        worker.signals.finished.connect(self._exported)
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Exporting the codings"))
        self._export_slot.start(worker)

    def _exported(self, outcome) -> None:  # noqa: ANN001 — (path, coded texts, coded in TextLab)
        words = export_words(*outcome)
        self.exported.emit(words)
        self.statusMessage.emit(words)

    def slots(self) -> tuple[WorkerSlot, ...]:
        return self._read_slot, self._export_slot
