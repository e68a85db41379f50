"""The list of a study's steps on the left of the window: a step that cannot be shown yet is greyed
out (never hidden) and its tooltip says why."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from guiapp.ui import theme

WHY_NOT_ROLE = Qt.ItemDataRole.UserRole + 1


class StepList(QListWidget):
    """The steps of a study. Only steps that exist in this version are listed."""

    availabilityChanged = Signal()  # a step was enabled or greyed out

    def __init__(self) -> None:
        super().__init__(objectName="stepList")
        self.setFixedWidth(190)
        self.setSpacing(2)
        self.setStyleSheet(theme.STEP_LIST_STYLE)

    def add_step(self, number: int, title: str, tip: str) -> QListWidgetItem:
        item = QListWidgetItem(f"{number}   {title}")
        item.setToolTip(tip)
        item.setData(Qt.ItemDataRole.UserRole, tip)
        self.addItem(item)
        return item

    def set_step_enabled(self, row: int, enabled: bool, why: str = "") -> None:
        """Enable a step, or grey it out with ``why`` added to its tooltip (never hidden)."""
        item = self.item(row)
        flags = item.flags()
        if enabled:
            item.setFlags(flags | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        else:
            item.setFlags(flags & ~Qt.ItemFlag.ItemIsEnabled & ~Qt.ItemFlag.ItemIsSelectable)
        tip = item.data(Qt.ItemDataRole.UserRole)
        item.setToolTip(tip if enabled or not why else f"{tip}\nNot available yet: {why}")
        item.setData(WHY_NOT_ROLE, "" if enabled else why)
        self.availabilityChanged.emit()

    def why_not(self, row: int) -> str:
        """Why a greyed-out step is not available yet ("" when it is, or when nobody said)."""
        return str(self.item(row).data(WHY_NOT_ROLE) or "")

    def is_step_enabled(self, row: int) -> bool:
        return bool(self.item(row).flags() & Qt.ItemFlag.ItemIsEnabled)
