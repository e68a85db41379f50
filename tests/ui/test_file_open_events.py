"""A file-open event (macOS: a double-clicked project) opens the file in the window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QUrl
from PySide6.QtGui import QFileOpenEvent

from guiapp.ui.window.file_open_events import FileOpenFilter


class Window(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[Path] = []

    def open_path(self, path: Path) -> None:
        self.opened.append(path)


def test_a_file_open_event_reaches_the_window(tmp_path):
    window = Window()
    handler = FileOpenFilter(window)
    project = tmp_path / "study.textlab"
    assert handler.eventFilter(None, QFileOpenEvent(QUrl.fromLocalFile(str(project))))
    assert window.opened == [project]
    assert not handler.eventFilter(None, QEvent(QEvent.Type.Show))
