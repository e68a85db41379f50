"""A list of a table's columns with a check box each: the Data step's text columns, categories and columns
kept for later, the text columns of the texts to predict, the columns a regression of the Findings step is
explained by."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem


class ColumnCheckList(QListWidget):
    """A list of columns with check boxes; columns with another role can be hidden (and unticked)."""

    def __init__(self, object_name: str, max_height: int = 120, fit: bool = False) -> None:
        super().__init__(objectName=object_name)
        self._max_height = max_height
        self._fit = fit  # as high as the columns shown need (up to max_height), not always max_height
        self.setMaximumHeight(max_height)

    def _fit_height(self) -> None:
        if self._fit:
            row = self.sizeHintForRow(0) if self.count() else self.fontMetrics().height() + 4
            rows = max(len(self.shown()), 2)
            self.setFixedHeight(min(self._max_height, rows * row + 2 * self.frameWidth() + 4))

    def set_columns(self, columns: Sequence[Hashable], checked: Sequence[Hashable]) -> None:
        """List ``columns`` (named as text; :meth:`checked` gives back the names as they were given),
        ``checked`` ticked (no change is emitted)."""
        self.blockSignals(True)
        self.clear()
        for column in columns:
            item = QListWidgetItem(str(column))
            item.setData(Qt.ItemDataRole.UserRole, column)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if column in checked else Qt.CheckState.Unchecked)
            self.addItem(item)
        self.blockSignals(False)
        self._fit_height()

    def set_checked(self, checked: Sequence[Hashable]) -> None:
        """Tick exactly ``checked`` among the columns shown (no change is emitted)."""
        self.blockSignals(True)
        for i in range(self.count()):
            item = self.item(i)
            wanted = item.data(Qt.ItemDataRole.UserRole) in checked and not item.isHidden()
            item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
        self.blockSignals(False)

    def checked(self) -> list:
        return [self.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.count())
                if self.item(i).checkState() == Qt.CheckState.Checked and not self.item(i).isHidden()]

    def offer_only(self, offered: set[str]) -> None:
        """Hide (and untick) the columns not in ``offered``; show the others again."""
        self.blockSignals(True)
        for i in range(self.count()):
            item = self.item(i)
            hidden = item.text() not in offered
            if hidden and item.checkState() == Qt.CheckState.Checked:
                item.setCheckState(Qt.CheckState.Unchecked)
            item.setHidden(hidden)
        self.blockSignals(False)
        self._fit_height()

    def shown(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count()) if not self.item(i).isHidden()]
