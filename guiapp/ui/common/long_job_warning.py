"""Asking before a long explanation job: the time is estimated in the background first (the core
times a few documents: ``guiapp.core.explain.job_estimate``), and when the job will take more than
a minute the user is asked "This will take about N minutes. Continue?" before it starts."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QMessageBox, QWidget

from guiapp.ui.common.job_progress import JobProgress
from guiapp.workers import Worker, WorkerSlot

if TYPE_CHECKING:  # the estimate's module loads numpy and the models: not before the first job
    from guiapp.core.explain.job_estimate import JobEstimate


def ask_to_continue(parent: QWidget | None, estimate: JobEstimate, title: str) -> bool:
    """The question, for a job longer than a minute (True at once for a shorter one)."""
    if not estimate.is_long():
        return True
    box = QMessageBox(QMessageBox.Icon.Question, title, estimate.question(),
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
    box.setObjectName("longJobWarning")
    box.setInformativeText(
        f"The time was measured on a few of the {estimate.documents:,} texts on this computer; it changes with how "
        "busy the computer is. You can cancel at any time, and what is finished by then is kept where it can be.")
    box.button(QMessageBox.StandardButton.Yes).setText("Continue")
    box.button(QMessageBox.StandardButton.No).setText("Not now")
    box.setDefaultButton(QMessageBox.StandardButton.Yes)
    return box.exec() == QMessageBox.StandardButton.Yes


class LongJobCheck:
    """Estimates a job's time in the background, asks when it is long, then starts the job.

    The page calls :meth:`estimate_then` instead of starting the job, with the job's own start as
    ``start``; while ``start`` runs, :meth:`should_estimate` is False, so the page's start method
    can be the very method that called :meth:`estimate_then`.
    """

    def __init__(self, parent: QWidget, slot: WorkerSlot, progress: JobProgress, title: str,
                 on_error: Callable[[BaseException], None], on_not_started: Callable[[], None]) -> None:
        self._parent, self._slot, self._progress, self._title = parent, slot, progress, title
        self._on_error, self._on_not_started = on_error, on_not_started
        self._starting = False

    def should_estimate(self) -> bool:
        return not self._starting

    def estimate_then(self, estimate: Callable[..., JobEstimate], *args: Any, start: Callable[[], None],
                      **kwargs: Any) -> Worker:
        """Run ``estimate(*args, on_event=…, **kwargs)`` in the background; then ask and ``start()``."""
        worker = Worker(estimate, *args, name="estimate the time", **kwargs)
        worker.signals.finished.connect(lambda found, w=worker: self._estimated(w, found, start))
        worker.signals.failed.connect(lambda error, w=worker: self._failed(w, error))
        worker.signals.cancelled.connect(lambda w=worker: self._cancelled(w))
        self._progress.show()
        self._progress.attach(worker, "Estimating how long this will take…")
        self._slot.start(worker)
        return worker

    def _estimated(self, worker: Worker, estimate: JobEstimate, start: Callable[[], None]) -> None:
        if worker is not self._slot.current:
            return
        if not ask_to_continue(self._parent, estimate, self._title):
            self._give_up(worker)
            return
        self._starting = True
        try:
            start()
        finally:
            self._starting = False

    def _failed(self, worker: Worker, error: BaseException) -> None:
        if worker is self._slot.current:
            self._give_up(worker)
            self._on_error(error)

    def _cancelled(self, worker: Worker) -> None:
        if worker is self._slot.current:
            self._give_up(worker)

    def _give_up(self, worker: Worker) -> None:
        """No job follows: hide the progress, and tell the page once the estimate's thread has ended."""
        self._progress.hide()
        if worker.is_running():
            worker.signals.done.connect(self._on_not_started)
        else:
            self._on_not_started()
