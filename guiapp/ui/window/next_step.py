"""The "Next: Models →" button: goes on to the next step of the study, and is enabled only when
that step can be shown (its tooltip then says what the step is for, otherwise why it is not ready)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtWidgets import QPushButton, QWidget

from guiapp.ui.theme import NEXT_STEP_STYLE


class Steps(Protocol):
    """What the button needs of the window's list of steps."""

    def currentRow(self) -> int: ...  # noqa: N802 — Qt's name
    def setCurrentRow(self, row: int) -> None: ...  # noqa: N802
    def count(self) -> int: ...
    def is_step_enabled(self, row: int) -> bool: ...
    def why_not(self, row: int) -> str: ...


class NextStepButton(QPushButton):
    def __init__(self, steps: Steps, titles: Sequence[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="nextStep")
        self._steps = steps
        self._titles = list(titles)  # (title, what the step is for), one per step
        self.setStyleSheet(NEXT_STEP_STYLE)
        self.clicked.connect(self.go_next)
        self.refresh()

    def next_row(self) -> int | None:
        row = self._steps.currentRow() + 1
        return row if 0 < row < self._steps.count() else None

    def go_next(self) -> None:
        row = self.next_row()
        if row is not None and self._steps.is_step_enabled(row):
            self._steps.setCurrentRow(row)

    def refresh(self) -> None:
        """Follow the current step and whether the next one is ready."""
        row = self.next_row()
        self.setVisible(row is not None)
        if row is None:
            return
        title, purpose = self._titles[row]
        self.setText(f"Next: {title} →")
        ready = self._steps.is_step_enabled(row)
        self.setEnabled(ready)
        why = self._steps.why_not(row)
        self.setToolTip(purpose if ready else f"Not available yet: {why}" if why else purpose)
