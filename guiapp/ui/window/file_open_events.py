"""Documents the system asks TextLab to open while it runs: macOS opens a double-clicked
``.textlab`` project (or a spreadsheet dropped on the Dock icon) with a file-open event, not a
command-line argument. The filter hands the file to the window, as File → Open would."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject


class FileOpenFilter(QObject):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.FileOpen and event.file():
            self.window.open_path(Path(event.file()))
            return True
        return False
