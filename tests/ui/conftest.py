"""Fixtures for tests that drive the real main window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings


@pytest.fixture
def isolated_settings(tmp_path, monkeypatch):
    """Keep recent files and folders of tests away from the user's own settings."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    yield tmp_path / "settings"


@pytest.fixture
def window(qtbot, isolated_settings):
    from guiapp.ui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 860)
    win.show()
    yield win
    win.data_page.cancel_jobs()
    win.close()
