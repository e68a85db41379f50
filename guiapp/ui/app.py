"""Starting the desktop app: QApplication, look, error hook, main window."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from guiapp import APP_NAME, __version__


def create_application(argv: list[str] | None = None):
    from guiapp.ui.qt_system_libraries import stop_unless_windows_can_open

    stop_unless_windows_can_open()  # before Qt loads: a missing X11 library would make it abort
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # texts never leave the machine
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(argv if argv is not None else sys.argv[:1])
    QCoreApplication.setOrganizationName("TextLab")
    QCoreApplication.setApplicationName(APP_NAME)
    QCoreApplication.setApplicationVersion(__version__)
    from guiapp.ui.window.sort_arrow_style import arrow_style

    app.setStyle(arrow_style("Fusion"))  # Fusion, with sort arrows pointing the way the values run
    from guiapp.ui.window.about_dialog import app_icon

    app.setWindowIcon(app_icon())
    return app


def run_app(file: str | Path | None = None, example: bool = False) -> int:
    """Start the GUI; optionally open ``file`` (or the example) right away. Returns the exit code."""
    from guiapp.ui.window.file_open_events import FileOpenFilter
    from guiapp.ui.main_window import MainWindow

    app = create_application()
    window = MainWindow()
    _install_excepthook(window)
    window._file_open_filter = FileOpenFilter(window)  # kept alive with the window
    app.installEventFilter(window._file_open_filter)
    window.show()
    if os.environ.get("TEXTLAB_EXIT_WHEN_SHOWN"):  # benchmarks/bench_cold_start.py: time to the first window
        _exit_when_shown(app)
        return app.exec()
    if file:
        window.open_path(Path(file))
    elif example:
        window.open_example()
    else:
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, window.offer_recovery)  # after a crash: offer the autosave
    return app.exec()


def _exit_when_shown(app) -> None:
    """Once the event loop has painted the shown window: print the clock (``time.time()``) and quit."""
    import time

    from PySide6.QtCore import QTimer

    def report() -> None:
        print(f"TEXTLAB_SHOWN {time.time():.6f}", flush=True)
        app.quit()

    QTimer.singleShot(0, report)


def _install_excepthook(window) -> None:
    """Unexpected errors in GUI code go to the error sink: a dialog, not a closed window."""
    previous = sys.excepthook

    def hook(kind, error, trace):
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, error, trace)
            return
        try:
            window.errors.report(error.with_traceback(trace))
        except Exception:  # never let the hook itself crash the app
            previous(kind, error, trace)

    sys.excepthook = hook
