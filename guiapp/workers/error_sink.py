"""The one place every error ends up: a readable dialog with a "details" fold.

:func:`error_report` turns any exception into plain words (a :class:`UserError` already has
them; anything else gets a general explanation and the traceback under "Show Details").
:class:`ErrorSink` shows it without blocking the event loop and keeps the app usable.
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from guiapp.core.errors import UserError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ErrorReport:
    title: str
    message: str
    hint: str
    details: str

    @property
    def text(self) -> str:
        return f"{self.message}\n\n{self.hint}".strip()


def error_report(error: BaseException, doing: str = "") -> ErrorReport:
    """Plain-language report of ``error``; ``doing`` names the task ("Opening the file")."""
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    title = f"{doing} did not work" if doing else "Something went wrong"
    if isinstance(error, UserError):
        details = "\n\n".join(part for part in (error.details, trace) if part)
        return ErrorReport(title, error.message, error.hint, details)
    if isinstance(error, MemoryError):
        return ErrorReport(
            title,
            "The computer ran out of memory.",
            "Close other programs, or work with a smaller file (fewer rows or columns), "
            "then try again. Your work so far is kept.",
            trace,
        )
    return ErrorReport(
        title,
        f"TextLab ran into an unexpected problem ({type(error).__name__}: {error}).",
        "Your data and settings are unchanged. Try again; if it happens again, please send the "
        "details below to the TextLab developers.",
        trace,
    )


class ErrorSink(QObject):
    """Shows errors as non-blocking message boxes; emits ``reported`` for each one."""

    reported = Signal(object)  # ErrorReport

    def __init__(self, parent_widget: QWidget | None = None) -> None:
        super().__init__(parent_widget)
        self._parent_widget = parent_widget
        self.last_dialog: QMessageBox | None = None
        self.history: list[ErrorReport] = []

    def report(self, error: BaseException, doing: str = "") -> ErrorReport:
        report = error_report(error, doing)
        log.warning("%s: %s", report.title, report.message, exc_info=not isinstance(error, UserError))
        self.history.append(report)
        self.show(report)
        self.reported.emit(report)
        return report

    def show(self, report: ErrorReport) -> QMessageBox:
        box = QMessageBox(self._parent_widget)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(report.title)
        box.setText(f"<b>{_escape(report.message)}</b>")
        box.setInformativeText(_escape(report.hint))
        if report.details:
            box.setDetailedText(report.details)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setObjectName("errorDialog")
        box.open()  # window-modal but does not block the event loop
        self.last_dialog = box
        return box


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "<br>")
