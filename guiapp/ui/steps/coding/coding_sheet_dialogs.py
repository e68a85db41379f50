"""Coding sheets on the Coding step: "Export coding sheet…" writes a workbook for a coder who codes
in Excel or LibreOffice, "Import coding sheet…" reads the filled-in sheet back
(``core/coding/sheet_exchange.py``).

- :class:`ExportSheetDialog` asks which coder (the team's coders, or a new name typed in), at most how
  many texts, and where to save the .xlsx; a live sentence says which texts will go in (or, in words,
  why there are none). It writes the sheet and says how many texts went in.
- :class:`ImportReportDialog` shows what an import did, in words: what came in, what was unchanged,
  what was refused and how to fix it — or why the whole sheet was refused. Never a traceback.
- :class:`CodingSheets` is what the Coding step holds: it opens the export dialog, asks for the sheet
  to import, reads it in the background (a :class:`~guiapp.workers.Worker`), records the new codings
  and announces them (``session.codings_changed()``, then ``imported``).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTextBrowser,
    QWidget,
)

from guiapp.core.coding.coding_record import SOURCES
from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.common.layouts import hbox, vbox
from guiapp.ui.session.study_session import StudySession
from guiapp.workers import Worker, WorkerSlot

TABLE, SECOND_FILE = SOURCES
EXPORT_TITLE = "Export a coding sheet"
IMPORT_TITLE = "Import a coding sheet"


def _sheet_name(session: StudySession, coder: str) -> str:
    from guiapp.ui.common.save_dialogs import proposed_name

    base = str(session.table.path) if session.table is not None else "study"
    return proposed_name(base, f"coding sheet for {coder or 'a coder'}", ".xlsx")


class ExportSheetDialog(QDialog):
    """Which coder, how many texts at most, and where the coding sheet goes. ``ask_path``: how the
    place is asked for (a save dialog; a test passes its own)."""

    exported = Signal(str)  # what was written where, in words

    def __init__(self, session: StudySession, source: str = TABLE, parent: QWidget | None = None, *,
                 coder: str = "", ask_path: Callable[[str], Path | None] | None = None) -> None:
        from guiapp.core.coding.sheet_exchange import coders_of

        super().__init__(parent)
        self.setWindowTitle(EXPORT_TITLE)
        self.setObjectName("exportSheetDialog")
        self.session, self.source = session, source
        self._ask_path = ask_path or self._ask_save_path
        intro = QLabel("A coding sheet lets a coder code without TextLab, in Excel or LibreOffice: the texts are "
                       "listed with a drop-down of the categories, the codebook is on its own sheet, and only the "
                       "Category and Comment columns can be changed. Send it to the coder, then import it back.")
        intro.setWordWrap(True)
        intro.setStyleSheet(theme.MUTED_STYLE)

        self.coder_combo = QComboBox(objectName="sheetCoder", editable=True)
        self.coder_combo.addItems(coders_of(session.codings))
        team = session.codings.team
        if team is not None and team.is_team and team.active:
            coder = team.active  # the coder the team bar shows now
        self.coder_combo.setEditText(coder if coder else self.coder_combo.currentText())
        self.coder_combo.lineEdit().setPlaceholderText("the coder's name or initials")
        self.coder_combo.setToolTip("Choose one of the coders, or type a new coder's name: they join the team "
                                    "when their sheet is imported.")
        self.coder_combo.editTextChanged.connect(lambda _text: self._preview())
        self.limit_spin = QSpinBox(objectName="sheetLimit", minimum=0, maximum=1_000_000, value=0)
        self.limit_spin.setSpecialValueText("all of them")
        self.limit_spin.setSuffix(" texts")
        self.limit_spin.setToolTip("At most this many texts in the sheet (the first ones of the coder's list).")
        self.limit_spin.valueChanged.connect(lambda _value: self._preview())
        self.path_edit = QLineEdit(objectName="sheetPath")
        self.path_edit.setPlaceholderText("where to save the sheet (.xlsx)")
        self.path_edit.textChanged.connect(lambda _text: self._enable())
        choose = QPushButton("Choose…", objectName="chooseSheetPath")
        choose.clicked.connect(self.choose_path)

        self.preview = QLabel(objectName="sheetPreview", wordWrap=True)
        self.error = QLabel(objectName="sheetError", wordWrap=True)
        self.error.setStyleSheet(f"color: {theme.ERROR};")
        self.error.hide()
        form = QFormLayout()
        form.addRow("Coder:", self.coder_combo)
        form.addRow("At most:", self.limit_spin)
        form.addRow("Save as:", hbox(None, self.path_edit, choose, margins=(0, 0, 0, 0)))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = self.buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        self.export_button.setObjectName("exportSheet")
        self.buttons.accepted.connect(self.export)
        self.buttons.rejected.connect(self.reject)
        vbox(self, intro, form, self.preview, self.error, self.buttons)
        self.resize(560, self.sizeHint().height())
        self._chosen = None
        self._preview()

    # -- the choices -------------------------------------------------------------------------------------
    def coder(self) -> str:
        return self.coder_combo.currentText().strip()

    def limit(self) -> int | None:
        return self.limit_spin.value() or None

    def _preview(self) -> None:
        """Say which texts the sheet will hold, or why there are none."""
        from guiapp.core.coding.sheet_exchange import sheet_texts_for

        session = self.session
        self._chosen = None
        try:
            if session.frame is None:
                raise UserError("Open a table first.", "")
            self._chosen = sheet_texts_for(session.codings, session.frame, session.mapping, self.coder(),
                                           session.coding_texts, source=self.source, limit=self.limit())
            self.preview.setText(f"The sheet will hold {self._chosen.sentence()}")
            self.preview.setStyleSheet("")
        except UserError as error:
            self.preview.setText(f"{error.message} {error.hint}".strip())
            self.preview.setStyleSheet(theme.MUTED_STYLE)
        self._enable()

    def _enable(self) -> None:
        self.export_button.setEnabled(self._chosen is not None and bool(self.path_edit.text().strip()))

    def _ask_save_path(self, name: str) -> Path | None:
        from guiapp.ui.common.save_dialogs import ask_save_path

        protected = [self.session.table.path] if self.session.table is not None else []
        path, _ = ask_save_path(self, EXPORT_TITLE, name, "Excel workbook (*.xlsx)", protected=protected)
        return path

    def choose_path(self) -> None:
        path = self._ask_path(_sheet_name(self.session, self.coder()))
        if path is not None:
            self.path_edit.setText(str(path))

    # -- writing -----------------------------------------------------------------------------------------
    def export(self) -> None:
        """Write the sheet; on success say how many texts went in and close, else say why in words."""
        from guiapp.core.coding.sheet_exchange import write_sheet_for

        session = self.session
        path = Path(self.path_edit.text().strip())
        if path.suffix.lower() != ".xlsx":
            path = path.with_name(path.name + ".xlsx")
        try:
            if session.table is not None and path.resolve() == Path(session.table.path).resolve():
                raise UserError("The coding sheet cannot replace your spreadsheet.", "Choose another name.")
            written, chosen = write_sheet_for(path, session.codings, session.frame, session.mapping,
                                              session.codebook, self.coder(), session.coding_texts,
                                              source=self.source, limit=self.limit())
        except UserError as error:
            self.error.setText(f"{error.message} {error.hint}".strip())
            self.error.show()
            return
        self.words = f"Saved a coding sheet with {chosen.sentence()[:-1]} to {written}"
        self.exported.emit(self.words)
        self.accept()


class ImportReportDialog(QDialog):
    """What importing a coding sheet did (an ``ImportReport``), or why the sheet was refused."""

    def __init__(self, parent: QWidget | None = None, *, report=None, error: BaseException | None = None,  # noqa: ANN001
                 file_name: str = "the sheet") -> None:
        super().__init__(parent)
        self.setObjectName("importReportDialog")
        self.setWindowTitle(IMPORT_TITLE)
        if report is not None:
            lines = report.lines()
            heading, rest = lines[0], lines[1:]
        else:
            heading, rest = refusal_words(error, file_name)
        self.heading = QLabel(heading, objectName="importHeading", wordWrap=True)
        self.heading.setStyleSheet(theme.heading_style(14))
        self.details = QTextBrowser(objectName="importDetails")
        self.details.setOpenExternalLinks(False)
        self.details.setHtml(_as_html(rest))
        self.details.setVisible(bool(rest))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
        buttons.accepted.connect(self.accept)
        vbox(self, self.heading, self.details, buttons)
        self.resize(620, 360 if rest else 140)

    def text(self) -> str:
        return self.heading.text() + "\n" + self.details.toPlainText()


def refusal_words(error: BaseException | None, file_name: str) -> tuple[str, list[str]]:
    """Why a sheet was not imported, in words (a heading and lines), for any error."""
    if isinstance(error, UserError):
        return error.message, [error.hint] if error.hint else []
    return (f"TextLab could not read {file_name}; nothing was imported.",
            ["Check that it is the coding sheet (.xlsx) the coder sent back and that no other program has it "
             "open, then import it again."])


def _as_html(lines: list[str]) -> str:
    parts, items = [], []
    for line in lines:
        if line.startswith("  • "):
            items.append(f"<li>{html.escape(line[4:])}</li>")
            continue
        if items:
            parts.append("<ul>" + "".join(items) + "</ul>")
            items = []
        parts.append(f"<p>{html.escape(line)}</p>")
    if items:
        parts.append("<ul>" + "".join(items) + "</ul>")
    return "".join(parts)


class CodingSheets(QObject):
    """The Coding step's coding sheets: export for a coder, import in the background, report in words.
    ``source``: which texts the step codes now ("table" or "second file"); ``coder``: the name the
    step has. ``ask_open``: how the sheet to import is asked for (a test passes its own)."""

    statusMessage = Signal(str)
    exported = Signal(str)
    imported = Signal(object)  # the ImportReport, after the codings were recorded

    def __init__(self, session: StudySession, parent: QWidget, *, source: Callable[[], str] = lambda: TABLE,
                 coder: Callable[[], str] = lambda: "") -> None:
        super().__init__(parent)
        self.session = session
        self._window = parent
        self._source, self._coder = source, coder
        self._slot = WorkerSlot(self)
        self.ask_open: Callable[[], Path | None] = self._ask_open_path
        self.ask_save: Callable[[str], Path | None] | None = None
        self.show_report: Callable[[QDialog], None] = lambda dialog: dialog.exec()
        self.dialog: QDialog | None = None  # the dialog open now (a walk through the window drives it)

    def export_sheet(self) -> None:
        """"Export coding sheet…"."""
        if self.session.frame is None:
            return
        dialog = ExportSheetDialog(self.session, self._source(), self._window, coder=self._coder(),
                                   ask_path=self.ask_save)
        dialog.exported.connect(self.exported)
        dialog.exported.connect(self.statusMessage)
        self.dialog = dialog
        dialog.exec()

    def _ask_open_path(self) -> Path | None:
        path, _ = QFileDialog.getOpenFileName(self._window, IMPORT_TITLE, str(Path.home()),
                                              "Excel workbook (*.xlsx);;All files (*)")
        return Path(path) if path else None

    def import_sheet(self, path: Path | None = None) -> None:
        """"Import coding sheet…": ask for the sheet (unless given) and read it in the background."""
        from guiapp.core.coding.sheet_exchange import read_sheet

        session = self.session
        if session.frame is None:
            return
        path = path or self.ask_open()
        if path is None:
            return
        path = Path(path)
        snapshot = session.codings.copy()
        worker = Worker(read_sheet, path, session.frame, session.mapping, session.codebook, snapshot,
                        session.coding_texts, name=f"read {path.name}", light=True)
        worker.signals.finished.connect(lambda outcome: self._read(outcome, path.name))
        worker.signals.failed.connect(lambda error: self._refused(error, path.name))
        self._slot.start(worker)
        self.statusMessage.emit(f"Reading the coding sheet {path.name}…")

    def _read(self, outcome, file_name: str) -> None:  # noqa: ANN001 — (SheetImport, source)
        from guiapp.core.coding.sheet_exchange import apply_sheet

        imported, source = outcome
        session = self.session
        try:
            report = apply_sheet(session.codings, imported, source, file_name=file_name, frame=session.frame,
                                 mapping=session.mapping, first_coder=self._coder())
        except UserError as error:
            self._refused(error, file_name)
            return
        session.codings_changed()
        self.imported.emit(report)
        self.statusMessage.emit(report.sentence())
        self._show(ImportReportDialog(self._window, report=report))

    def _refused(self, error: BaseException, file_name: str) -> None:
        self.statusMessage.emit(f"{file_name} was not imported.")
        self._show(ImportReportDialog(self._window, error=error, file_name=file_name))

    def _show(self, dialog: QDialog) -> None:
        self.dialog = dialog
        self.show_report(dialog)

    def slots(self) -> tuple[WorkerSlot, ...]:
        return (self._slot,)


__all__ = ["CodingSheets", "ExportSheetDialog", "ImportReportDialog", "refusal_words"]
