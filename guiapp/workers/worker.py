"""A QThread-based worker that runs one core call and reports through Qt signals.

The core call has the shape ``fn(*args, on_event=callback, **kwargs)``. The worker's callback
turns core events into signals — progress throttled to about ten per second, log lines as they
come — and raises :class:`~guiapp.core.events.Cancelled` once :meth:`Worker.cancel` was called,
so the core stops at its next checkpoint. The result or the error arrives on the GUI thread.
"""

from __future__ import annotations

import functools
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from guiapp.core.events import Cancelled, Event, Log, Metric, Progress, TaskUpdate
from guiapp.workers import registry
from guiapp.workers.shared_imports import import_shared_libraries

PROGRESS_INTERVAL_S = 0.1


class WorkerSignals(QObject):
    """Signals of a :class:`Worker`, composed rather than inherited (they live on the GUI thread)."""

    started = Signal()
    progress = Signal(object)  # Progress
    log = Signal(object)  # Log
    update = Signal(object)  # TaskUpdate (a part of the job started, finished or failed)
    metric = Signal(object)  # Metric (e.g. the training loss per step), throttled; the last is kept
    finished = Signal(object)  # the core call's return value
    failed = Signal(object)  # the exception (an Exception instance)
    partial = Signal(object)  # what a cancelled job had finished, when it says (before cancelled)
    cancelled = Signal()
    done = Signal()  # always last, after finished/failed/cancelled


_RESULT_SIGNALS = ("progress", "log", "update", "metric", "finished", "failed", "partial", "cancelled")


def _ended() -> None:  # what a finished worker's thread would run (nothing; it is not started again)
    return None


class _Thread(QThread):
    def __init__(self, body: Callable[[], None]) -> None:
        super().__init__()
        self._body = body

    def run(self) -> None:  # runs in the worker thread
        self._body()


class Worker:
    """Runs ``fn(*args, on_event=..., **kwargs)`` in its own thread. ``light``: the call uses none of
    the machine-learning libraries (it reads a file), so it need not wait for their import
    (``shared_imports.py``)."""

    def __init__(self, fn: Callable[..., Any], *args: Any, name: str = "", light: bool = False,
                 **kwargs: Any) -> None:
        self.name = name or getattr(fn, "__name__", "job")
        self._light = light
        self.signals = WorkerSignals()  # what the caller connects to, delivered on the GUI thread
        # the thread emits on these; each is relayed to ``signals`` on the GUI thread unless the job was
        # detached meanwhile (a signal already queued when its widget was deleted is then dropped)
        self._raw = WorkerSignals()
        self._detached = False
        for name in _RESULT_SIGNALS:
            getattr(self._raw, name).connect(functools.partial(self._relay, name))
        self._fn, self._args, self._kwargs = fn, args, kwargs
        self._cancel = threading.Event()
        self._last_emit = 0.0
        self._pending: Progress | None = None
        self._metric_emits: dict[tuple, float] = {}
        self._pending_metrics: dict[tuple, Metric] = {}
        self._thread = _Thread(self._run)
        self._thread.finished.connect(self._on_thread_finished)
        self.started_at: float | None = None

    # -- control, from the GUI thread -------------------------------------------------------
    def start(self) -> None:
        registry.register(self)
        self.started_at = time.monotonic()
        self._thread.start()
        self.signals.started.emit()

    def cancel(self) -> None:
        """Ask the job to stop; it raises Cancelled at its next progress report."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def is_running(self) -> bool:
        return self._thread.isRunning()

    def detach(self) -> None:
        """Deliver nothing more to the callbacks connected to this job (their widget is gone), not even
        what the thread sent before and the GUI thread has not yet delivered; the job still ends and is
        freed as usual (its connections are released when it ends, ``_release``)."""
        self._detached = True

    def wait(self, ms: int = -1) -> bool:
        """Block until the thread ends (or ``ms`` passed); True when it has ended."""
        if not self._thread.isRunning():
            return True
        return self._thread.wait(ms) if ms >= 0 else self._thread.wait()

    # -- in the worker thread ---------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        if self._cancel.is_set():
            raise Cancelled()
        if isinstance(event, Log):
            self._raw.log.emit(event)
            return
        if isinstance(event, TaskUpdate):
            self._raw.update.emit(event)
            return
        if isinstance(event, Metric):
            self._on_metric(event)
            return
        now = time.monotonic()
        finished = event.fraction is not None and event.fraction >= 1.0
        if event.task is not None and self._pending is not None and self._pending.task != event.task:
            # a new part began: the last word on the previous part is not dropped
            self._raw.progress.emit(self._pending)
        if finished or now - self._last_emit >= PROGRESS_INTERVAL_S:
            self._last_emit = now
            self._pending = None
            self._raw.progress.emit(event)
        else:
            self._pending = event

    def _on_metric(self, event: Metric) -> None:
        """Throttled like progress, per series (name, task, run); a series' last point
        (step == total) goes out at once and a held-back one is sent when the job ends."""
        now = time.monotonic()
        key = (event.name, getattr(event, "task", None), getattr(event, "run", ""))
        last = event.total is not None and event.step >= event.total
        if last or now - self._metric_emits.get(key, 0.0) >= PROGRESS_INTERVAL_S:
            self._metric_emits[key] = now
            self._pending_metrics.pop(key, None)
            self._raw.metric.emit(event)
        else:
            self._pending_metrics[key] = event

    def _flush_metrics(self) -> None:
        pending, self._pending_metrics = self._pending_metrics, {}
        for event in pending.values():
            self._raw.metric.emit(event)

    def _run(self) -> None:
        try:
            if self._cancel.is_set():
                raise Cancelled()
            if not self._light:
                import_shared_libraries()
            try:
                result = self._fn(*self._args, on_event=self._on_event, **self._kwargs)
            finally:
                self._flush_metrics()
        except Cancelled as stop:
            partial = getattr(stop, "partial", None)
            if partial is not None:
                self._raw.partial.emit(partial)
            self._raw.cancelled.emit()
        except Exception as error:  # every error goes to the GUI's one error sink
            self._raw.failed.emit(error)
        else:
            if self._cancel.is_set():
                self._raw.cancelled.emit()
            else:
                if self._pending is not None:
                    self._raw.progress.emit(self._pending)
                self._raw.finished.emit(result)

    def _relay(self, name: str, *args: Any) -> None:  # on the GUI thread
        if not self._detached:
            getattr(self.signals, name).emit(*args)

    def _on_thread_finished(self) -> None:
        registry.unregister(self)
        if not self._detached:
            self.signals.done.emit()
        self._release()

    def _release(self) -> None:
        """Break the reference cycles between this worker, its thread and the slots connected to its
        signals, once ``done`` was delivered (on the GUI thread). The worker is then freed by reference
        counting on the GUI thread, instead of by a cyclic garbage collection that may run in any thread —
        e.g. another worker's explicit ``gc.collect()`` — and would delete its Qt objects from there,
        which can crash. Every queued signal of this job was delivered before the thread's ``finished``."""
        if not self._thread.wait(2000):  # the thread emits finished just before it ends: let it end first,
            return  # so this worker's QThread is never deleted while running (kept for the collector then)
        signals = [getattr(self.signals, name) for name in ("started", *_RESULT_SIGNALS, "done")]
        signals += [getattr(self._raw, name) for name in _RESULT_SIGNALS]
        with warnings.catch_warnings():  # PySide warns when a signal had nothing connected
            warnings.simplefilter("ignore")
            for signal in [*signals, self._thread.finished]:
                try:
                    signal.disconnect()
                except (RuntimeError, TypeError, SystemError):
                    pass
        self._thread._body = _ended


class WorkerSlot:
    """Holds at most one running job (one per page): starting a new one cancels the old.

    ``owner``: the widget whose callbacks receive the job's signals. When it is deleted (a page
    closed or rebuilt) the running job is cancelled and its result no longer delivered, so a job
    that ends afterwards never reaches a deleted widget."""

    def __init__(self, owner: QObject | None = None) -> None:
        self.current: Worker | None = None
        if owner is not None:
            owner.destroyed.connect(self._owner_deleted)

    def _owner_deleted(self, *_args: Any) -> None:
        worker, self.current = self.current, None
        if worker is not None:
            worker.cancel()
            worker.detach()

    def start(self, worker: Worker) -> Worker:
        self.cancel()
        self.current = worker
        worker.signals.done.connect(lambda w=worker: self._forget(w))
        worker.start()
        return worker

    def cancel(self) -> None:
        if self.current is not None:
            self.current.cancel()

    def is_busy(self) -> bool:
        return self.current is not None and self.current.is_running()

    def _forget(self, worker: Worker) -> None:
        if self.current is worker:
            self.current = None
