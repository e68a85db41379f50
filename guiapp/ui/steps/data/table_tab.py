"""The Data step's "Table" tab: the rows of the table as TextLab read them, each column marked
with its role (text, category, ID, …), or only the rows picked in the data-health report under
a banner that leads back to all of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTableView, QVBoxLayout, QWidget

from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui import theme
from guiapp.ui.common.frame_model import DataFrameModel
from guiapp.ui.steps.data.row_subset import RowSubsetModel

if TYPE_CHECKING:  # pandas loads with the first table, not when the window opens
    import pandas as pd


class TableTab(QWidget):
    """``table_view`` over ``rows_model`` (a subset of ``frame_model``), under ``subset_banner``
    ("Showing N rows …" with ``show_all_button``, which the owner connects)."""

    def __init__(self) -> None:
        super().__init__()
        self.frame_model = DataFrameModel()
        self.rows_model = RowSubsetModel()
        self.rows_model.setSourceModel(self.frame_model)
        self.table_view = QTableView(objectName="tableView")
        self.table_view.setModel(self.rows_model)
        self.table_view.setWordWrap(False)
        self.table_view.verticalHeader().setDefaultSectionSize(24)
        self.table_view.horizontalHeader().setDefaultSectionSize(160)
        self.subset_label = QLabel("", objectName="subsetLabel")
        self.show_all_button = QPushButton("Show all rows", objectName="showAllRows")
        banner = QHBoxLayout()
        banner.addWidget(self.subset_label, 1)
        banner.addWidget(self.show_all_button)
        self.subset_banner = QWidget()
        self.subset_banner.setLayout(banner)
        self.subset_banner.setStyleSheet(f"background: {theme.NEWS_BACKGROUND};")
        table_column = QVBoxLayout(self)
        table_column.setContentsMargins(0, 0, 0, 0)
        table_column.addWidget(self.subset_banner)
        table_column.addWidget(self.table_view, 1)

    def show_roles(self, frame: pd.DataFrame, mapping: ColumnMapping) -> None:
        """Mark each column of ``frame`` with its role under ``mapping``; text columns get more room."""
        roles = column_roles(mapping)
        self.frame_model.set_column_roles(roles)
        for position, column in enumerate(frame.columns):
            self.table_view.setColumnWidth(position, 520 if roles.get(str(column)) == "text" else 140)

    def show_rows(self, rows: list[int] | None) -> None:
        """Show only ``rows`` (table positions) under the banner, or every row for None."""
        self.rows_model.set_rows(rows)
        self.subset_banner.setVisible(rows is not None)
        if rows is not None:
            self.subset_label.setText(f"Showing {len(rows):,} rows picked in the data-health report.")


def column_roles(mapping: ColumnMapping) -> dict[str, str]:
    """Column name → its role ("text", "metadata", "category", "ID" or "split")."""
    roles = {column: "text" for column in mapping.text_columns}
    roles.update({column: "metadata" for column in mapping.metadata_columns})
    roles.update({column: "category" for column in mapping.category_columns})
    for column, role in ((mapping.category_column, "category"), (mapping.id_column, "ID"), (mapping.split_column, "split")):
        if column:
            roles[column] = role
    return roles
