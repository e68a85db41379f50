"""A proxy model that shows only chosen rows of a table model, in the given order.

Unlike a filter proxy it never visits every source row, so it is instant on a million rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QAbstractProxyModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class RowSubsetModel(QAbstractProxyModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[int] | None = None  # None = show every row
        self._lookup: dict[int, int] = {}

    def set_rows(self, rows: Sequence[int] | None) -> None:
        self.beginResetModel()
        self._rows = None if rows is None else list(rows)
        self._lookup = {} if rows is None else {source: i for i, source in enumerate(self._rows)}
        self.endResetModel()

    def rows(self) -> list[int] | None:
        return None if self._rows is None else list(self._rows)

    def setSourceModel(self, model) -> None:
        self.beginResetModel()
        old = self.sourceModel()
        if old is not None:
            old.modelReset.disconnect(self._source_reset)
            old.headerDataChanged.disconnect(self.headerDataChanged)
            old.dataChanged.disconnect(self._source_data_changed)
        super().setSourceModel(model)
        model.modelReset.connect(self._source_reset)
        model.headerDataChanged.connect(self.headerDataChanged)
        model.dataChanged.connect(self._source_data_changed)
        self.endResetModel()

    def _source_reset(self) -> None:
        self.set_rows(None)

    def _source_data_changed(self, *_args) -> None:
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1))

    # -- QAbstractProxyModel ---------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        source = self.sourceModel()
        if parent.isValid() or source is None:
            return 0
        return source.rowCount() if self._rows is None else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        source = self.sourceModel()
        return 0 if parent.isValid() or source is None else source.columnCount()

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        if parent.isValid() or not (0 <= row < self.rowCount() and 0 <= column < self.columnCount()):
            return QModelIndex()
        return self.createIndex(row, column)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        return QModelIndex()

    def mapToSource(self, proxy: Index) -> QModelIndex:
        if not proxy.isValid() or self.sourceModel() is None:
            return QModelIndex()
        row = proxy.row() if self._rows is None else self._rows[proxy.row()]
        return self.sourceModel().index(row, proxy.column())

    def mapFromSource(self, source: Index) -> QModelIndex:
        if not source.isValid():
            return QModelIndex()
        row = source.row() if self._rows is None else self._lookup.get(source.row())
        return QModelIndex() if row is None else self.index(row, source.column())

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        source = self.sourceModel()
        if source is None:
            return None
        if orientation == Qt.Orientation.Vertical and self._rows is not None:
            if not 0 <= section < len(self._rows):
                return None
            section = self._rows[section]
        return source.headerData(section, orientation, role)
