"""Noticing that the opened spreadsheet changed on disk (saved again in Excel, moved, deleted):
a watch on the file, and the banner that says so with "Reload" and "Keep this version". TextLab
never reads the file again by itself; the banner only offers it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QTimer
from PySide6.QtWidgets import QFrame, QLabel, QPushButton

from guiapp.ui import theme
from guiapp.ui.common.layouts import hbox

FileSignature = tuple[int, int] | None  # (modification time in ns, size); None = the file is gone


def file_signature(path: Path) -> FileSignature:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


class FileOnDiskBanner(QFrame):
    """The banner (``diskBanner``, hidden until the file changes) and the watch on one file.

    ``may_check()`` says whether a check makes sense now (a table is shown and none is being read);
    the owner connects ``reload_button`` and ``keep_button``."""

    def __init__(self, may_check: Callable[[], bool]) -> None:
        super().__init__(objectName="diskBanner")
        self._may_check = may_check
        self.setStyleSheet(f"#diskBanner {{ {theme.notice_style('disk', '')} }}")
        self.label = QLabel("", objectName="diskLabel")
        self.label.setWordWrap(True)
        self.reload_button = QPushButton("Reload", objectName="bannerReload")
        self.reload_button.setToolTip("Read the file as it is now, keeping your column roles.")
        self.keep_button = QPushButton("Keep this version", objectName="bannerKeep")
        self.keep_button.setToolTip("Go on with the table as it was read; the file on disk is not read.")
        hbox(self, (self.label, 1), self.reload_button, self.keep_button, margins=(8, 4, 8, 4))
        self.hide()
        # a watcher, and a check when the window is activated (check)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._file_touched)
        self.path: Path | None = None
        self._signature: FileSignature = None  # of the version on screen (or the one the user chose to keep)
        self._check_timer = QTimer(self, singleShot=True, interval=300)  # editors write in several steps
        self._check_timer.timeout.connect(self.check)

    def watch(self, path: Path | None, signature: FileSignature) -> None:
        """Watch ``path`` (None: no file, e.g. a project's copy of the table), read as ``signature``."""
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self.path = path
        self._signature = signature if path is not None else None
        self._rewatch()

    def check(self) -> bool:
        """Show the banner when the file on screen changed on disk since it was read (never reloads)."""
        path = self.path
        if path is None or not self._may_check():
            return False
        now = file_signature(path)
        self._rewatch()
        if now == self._signature:
            return False
        if now is None:
            self.label.setText(f"<b>{path.name} was moved or deleted</b> since it was loaded. TextLab goes on with "
                               "the table as it was read.")
        else:
            self.label.setText(f"<b>The file changed on disk</b> since it was loaded ({path.name}). Reload it to use "
                               "the new version (your column roles are kept), or keep this version.")
        self.reload_button.setVisible(now is not None)
        self.show()
        return True

    def keep(self) -> None:
        """Go on with the version on screen; the banner comes back only if the file changes again."""
        if self.path is not None:
            self._signature = file_signature(self.path)
            self._rewatch()
        self.hide()

    def _file_touched(self, _path: str) -> None:
        self._check_timer.start()

    def _rewatch(self) -> None:
        """Editors replace a file (write a new one, rename it over): the watch must be set again."""
        if self.path is not None and str(self.path) not in self.watcher.files() and self.path.exists():
            self.watcher.addPath(str(self.path))
