"""The only bridge between the core and Qt: run core calls in threads, report through signals."""

from guiapp.workers.error_sink import ErrorReport, ErrorSink, error_report
from guiapp.workers.worker import Worker, WorkerSlot

__all__ = ["ErrorReport", "ErrorSink", "Worker", "WorkerSlot", "error_report"]
