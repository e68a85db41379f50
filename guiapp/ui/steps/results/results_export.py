"""The Results step's "take it home" buttons: the comparison as an Excel workbook (or, choosing CSV
as the file type, its tables as CSV files in a folder), and the methods appendix for a paper (HTML,
PDF printed by Qt, and the JSON of facts behind them).

The writing runs in a background job; the file dialog asks before replacing a file, so a file is
only replaced when the user said so. The user's own data files are never written to.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMarginsF, QSizeF, Signal
from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from guiapp.core.experiment import ExperimentResult
from guiapp.core.export.target import study_data_files
from guiapp.ui import theme
from guiapp.ui.common.save_dialogs import ask_save_path, proposed_name
from guiapp.workers import Worker, WorkerSlot

EXCEL_TIP = ("Save the comparison as an Excel workbook: scores with their intervals, scores per category, "
             "confusion matrices, a chart, the study's settings, and the shares the Findings step estimated.")
CSV_TIP = " Choose “CSV files” as the file type for the tables as CSV files in a folder (for R, Stata or SPSS)."
EXCEL_FILTER = "Excel workbook (*.xlsx);;CSV files in a folder, one per table (*.csv)"
EXCEL_TIP_SEVERAL = ("Save the comparison as an Excel workbook: scores with their intervals (micro-F1, exact match and "
                     "Hamming loss too), scores and thresholds per category, a yes/no table per category, every test "
                     "text with your categories and each model's, a chart, and the study's settings.")
REPORT_CARD_TIP = ("Write a report card of the recommended model: what it learnt from, how well it does per category "
                   "and group, where it fails, its agreement beside your coders', what it should and should not be "
                   "used for, and the words it relies on — as a web page (HTML) and a PDF.")
APPENDIX_TIP = ("Write a methods appendix for your paper: a paragraph you can adapt, tables of the data, "
                "settings and scores, and the software used — as a web page (HTML), a PDF and the facts as JSON.")


class ResultsExport(QWidget):
    """Two buttons and a line that says what was written where."""

    failed = Signal(object, str)  # the error and what was being done
    written = Signal(str)  # a sentence for the status bar

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: ExperimentResult | None = None
        self.explained: Callable[[], list] = list  # explained documents for the "Word attributions" sheet
        self.learning_curve: Callable[[], object] = lambda: None  # a drawn learning curve, for its sheet
        self.findings: Callable[[], object] = lambda: None  # the Findings step's shares, for the appendix and a sheet
        self.subgroups: Callable[[], object] = lambda: None  # the scores per group of texts shown, for their sheet
        self.coding_team: Callable[[], object] = lambda: None  # a function giving the coding team's facts (appendix)
        self.project: Callable[[], object] = lambda: None  # the study as it is now (a Project), for the report card
        self._slot = WorkerSlot(self)
        self.excel_button = QPushButton("Export to Excel…", objectName="exportExcel")
        self.excel_button.setToolTip(EXCEL_TIP + CSV_TIP)
        self.excel_button.clicked.connect(self.choose_excel)
        self.appendix_button = QPushButton("Methods appendix…", objectName="methodsAppendix")
        self.appendix_button.setToolTip(APPENDIX_TIP)
        self.appendix_button.clicked.connect(self.choose_appendix)
        self.card_button = QPushButton("Report card…", objectName="reportCard")
        self.card_button.setToolTip(REPORT_CARD_TIP)
        self.card_button.clicked.connect(self.choose_report_card)
        self.status_label = QLabel("", objectName="exportStatus")
        self.status_label.setStyleSheet(theme.NOTE_STYLE)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.status_label, 1)
        row.addWidget(self.excel_button)
        row.addWidget(self.appendix_button)
        row.addWidget(self.card_button)
        self.set_result(None)

    def set_result(self, result: ExperimentResult | None) -> None:
        self.result = result
        several = result is not None and result.multi_label
        self.excel_button.setToolTip((EXCEL_TIP_SEVERAL if several else EXCEL_TIP) + CSV_TIP)
        self.set_buttons_enabled(True)
        self.status_label.setText("")

    # -- Excel -------------------------------------------------------------------------------------
    def choose_excel(self) -> None:
        path = self._ask_path("Export the results to Excel", "TextLab results", ".xlsx", EXCEL_FILTER)
        if path and path.suffix.lower() == ".csv":  # the tables as CSV files, in a folder of that name
            self.export_csv(path.with_suffix(""))
        elif path:
            self.export_excel(path)

    def export_csv(self, folder: str | Path) -> Worker:
        """Write the tables as CSV files into ``folder`` in the background; files already there are kept
        (the export then fails with a message that says which)."""
        from guiapp.core.export.flat_files import write_results_csv

        assert self.result is not None
        worker = Worker(write_results_csv, Path(folder), self.result, protected=self._data_files(),
                        name="writing the CSV files")
        return self._start(worker, "Exporting CSV files", lambda written: self._done(
            f"Saved {len(written)} CSV files", Path(written[0])))

    def export_excel(self, path: str | Path) -> Worker:
        """Write the workbook in the background; the file is replaced (the dialog has asked)."""
        from guiapp.core.export.excel import write_excel

        assert self.result is not None
        worker = Worker(write_excel, Path(path), result=self.result, overwrite=True,
                        attributions=self.explained() or None, learning_curve=self.learning_curve(),
                        subgroups=self.subgroups(), findings=self.findings(),
                        protected=self._data_files(), name="writing the Excel workbook")
        return self._start(worker, "Exporting to Excel", lambda written: self._done(f"Saved {Path(written).name}",
                                                                                      written))

    # -- methods appendix --------------------------------------------------------------------------
    def choose_appendix(self) -> None:
        path = self._ask_path("Save the methods appendix", "TextLab methods", ".html", "Web page (*.html)")
        if path:
            self.write_appendix(path)

    def write_appendix(self, path: str | Path) -> Worker:
        """Write X.html, X.json and X.pdf (printed from the same page) in the background."""
        from guiapp.core.export.appendix import write_appendix

        assert self.result is not None
        result, target, curve, findings = self.result, Path(path), self.learning_curve(), self.findings()
        extra = {"findings": {"paragraph": findings.methods_paragraph()}} if findings is not None else {}
        team_facts = self.coding_team()  # read on this thread, measured in the background

        def write(on_event=None) -> tuple[list[Path], OSError | None]:  # quick: no progress to report
            team = team_facts() if callable(team_facts) else None
            if team:
                extra["coding_team"] = team
            html_file, json_file = write_appendix(result, target, overwrite=True, learning_curve=curve, extra=extra)
            try:  # QTextDocument and QPdfWriter paint off the GUI thread (no widgets, no pixmaps)
                pdf_file = print_pdf(html_file.read_text(encoding="utf-8"), html_file.with_suffix(".pdf"))
            except OSError as error:  # the page and its facts are kept; say why the PDF is missing
                return [html_file, json_file], error
            return [html_file, pdf_file, json_file], None

        worker = Worker(write, name="writing the methods appendix")
        return self._start(worker, "Writing the methods appendix", self._appendix_written)

    def _appendix_written(self, outcome: tuple[list[Path], OSError | None]) -> None:
        written, pdf_error = outcome
        if pdf_error is not None:
            self.failed.emit(pdf_error, "Printing the methods appendix to PDF")
        self._done("Saved " + ", ".join(path.name for path in written), written[0])

    # -- report card ---------------------------------------------------------------------------------
    def choose_report_card(self) -> None:
        """Ask for a folder; a report card already there is replaced only when the user agrees."""
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        from guiapp.core.replication.report_card import HTML_NAME
        from guiapp.ui.common.save_dialogs import export_folder, remember_export_folder

        files = self._data_files()
        chosen = QFileDialog.getExistingDirectory(self, "Choose the folder for the report card",
                                                  str(export_folder(files[0] if files else None)))
        if not chosen:
            return
        if (Path(chosen) / HTML_NAME).exists() and QMessageBox.question(
                self, "Replace the report card?", f"{chosen} already holds a report card. Replace it?"
        ) != QMessageBox.StandardButton.Yes:
            return
        remember_export_folder(chosen)
        self.write_report_card(Path(chosen))

    def write_report_card(self, folder: str | Path) -> Worker | None:
        """Write report-card.html, .json and .pdf (printed from the same page) into ``folder`` in the background."""
        from guiapp.core.replication.report_card import write_report_card

        project = self.project()
        if project is None:
            return None
        target = Path(folder)

        def write(on_event=None) -> list[Path]:  # quick: no progress to report
            return write_report_card(project, target, pdf_printer=print_pdf)

        worker = Worker(write, name="writing the report card")
        return self._start(worker, "Writing the report card", self._card_written)

    def _card_written(self, written: list[Path]) -> None:
        if not any(path.suffix == ".pdf" for path in written):
            self.failed.emit(OSError("Qt could not print the report card to a PDF; the web page holds all of it."),
                             "Printing the report card to PDF")
        self._done("Saved " + ", ".join(path.name for path in written), written[0])

    # -- shared ------------------------------------------------------------------------------------
    def _start(self, worker: Worker, doing: str, on_finished) -> Worker:
        self.excel_button.setEnabled(False)
        self.appendix_button.setEnabled(False)
        self.card_button.setEnabled(False)
        self.status_label.setText(f"{doing}…")
        worker.signals.finished.connect(on_finished)
        worker.signals.failed.connect(lambda error: self._failed(error, doing))
        worker.signals.done.connect(self._job_done)  # a method: not called once the widget is gone
        return self._slot.start(worker)

    def _job_done(self) -> None:
        self.set_buttons_enabled(True)

    def set_buttons_enabled(self, enabled: bool) -> None:
        usable = enabled and self.result is not None and bool(self.result.finished_models())
        self.excel_button.setEnabled(usable)
        self.appendix_button.setEnabled(usable)
        self.card_button.setEnabled(usable)

    def _done(self, message: str, path: str | Path) -> None:
        folder = Path(path).parent
        self.status_label.setText(f"{message} in {folder}")
        self.status_label.setToolTip(str(folder))
        self.written.emit(f"{message} in {folder}")

    def _failed(self, error: BaseException, doing: str) -> None:
        self.status_label.setText("")
        self.failed.emit(error, doing)

    def _data_files(self) -> list[str]:
        return study_data_files(self.result)

    def _ask_path(self, title: str, what: str, ending: str, file_filter: str) -> Path | None:
        """Where to save (None when the user cancels), proposing “debates – TextLab results.xlsx”: named
        after the data, and never one of the study's data files."""
        files = self._data_files()
        path, _ = ask_save_path(self, title, proposed_name(files[0] if files else None, what, ending), file_filter,
                                protected=files)
        return path

    def cancel(self) -> None:
        self._slot.cancel()


def print_pdf(html: str, path: Path) -> Path:
    """Print an HTML page to an A4 PDF with Qt (no browser needed), written whole or not at all."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        writer = QPdfWriter(str(temporary))
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                         QMarginsF(18, 18, 18, 18), QPageLayout.Unit.Millimeter))
        writer.setResolution(96)
        document = QTextDocument()
        document.setHtml(html)
        layout = writer.pageLayout()
        area = layout.paintRectPixels(writer.resolution())
        document.setPageSize(QSizeF(area.width(), area.height()))
        document.print_(writer)
        del writer  # closes the file
        if not temporary.is_file() or temporary.stat().st_size == 0:
            raise OSError(f"Qt wrote no PDF to {temporary}")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path
