"""The study's project file: save and open `.textlab` files in the background, autosave after every
finished job and every few minutes, offer the autosave of a session that crashed, and clean up on
a normal exit. What a project holds comes from the study session (``capture``); an opened
project is handed back as a signal, and the study files fill the session with it. This module
never looks inside the pages.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from guiapp.core import locations
from guiapp.core.events import EventCallback, Progress
from guiapp.core.project import autosave as autosaving
from guiapp.core.project.format import SUFFIX, Project
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from guiapp.workers import ErrorSink, Worker, WorkerSlot

AUTOSAVE_MINUTES = 3
PROJECT_FILTER = f"TextLab projects (*{SUFFIX})"


def extraction_folder(path: Path) -> Path:
    """Where an opened project's trained models are unpacked: one folder per project file."""
    key = hashlib.sha256(str(Path(path).resolve()).encode("utf-8")).hexdigest()[:16]
    return locations.cache_dir() / "projects" / key


def _open(path: Path, extract_to: Path, on_event: EventCallback) -> Project:
    on_event(Progress(None, f"Opening {path.name}…"))
    return open_project(path, extract_models_to=extract_to)


class ProjectSession(QObject):
    """Saving, opening, autosave and recovery of the window's one project."""

    opened = Signal(object, object)  # Project, its path (None for a recovered autosave)
    resultsOpened = Signal(object, object)  # Project, the results folder it was read from
    saved = Signal(object)  # the path
    statusMessage = Signal(str)
    busyChanged = Signal(bool)

    def __init__(self, capture: Callable[[], Project | None], errors: ErrorSink, parent: QWidget) -> None:
        super().__init__(parent)
        self._capture = capture
        self._errors = errors
        self._window = parent
        self.path: Path | None = None  # the project file being worked on
        self.dirty = False  # something changed since the last save
        self._autosaved = True  # the autosave is up to date
        self._save_slot = WorkerSlot()  # a save is never cancelled: it ends even when the window closes
        self._open_slot = WorkerSlot(self)
        self._autosave_slot = WorkerSlot()
        self.timer = QTimer(self)
        self.timer.setInterval(AUTOSAVE_MINUTES * 60 * 1000)
        self.timer.timeout.connect(self.autosave_now)
        self.timer.start()

    # -- state ------------------------------------------------------------------------------------------
    def mark_changed(self, autosave_now: bool = False) -> None:
        """Something worth keeping changed; ``autosave_now`` after a finished job."""
        self.dirty = True
        self._autosaved = False
        if autosave_now:
            self.autosave_now()

    def is_busy(self) -> bool:
        return self._save_slot.is_busy() or self._open_slot.is_busy() or self._autosave_slot.is_busy()

    def cancel_jobs(self) -> None:
        """Stop opening and autosaving (an autosave that is cut leaves the previous one); a save
        the user asked for is let finish."""
        self._open_slot.cancel()
        self._autosave_slot.cancel()
        for slot in (self._open_slot, self._autosave_slot, self._save_slot):
            if slot.current is not None:
                slot.current.wait(60_000)

    # -- saving -------------------------------------------------------------------------------------------
    def save(self, path: Path) -> bool:
        """Save the project to ``path`` in the background; False when there is nothing to save."""
        project = self._capture()
        if project is None:
            self.statusMessage.emit("Open a table first: there is nothing to save yet.")
            return False
        path = Path(path)
        if path.suffix.lower() != SUFFIX:
            path = path.with_name(path.name + SUFFIX)
        worker = Worker(save_project, path, project, name=f"save {path.name}")
        worker.signals.finished.connect(lambda written: self._saved(Path(written)))
        worker.signals.failed.connect(lambda error: self._errors.report(error, "Saving the project"))
        worker.signals.progress.connect(lambda event: event.message and self.statusMessage.emit(event.message))
        worker.signals.done.connect(lambda: self.busyChanged.emit(self.is_busy()))
        self._save_slot.start(worker)
        self.busyChanged.emit(True)
        return True

    def save_and_wait(self, path: Path) -> bool:
        """Save now, waiting for it (when the window closes); False when it did not work."""
        project = self._capture()
        if project is None:
            return True
        path = Path(path)
        if path.suffix.lower() != SUFFIX:
            path = path.with_name(path.name + SUFFIX)
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            save_project(path, project)
        except Exception as error:  # shown to the user; the window stays open, nothing is lost
            self._errors.report(error, "Saving the project")
            return False
        finally:
            QApplication.restoreOverrideCursor()
        self._saved(path)
        return True

    def _saved(self, path: Path) -> None:
        self.path = path
        self.dirty = False
        self.statusMessage.emit(f"Saved the project {path.name}.")
        self.saved.emit(path)

    # -- opening ------------------------------------------------------------------------------------------
    def open(self, path: Path, *, recovered: autosaving.RecoveryItem | None = None) -> None:
        """Open ``path`` in the background; the window shows it once it is read."""
        path = Path(path)
        worker = Worker(_open, path, extraction_folder(path), name=f"open {path.name}")
        worker.signals.finished.connect(lambda project: self._opened(project, path, recovered))
        self._start_opening(worker, "Opening the project", f"Opening {path.name}…")

    def open_results(self, folder: Path) -> None:
        """Open a results folder (``textlab run --out``, e.g. copied back from a cluster) in the
        background; it is not a project file, so the next "Save project" asks where to save."""
        folder = Path(folder)
        from guiapp.core.project.results_folder import open_results_folder  # pulls in scikit-learn: not at start-up

        worker = Worker(open_results_folder, folder, name=f"open results {folder.name}")
        worker.signals.finished.connect(lambda project: self._results_opened(project, folder))
        self._start_opening(worker, "Opening the results folder", f"Opening the results in {folder.name}…")

    def _start_opening(self, worker: Worker, what: str, message: str) -> None:
        """Start a job that reads something to show: its errors, progress and end go where every opening's do."""
        worker.signals.failed.connect(lambda error: self._errors.report(error, what))
        worker.signals.progress.connect(lambda event: event.message and self.statusMessage.emit(event.message))
        worker.signals.done.connect(lambda: self.busyChanged.emit(self.is_busy()))
        self.statusMessage.emit(message)
        self._open_slot.start(worker)
        self.busyChanged.emit(True)

    def _results_opened(self, project: Project, folder: Path) -> None:
        self.path = None
        self.resultsOpened.emit(project, folder)
        self.dirty, self._autosaved = False, True  # the folder keeps it all; showing it is not a change

    def _opened(self, project: Project, path: Path, recovered: autosaving.RecoveryItem | None) -> None:
        if recovered is None:
            self.path = path
            self.opened.emit(project, path)
            self.dirty, self._autosaved = False, True  # showing it is not a change
            return
        # A recovered autosave: work goes on under this session's own autosave; the old one goes.
        self.path = recovered.project_path
        self.opened.emit(project, None)
        autosaving.discard(recovered)
        self.mark_changed(autosave_now=True)

    # -- autosave and recovery ------------------------------------------------------------------------------
    def autosave_now(self) -> None:
        if self._autosaved or self.is_busy():
            return
        project = self._capture()
        if project is None:
            return
        worker = Worker(autosaving.autosave, project, project_path=self.path, name="autosave")
        worker.signals.finished.connect(lambda _path: self._autosave_done())
        worker.signals.failed.connect(lambda error: self.statusMessage.emit(f"Autosave did not work: {error}"))
        # a change while it runs sets it back, and is saved once this one is done (coding goes on meanwhile)
        worker.signals.done.connect(self._autosave_if_changed, Qt.ConnectionType.QueuedConnection)
        self._autosaved = True
        self._autosave_slot.start(worker)

    def _autosave_if_changed(self) -> None:
        if not self._autosaved and self.dirty:
            self.autosave_now()

    def _autosave_done(self) -> None:
        self.statusMessage.emit("Autosaved.")

    def offer_recovery(self) -> bool:
        """At start: offer the newest autosave of a session that did not end normally."""
        items = autosaving.recoverable()
        if not items:
            return False
        item = items[0]
        choice = self.ask_recovery(item)
        if choice == "recover":
            self.open(item.path, recovered=item)
            return True
        if choice == "discard":
            autosaving.discard(item)
        return False

    def ask_recovery(self, item: autosaving.RecoveryItem) -> str:
        """"recover", "later" or "discard", as the user answers."""
        box = QMessageBox(self._window)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Recover your work?")
        box.setText("TextLab did not close normally last time.")
        box.setInformativeText(f"It kept an autosave: {item.describe()}.\n\nOpen it now? "
                               "“Not now” keeps it for the next start.")
        recover = box.addButton("Recover", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Not now", QMessageBox.ButtonRole.RejectRole)
        discard = box.addButton("Discard it", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(recover)
        box.exec()
        return {recover: "recover", discard: "discard"}.get(box.clickedButton(), "later")

    def finish(self) -> None:
        """A normal exit: this session's autosave is no longer needed."""
        self.timer.stop()
        self.cancel_jobs()
        autosaving.finish_session()
