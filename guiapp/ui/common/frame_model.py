"""A lazy Qt table model that shows a pandas DataFrame the way the user's spreadsheet looks.

Nothing here walks the whole table: row and column counts come from the frame's shape and each
cell is fetched on demand with ``DataFrame.iat``, so a table of a million rows opens at once.
The row numbers in the vertical header are the spreadsheet's (header in row 1, first data row in
row 2), so "row 37" means the same thing here, in the health report and in Excel.

The model keeps a reference to the frame it was given; call :meth:`DataFrameModel.set_frame`
again after changing the frame.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
import numbers
import textwrap
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtGui import Qt as QtGuiQt  # Qt namespace functions that live in QtGui

from guiapp.core.tables.rows import row_origin, spreadsheet_rows
from guiapp.ui.theme import DEFAULT_TINT, HIGHLIGHT, ROLE_TINTS

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

DISPLAY_CHARS = 300  # longer texts are elided in the cell; the tooltip has more
TOOLTIP_CHARS = 2000  # the tooltip is capped so it fits on the screen
TOOLTIP_WIDTH = 90  # characters per tooltip line
TOOLTIP_MIN_CHARS = 60  # shorter single-line values need no tooltip
MISSING_TEXT = ""  # missing cells are blank, as in a spreadsheet
RAW_VALUE_ROLE = Qt.ItemDataRole.UserRole + 1  # the cell's value as stored (None when missing)

ROLE_DESCRIPTIONS: dict[str, str] = {
    "text": "This column holds the texts the models will read.",
    "category": "This column holds your coding: the category of each text.",
    "id": "This column identifies each text; it is kept with the results but not read by the models.",
    "split": "This column says which texts are for training and which are held back for the final test.",
    "metadata": "This column is kept with the results (for example to compare groups) but not read by the models.",
}


def column_roles_for(mapping) -> dict[str, str]:
    """The role tags for a :class:`guiapp.core.study.mapping.ColumnMapping` (column name -> role)."""
    roles: dict[str, str] = {}
    for name in getattr(mapping, "metadata_columns", []) or []:
        roles[name] = "metadata"
    if getattr(mapping, "split_column", None):
        roles[mapping.split_column] = "split"
    if getattr(mapping, "id_column", None):
        roles[mapping.id_column] = "ID"
    if getattr(mapping, "category_column", None):
        roles[mapping.category_column] = "category"
    for name in getattr(mapping, "text_columns", []) or []:
        roles[name] = "text"
    return roles


def is_missing(value: object) -> bool:
    """True for None, NaN, NaT and pandas' NA (scalars only)."""
    import pandas as pd
    if value is None:
        return True
    if isinstance(value, str | bytes):
        return False
    try:
        result = pd.isna(value)
    except (TypeError, ValueError):
        return False
    return isinstance(result, bool | np.bool_) and bool(result)


def format_number(value: float) -> str:
    """Integers as they are, other numbers with up to 6 significant digits (no scientific
    notation for ordinary magnitudes)."""
    if isinstance(value, numbers.Integral):
        return str(int(value))
    number = float(value)
    if math.isinf(number):
        return "∞" if number > 0 else "−∞"
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    if 1e-4 <= abs(number) < 1e15:
        text = f"{number:.6g}"
        return f"{number:.6f}".rstrip("0").rstrip(".") if "e" in text else text
    return f"{number:.6g}"


def format_value(value: object) -> str:
    """How a cell value is written in the table (one line, not elided)."""
    import pandas as pd
    if is_missing(value):
        return MISSING_TEXT
    if isinstance(value, bool | np.bool_):
        return "TRUE" if value else "FALSE"  # as a spreadsheet writes them
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        return format_number(value)  # type: ignore[arg-type]
    if isinstance(value, pd.Timestamp | _dt.datetime):
        stamp = pd.Timestamp(value)
        if stamp.hour == stamp.minute == stamp.second == 0 and stamp.microsecond == 0 and stamp.nanosecond == 0:
            return stamp.strftime("%Y-%m-%d")
        if stamp.second == 0 and stamp.microsecond == 0:
            return stamp.strftime("%Y-%m-%d %H:%M")
        return stamp.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, pd.Timedelta | _dt.timedelta):
        return str(pd.Timedelta(value))
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def elide(text: str, limit: int = DISPLAY_CHARS) -> str:
    """One line of at most ``limit`` characters; line breaks become a visible mark."""
    one_line = " ⏎ ".join(part.strip() for part in text.splitlines()) if "\n" in text or "\r" in text else text
    one_line = one_line.replace("\t", " ")
    if len(one_line) <= limit:
        return one_line
    return one_line[: limit - 1].rstrip() + "…"


def tooltip_text(text: str) -> str:
    """The full text, wrapped for a tooltip and capped at :data:`TOOLTIP_CHARS` characters."""
    capped = text if len(text) <= TOOLTIP_CHARS else text[:TOOLTIP_CHARS].rstrip() + " …"
    paragraphs = capped.splitlines() or [""]
    wrapped = "\n".join(textwrap.fill(p, TOOLTIP_WIDTH) if p.strip() else "" for p in paragraphs)
    if len(text) > TOOLTIP_CHARS:
        wrapped += f"\n\n(text shortened: {len(text):,} characters in total)"
    # Qt would render text that looks like HTML as rich text; keep it plain.
    if QtGuiQt.mightBeRichText(wrapped):
        return f"<p style='white-space:pre-wrap'>{html.escape(wrapped)}</p>"
    return wrapped


class DataFrameModel(QAbstractTableModel):
    """Read-only view of a DataFrame, with spreadsheet row numbers, column roles and highlights."""

    highlightChanged = Signal()

    def __init__(self, frame: pd.DataFrame | None = None, parent=None) -> None:
        super().__init__(parent)
        self._hold(frame)
        self._roles: dict[str, str] = {}
        self._highlight: frozenset[int] = frozenset()
        self._highlight_brush = QBrush(QColor(HIGHLIGHT))
        self._bold = QFont()
        self._bold.setBold(True)

    # ----- public API -------------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            import pandas as pd

            self._frame = pd.DataFrame()
        return self._frame

    def set_frame(self, frame: pd.DataFrame | None) -> None:
        """Show another table. Column roles are kept for columns that still exist; highlights
        are cleared."""
        self.beginResetModel()
        self._hold(frame)
        names = {str(c) for c in frame.columns} if frame is not None else set()
        self._roles = {k: v for k, v in self._roles.items() if k in names}
        self._highlight = frozenset()
        self.endResetModel()
        self.highlightChanged.emit()

    def _row_number(self, section: int) -> int:
        """The spreadsheet row (title rows and the header counted) of the row shown at ``section``."""
        return int(self._rows[section]) if 0 <= section < len(self._rows) else section + 2

    def column_roles(self) -> dict[str, str]:
        return dict(self._roles)

    def set_column_roles(self, roles: Mapping[str, str] | None) -> None:
        """Tag columns with their role ("text", "category", "ID", "split", "metadata"); the tag is
        shown under the column name and the column is tinted. Columns not named have no tag."""
        self._roles = {str(k): str(v) for k, v in (roles or {}).items() if v}
        columns = self.columnCount()
        if columns:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, columns - 1)
            if self.rowCount():
                self.dataChanged.emit(
                    self.index(0, 0),
                    self.index(self.rowCount() - 1, columns - 1),
                    [Qt.ItemDataRole.BackgroundRole],
                )

    def role_of(self, column: int) -> str | None:
        if not 0 <= column < self.columnCount():
            return None
        return self._roles.get(str(self._frame.columns[column]))

    def highlight_rows(self, positions: Iterable[int]) -> None:
        """Mark rows (table positions, 0-based) so they stand out; replaces earlier marks."""
        n = self.rowCount()
        new = frozenset(int(p) for p in positions if 0 <= int(p) < n)
        changed = self._highlight ^ new
        self._highlight = new
        if changed and self.columnCount():
            self.dataChanged.emit(
                self.index(min(changed), 0),
                self.index(max(changed), self.columnCount() - 1),
                [Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.FontRole],
            )
            self.headerDataChanged.emit(Qt.Orientation.Vertical, min(changed), max(changed))
        self.highlightChanged.emit()

    def clear_highlight(self) -> None:
        self.highlight_rows(())

    def highlighted_rows(self) -> list[int]:
        """The marked table positions, in order."""
        return sorted(self._highlight)

    def is_highlighted(self, position: int) -> bool:
        return position in self._highlight

    def cell_text(self, row: int, column: int) -> str:
        """The text shown in a cell (convenience for callers and tests)."""
        return self.data(self.index(row, column)) or ""

    # ----- Qt model interface -----------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self._frame is None else int(self._frame.shape[0])

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self._frame is None else int(self._frame.shape[1])

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.BackgroundRole:
            if row in self._highlight:
                return self._highlight_brush
            tag = self.role_of(column)
            if tag:
                return QBrush(QColor(ROLE_TINTS.get(tag.lower(), DEFAULT_TINT)[0]))
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if self._numeric[column]:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, RAW_VALUE_ROLE):
            return None
        value = self._frame.iat[row, column]
        if role == RAW_VALUE_ROLE:
            return None if is_missing(value) else value
        text = format_value(value)
        if role == Qt.ItemDataRole.DisplayRole:
            return elide(text)
        # ToolTipRole: only where the cell cannot show everything at a glance
        if not text or (len(text) < TOOLTIP_MIN_CHARS and "\n" not in text):
            return None
        return tooltip_text(text)

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Vertical:
            if role == Qt.ItemDataRole.DisplayRole:
                return str(self._row_number(section))
            if role == Qt.ItemDataRole.ToolTipRole:
                origin = row_origin(self._frame)
                where = f"the sheet “{origin.sheet}”" if origin.sheet else "your spreadsheet"
                return (f"Row {self._row_number(section)} in {where} "
                        f"(row {origin.first_row - 1} holds the column names).")
            if role == Qt.ItemDataRole.BackgroundRole and section in self._highlight:
                return QBrush(QColor(HIGHLIGHT))
            if role == Qt.ItemDataRole.FontRole and section in self._highlight:
                return self._bold
            return None
        if not 0 <= section < self.columnCount():
            return None
        name = str(self._frame.columns[section])
        tag = self._roles.get(name)
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{name}\n({tag})" if tag else name
        if role == Qt.ItemDataRole.UserRole:  # the bare column name, without the role tag
            return name
        if role == Qt.ItemDataRole.ToolTipRole:
            if tag:
                return f"{name}: {ROLE_DESCRIPTIONS.get(tag.lower(), f'used as {tag}.')}"
            return f"{name}: not used by the models."
        if role == Qt.ItemDataRole.BackgroundRole and tag:
            return QBrush(QColor(ROLE_TINTS.get(tag.lower(), DEFAULT_TINT)[1]))
        if role == Qt.ItemDataRole.FontRole and tag:
            return self._bold
        return None

    # ----- helpers ----------------------------------------------------------------------------
    def _hold(self, frame: pd.DataFrame | None) -> None:
        # no frame is an empty table, made only when asked for: an empty model needs no pandas
        self._frame = frame
        self._numeric = self._numeric_columns(frame) if frame is not None else []
        self._rows = spreadsheet_rows(frame) if frame is not None else np.empty(0, dtype=np.int64)

    @staticmethod
    def _numeric_columns(frame: pd.DataFrame) -> list[bool]:
        import pandas as pd
        return [
            pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
            for dtype in frame.dtypes
        ]
