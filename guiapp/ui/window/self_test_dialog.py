"""Help → Self-test…: runs ``guiapp.core.self_test`` in a worker and shows each check as it comes."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from guiapp.workers import Worker


def self_test_job(quick: bool = False, on_event=None):
    """The worker's call: the self-test, with each finished check sent on as a log line.

    Only progress goes through from the engine (its own log lines are not the self-test's lines);
    the worker's callback is still called often, so Cancel stops the job."""
    from guiapp.core.events import Log, Progress
    from guiapp.core.self_test import run_self_test

    def forward(event) -> None:
        if isinstance(event, Progress):
            on_event(event)

    return run_self_test(quick=quick, on_event=forward, on_check=lambda check: on_event(Log(check.line())))


class SelfTestDialog(QDialog):
    """A small window: the lines of the self-test as they come, then the verdict."""

    def __init__(self, parent: QWidget | None = None, quick: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle("Self-test")
        self.resize(640, 320)
        intro = QLabel("Checking that the bundled model, word vectors and example data load, "
                       "and that a tiny study runs on this computer. This takes less than a minute.")
        intro.setWordWrap(True)
        self.lines = QPlainTextEdit(readOnly=True)
        self.lines.setFont(QFont("monospace"))
        self.status = QLabel("Starting…")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (intro, self.lines, self.status, self.buttons):
            layout.addWidget(widget)
        self.report = None
        self.worker = Worker(self_test_job, quick, name="self-test")
        self.worker.signals.log.connect(lambda event: self.lines.appendPlainText(event.message))
        self.worker.signals.progress.connect(lambda event: self.status.setText(event.message))
        self.worker.signals.finished.connect(self._finished)
        self.worker.signals.failed.connect(lambda error: self._verdict(f"The self-test itself failed: {error}", False))
        self.worker.signals.cancelled.connect(lambda: self._verdict("Stopped.", False))
        self.worker.start()

    def _finished(self, report) -> None:
        self.report = report
        self._verdict(report.verdict(), report.ok)

    def _verdict(self, text: str, ok: bool) -> None:
        self.status.setText(f"<b>{'✓' if ok else '✗'} {text}</b>")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Close)

    def reject(self) -> None:
        if self.worker.is_running():
            self.worker.cancel()
            self.worker.wait()
        super().reject()
