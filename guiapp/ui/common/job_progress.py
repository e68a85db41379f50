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
from guiapp.core.progress_clock import TimeLeftClock, describe_time_left
from guiapp.workers.worker import Worker


def format_time_left(seconds: float) -> str:
    """"about 3 min left" (rounded, so the label does not flicker); see ``core/progress_clock.py``."""
    return describe_time_left(seconds)


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
        self._clock = TimeLeftClock()

    def attach(self, worker: Worker, message: str = "Working…") -> None:
        self._worker = worker
        self._clock.reset(time.monotonic())
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
        # the time left follows the recent speed and only climbs when a slow-down lasts (core/progress_clock.py)
        seconds = self._clock.update(time.monotonic(), event.fraction)
        if seconds is not None:
            self.time_left.setText(describe_time_left(seconds))

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Stopping…")
        if self._worker is not None:
            self._worker.cancel()
        self.cancelRequested.emit()
