"""What a step's page is made of before its own parts: the study session it follows and the two
signals through which it tells the window what it is doing and what went wrong."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from guiapp.ui.session.study_session import StudySession


class SessionPage(QWidget):
    """A page that follows ``session`` (a session of its own when none is given, e.g. in a test)."""

    statusMessage = Signal(str)
    errorRaised = Signal(object, str)  # an error, and what was being done

    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent)
        self.session = session or StudySession(self)
