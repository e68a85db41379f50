"""The worker mechanism: results, errors, throttled progress, cancel, one job per slot."""

from __future__ import annotations

import time

import pytest

from guiapp.core.errors import DataError
from guiapp.core.events import Log, Progress
from guiapp.workers import ErrorSink, Worker, WorkerSlot, error_report
from guiapp.workers.registry import running_workers


def _count(n, on_event, pause=0.0):
    for i in range(n):
        on_event(Progress((i + 1) / n, f"step {i + 1}"))
        if pause:
            time.sleep(pause)
    on_event(Log("counted"))
    return n * 2


def test_result_arrives_on_gui_thread(qtbot):
    worker = Worker(_count, 5)
    with qtbot.waitSignal(worker.signals.finished, timeout=30_000) as blocker:
        worker.start()
    assert blocker.args == [10]
    qtbot.waitUntil(lambda: not worker.is_running())


def test_progress_is_throttled_and_final_step_delivered(qtbot):
    seen = []
    worker = Worker(_count, 20_000)
    worker.signals.progress.connect(seen.append)
    with qtbot.waitSignal(worker.signals.done, timeout=10000):
        worker.start()
    assert 1 <= len(seen) < 200  # 20,000 events in, a handful out
    assert seen[-1].fraction == pytest.approx(1.0)


def test_log_lines_are_all_delivered(qtbot):
    logs = []
    worker = Worker(_count, 3)
    worker.signals.log.connect(logs.append)
    with qtbot.waitSignal(worker.signals.done, timeout=30_000):
        worker.start()
    assert [event.message for event in logs] == ["counted"]


def test_error_is_delivered_not_raised(qtbot):
    def fail(on_event):
        raise DataError("The file is broken.", "Save it again.")

    worker = Worker(fail)
    with qtbot.waitSignal(worker.signals.failed, timeout=30_000) as blocker:
        worker.start()
    assert isinstance(blocker.args[0], DataError)
    qtbot.waitUntil(lambda: not worker.is_running())


def test_cancel_stops_at_next_progress(qtbot):
    finished = []
    worker = Worker(_count, 10_000, pause=0.001)
    worker.signals.finished.connect(finished.append)
    worker.signals.progress.connect(lambda _: worker.cancel())
    with qtbot.waitSignal(worker.signals.cancelled, timeout=30_000):
        worker.start()
    qtbot.waitUntil(lambda: not worker.is_running())
    assert finished == []


def test_slot_cancels_previous_job(qtbot):
    slot = WorkerSlot()
    first = Worker(_count, 100_000, pause=0.0005)
    cancelled = []
    first.signals.cancelled.connect(lambda: cancelled.append(True))
    slot.start(first)
    second = Worker(_count, 3)
    with qtbot.waitSignal(second.signals.finished, timeout=30_000):
        slot.start(second)
    # the thread may end before its queued "cancelled" reaches the GUI thread: wait for the signal
    qtbot.waitUntil(lambda: cancelled == [True], timeout=30_000)
    qtbot.waitUntil(lambda: not first.is_running() and not second.is_running())
    assert cancelled == [True]
    qtbot.waitUntil(lambda: slot.current is None)
    assert running_workers() == []


def test_error_report_plain_words_for_user_error():
    report = error_report(DataError("The file is empty.", "Choose another file."), "Opening the file")
    assert report.title == "Opening the file did not work"
    assert report.message == "The file is empty."
    assert report.hint == "Choose another file."
    assert "DataError" in report.details  # the traceback is folded into details


def test_error_report_for_unexpected_error_keeps_details():
    try:
        {}["missing"]
    except KeyError as error:
        report = error_report(error)
    assert "unexpected problem" in report.message
    assert "Traceback" in report.details


def test_error_sink_shows_non_blocking_dialog(qtbot):
    from PySide6.QtWidgets import QWidget

    parent = QWidget()
    qtbot.addWidget(parent)
    sink = ErrorSink(parent)
    with qtbot.waitSignal(sink.reported, timeout=30_000):
        sink.report(DataError("The sheet is empty.", "Pick another sheet."), "Opening the file")
    box = sink.last_dialog
    assert box is not None and box.isVisible()
    assert "The sheet is empty." in box.text()
    assert "Pick another sheet." in box.informativeText()
    assert "DataError" in box.detailedText()
    box.close()


def test_a_finished_worker_is_freed_on_the_gui_thread_without_a_garbage_collection(qtbot):
    """No reference cycle keeps a finished worker (and its Qt objects) for a cyclic collection, which
    could run in another thread — e.g. a fine-tuning worker's gc.collect() — and crash deleting them."""
    import gc
    import weakref

    slot = WorkerSlot()
    worker = Worker(_count, 3)
    seen = []
    worker.signals.finished.connect(lambda value, w=worker: seen.append((value, w.name)))
    with qtbot.waitSignal(worker.signals.done, timeout=30_000):
        slot.start(worker)
    qtbot.waitUntil(lambda running=worker.is_running: slot.current is None and not running())
    gone = weakref.ref(worker)
    gc.disable()
    try:
        del worker
        assert gone() is None  # freed by reference counting alone
    finally:
        gc.enable()
    assert seen == [(6, "_count")]


def test_a_job_whose_widget_was_deleted_is_cancelled_and_reaches_no_callback(qtbot):
    import threading

    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QLabel

    release = threading.Event()

    def wait_then_answer(on_event):
        release.wait(30)
        on_event(Progress(1.0, "done"))  # raises Cancelled once the slot's owner was deleted
        return "answer"

    label = QLabel()
    slot = WorkerSlot(label)
    delivered = []
    worker = Worker(wait_then_answer)
    worker.signals.finished.connect(lambda answer: delivered.append(label.setText(answer)))
    worker.signals.cancelled.connect(lambda: delivered.append("cancelled"))
    worker.signals.done.connect(lambda: delivered.append(label.text()))
    slot.start(worker)
    label.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert slot.current is None  # the owner's deletion freed the slot
    assert worker.cancel_requested
    release.set()
    qtbot.waitUntil(lambda: not worker.is_running(), timeout=30_000)
    qtbot.wait(50)  # the thread's last signals are delivered
    assert delivered == []  # neither the result, the cancellation nor the end reached the deleted label
    assert running_workers() == []


def test_a_result_already_on_its_way_when_the_widget_is_deleted_is_dropped(qtbot):
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QLabel

    label = QLabel()
    slot = WorkerSlot(label)
    delivered = []
    worker = Worker(_count, 3)
    worker.signals.finished.connect(lambda answer: delivered.append(label.setText(str(answer))))
    slot.start(worker)
    assert worker.wait(30_000)  # the thread has ended: its result waits in the GUI thread's queue
    label.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # the widget goes first
    qtbot.wait(50)  # then the queued result is delivered — to nobody
    assert delivered == []
    assert running_workers() == []
