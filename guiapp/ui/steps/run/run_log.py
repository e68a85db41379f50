"""The Run step's log: what happened during a run, one time-stamped line each, warnings and errors in
their colours, with a button that copies it all."""

from __future__ import annotations

import html
import time

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from guiapp.ui import theme

LOG_COLORS = {"info": theme.INK, "warning": theme.WARNING, "error": theme.ERROR}


class RunLog(QWidget):
    """The log's title with "Copy log" above the lines (read-only, at most 5,000 lines)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = QPlainTextEdit(objectName="runLog")
        self.view.setReadOnly(True)
        self.view.setMaximumBlockCount(5000)
        self.view.setStyleSheet("QPlainTextEdit { font-family: monospace; font-size: 12px; }")
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.copy_button = QPushButton("Copy log", objectName="copyLog")
        self.copy_button.setToolTip("Copy the whole log, e.g. to send it with a question.")
        title = QLabel("What happened", objectName="runLogTitle")
        title.setStyleSheet(theme.heading_style(14))
        header = QHBoxLayout()
        header.addWidget(title, 1)
        header.addWidget(self.copy_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(header)
        column.addWidget(self.view, 1)

    def append(self, message: str, level: str = "info") -> None:
        """Add ``message`` ("info", "warning" or "error") with the time of day."""
        stamp = time.strftime("%H:%M:%S")
        prefix = {"warning": "Warning: ", "error": "Error: "}.get(level, "")
        colour = LOG_COLORS.get(level, LOG_COLORS["info"])
        weight = "600" if level != "info" else "400"
        self.view.appendHtml(
            f'<span style="color:{theme.STAMP_TEXT};">{stamp}</span> '
            f'<span style="color:{colour}; font-weight:{weight};">{html.escape(prefix + message)}</span>'
        )
