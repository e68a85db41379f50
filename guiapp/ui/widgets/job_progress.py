"""A progress strip for one running job: what it does, how far, time left, and Cancel."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.events import Progress
from guiapp.workers.worker import Worker


def format_time_left(seconds: float) -> str:
    if seconds < 1.5:
        return "almost done"
    if seconds < 60:
        return f"about {seconds:.0f} s left"
    minutes = seconds / 60
    if minutes < 60:
        return f"about {minutes:.0f} min left"
    return f"about {minutes / 60:.1f} h left"


class JobProgress(QWidget):
    """Shows the progress of the attached :class:`Worker`; its Cancel button cancels it."""

    cancelRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = QLabel("Working…", objectName="jobMessage")
        self.message.setWordWrap(True)
        self.bar = QProgressBar(objectName="jobBar")
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.time_left = QLabel("", objectName="jobTimeLeft")
        self.time_left.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.cancel_button = QPushButton("Cancel", objectName="jobCancel")
        self.cancel_button.setToolTip("Stop this step. Nothing you have done so far is lost.")
        self.cancel_button.clicked.connect(self._cancel)
        row = QHBoxLayout()
        row.addWidget(self.bar, 1)
        row.addWidget(self.time_left)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addLayout(row)
        self._worker: Worker | None = None
        self._started = 0.0

    def attach(self, worker: Worker, message: str = "Working…") -> None:
        self._worker = worker
        self._started = time.monotonic()
        self.message.setText(message)
        self.bar.setRange(0, 0)  # busy until the first fraction arrives
        self.time_left.setText("")
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Cancel")
        worker.signals.progress.connect(self.show_progress)

    def show_progress(self, event: Progress) -> None:
        if event.message:
            self.message.setText(event.message)
        if event.fraction is None:
            self.bar.setRange(0, 0)
            return
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(round(1000 * min(max(event.fraction, 0.0), 1.0))))
        elapsed = time.monotonic() - self._started
        if event.fraction > 0.02 and elapsed > 1.0:
            self.time_left.setText(format_time_left(elapsed * (1 - event.fraction) / event.fraction))

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Stopping…")
        if self._worker is not None:
            self._worker.cancel()
        self.cancelRequested.emit()
