"""The Documents step's table: one row per test document, with your coding and every model's answer.

The model holds only an array of document indices (the filtered documents in the chosen order);
filtering and sorting happen in numpy (``guiapp.core.explain.documents``) and the index array is
swapped in with one reset. A QSortFilterProxyModel would call ``data()`` and ``lessThan()`` for
every one of 100,000 rows; this stays instant. Cells are built on demand from the column arrays.

The chosen model's columns come first and carry a soft background: blue when it agrees with your
coding, orange when not (the colours of the confusion matrix). Every answer also starts with ✓ or ✗,
so the table reads the same without colour. Where a text can have several categories, the coding and
the answers list them ("Economy; Health"), and an answer agrees when it is exactly the coded set.

Beside the reading pane, :class:`AnswersTable` lists every model's answer for the chosen document.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QTableWidget, QTableWidgetItem, QWidget

from guiapp.core.explain.documents import (
    CONFIDENCE,
    HUMAN,
    ID,
    METADATA,
    PREDICTED,
    ROW,
    TEXT,
    Document,
    DocumentFilter,
    DocumentsTable,
    matching_rows,
    sort_rows,
)
from guiapp.ui.theme import AGREE_BACKGROUND, DISAGREE_BACKGROUND  # as the confusion matrix's blue and orange

PREVIEW_CHARS = 120
TOOLTIP_CHARS = 2000
RIGHT_MARK, WRONG_MARK = "✓", "✗"
NO_CONFIDENCE = "—"
DOCUMENT_ROLE = Qt.ItemDataRole.UserRole + 1  # the document's index among the test documents
CONFIDENCE_TIP = ("Confidence: how sure the model was of its answer, from 0 to 100 % (the probability it gave "
                  "that category). High confidence does not mean the answer is right.")
NO_CONFIDENCE_TIP = "This model does not say how sure it is of its answers."
SEVERAL_CONFIDENCE_TIP = ("Confidence: how sure the model was of its least sure yes-or-no, from 0 to 100 % (the "
                          "chance it gave a category it chose, or against a category it left out). High "
                          "confidence does not mean the answer is right.")
AGREES_TIP = "✓ yes: the model chose the category you coded."
SEVERAL_AGREES_TIP = "✓ yes: the model gave exactly the categories you coded (none missed, none added)."
ANSWER_HEADERS = ["Model", "Answer", "Confidence", "Agrees?"]  # short titles: a narrow pane keeps the names


def confidence_tip(table: DocumentsTable | None) -> str:
    """What the confidence means for this table's answers."""
    return SEVERAL_CONFIDENCE_TIP if table is not None and table.multi_label else CONFIDENCE_TIP


def names(categories: tuple[str, ...]) -> str:
    """“Economy” and “Health”."""
    quoted = [f"“{name}”" for name in categories]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def answer_tooltip(model: str, given: str, coded: str, missed: tuple[str, ...], wrongly: tuple[str, ...],
                   several: bool) -> str:
    """What a model's answer says next to your coding, in words."""
    if not several:
        return f"{model} answered “{given}”; you coded “{coded}”."
    parts = [f"{model} gave it: {given}. You coded: {coded}."]
    if missed:
        parts.append(f"It missed {names(missed)}.")
    if wrongly:
        parts.append(f"It wrongly added {names(wrongly)}.")
    return " ".join(parts)


@dataclass(frozen=True)
class Column:
    """One column: what it shows (``kind``), its sort key, title and header tooltip."""

    kind: str  # row | id | text | human | answer | confidence | metadata
    key: str
    title: str
    tooltip: str
    model: str | None = None
    width: int = 90


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The start of a text on one line: line breaks and runs of spaces become one space."""
    flat = " ".join(text[: limit * 2].split())
    return flat if len(flat) <= limit and len(text) <= limit * 2 else flat[: limit - 1].rstrip() + "…"


def format_confidence(value: float | None) -> str:
    return NO_CONFIDENCE if value is None or value != value else f"{value * 100:.0f} %"


class DocumentsTableModel(QAbstractTableModel):
    """Shows the documents of a :class:`DocumentsTable` that pass a :class:`DocumentFilter`."""

    shownChanged = Signal(int, int)  # documents shown, documents in all

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._table: DocumentsTable | None = None
        self._filter = DocumentFilter()
        self._rows = np.zeros(0, dtype=np.int64)
        self._columns: list[Column] = []
        self._sort_key: str | None = None
        self._descending = False

    # ----- public API ----------------------------------------------------------------------------
    def set_table(self, table: DocumentsTable | None, flt: DocumentFilter | None = None) -> None:
        """Show ``table`` in test order, filtered by ``flt`` (default: everything, best model first)."""
        self._table = table
        self._sort_key, self._descending = None, False
        self.set_filter(flt or DocumentFilter(model=table.model_names()[0] if table and table.models else None))

    def table(self) -> DocumentsTable | None:
        return self._table

    def set_filter(self, flt: DocumentFilter) -> None:
        """Keep only the documents that pass ``flt`` (in the current order); its model comes first."""
        self.beginResetModel()
        self._filter = flt
        self._columns = self._build_columns()
        if self._table is None:
            self._rows = np.zeros(0, dtype=np.int64)
        else:
            rows = matching_rows(self._table, flt)
            self._rows = sort_rows(self._table, rows, self._sort_key, self._descending) if self._sort_key else rows
        self.endResetModel()
        self.shownChanged.emit(self.shown_count(), self.total_count())

    def current_filter(self) -> DocumentFilter:
        return self._filter

    def focus_model(self) -> str | None:
        """The model whose answers are coloured (the filter's model, else the best)."""
        if self._table is None or not self._table.models:
            return None
        return self._filter.model or self._table.model_names()[0]

    def shown_count(self) -> int:
        return len(self._rows)

    def total_count(self) -> int:
        return len(self._table) if self._table is not None else 0

    def shown_documents(self) -> np.ndarray:
        """The document indices in the order shown."""
        return self._rows.copy()

    def document_at(self, row: int) -> int:
        return int(self._rows[row])

    def row_of(self, document: int) -> int | None:
        found = np.flatnonzero(self._rows == document)
        return int(found[0]) if len(found) else None

    def columns(self) -> list[Column]:
        return list(self._columns)

    def column_of(self, key: str) -> int:
        return next(i for i, column in enumerate(self._columns) if column.key == key)

    def sort_state(self) -> tuple[str | None, bool]:
        """The key of the column the rows are sorted by (None: test order) and whether descending."""
        return self._sort_key, self._descending

    # ----- Qt model ----------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Header click: reorder the shown documents in numpy (stable, missing values last)."""
        if self._table is None or not 0 <= column < len(self._columns):
            return
        self.layoutAboutToBeChanged.emit()
        kept = self.persistentIndexList()  # the selection: it follows its documents to their new rows
        documents = [int(self._rows[index.row()]) for index in kept]
        self._sort_key = self._columns[column].key
        self._descending = order == Qt.SortOrder.DescendingOrder
        self._rows = sort_rows(self._table, self._rows, self._sort_key, self._descending)
        moved = [self.index(self.row_of(document) or 0, index.column()) for index, document in zip(kept, documents,
                                                                                                  strict=True)]
        self.changePersistentIndexList(kept, moved)
        self.layoutChanged.emit()

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._columns):
            return None
        column = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.title
        if role == Qt.ItemDataRole.ToolTipRole:
            return column.tooltip
        if role == Qt.ItemDataRole.FontRole and column.model is not None and column.model == self.focus_model():
            font = QFont()
            font.setBold(True)
            return font
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if self._table is None or not index.isValid():
            return None
        document = int(self._rows[index.row()])
        column = self._columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(column, document)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(column, document)
        if role == Qt.ItemDataRole.BackgroundRole and column.model is not None and column.model == self.focus_model():
            right = bool(self._table.model(column.model).correct[document])
            return QBrush(QColor(AGREE_BACKGROUND if right else DISAGREE_BACKGROUND))
        if role == Qt.ItemDataRole.TextAlignmentRole and column.kind in ("row", "confidence"):
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        if role == DOCUMENT_ROLE:
            return document
        return None

    # ----- cells ---------------------------------------------------------------------------------------
    def _display(self, column: Column, document: int) -> str:
        table = self._table
        assert table is not None
        if column.kind == "row":
            return str(int(table.rows[document]))
        if column.kind == "id":
            value = table.ids[document]
            return "" if value is None else str(value)
        if column.kind == "text":
            return preview(str(table.texts[document]))
        if column.kind == "human":
            return table.human_label(document)
        if column.kind == "metadata":
            return table.metadata_text(column.key[len(METADATA):], document)
        answers = table.model(column.model)
        if column.kind == "answer":
            mark = RIGHT_MARK if answers.correct[document] else WRONG_MARK
            return f"{mark} {table.answer_label(answers, document)}"
        return format_confidence(float(answers.confidence[document]))

    def _tooltip(self, column: Column, document: int) -> str | None:
        table = self._table
        assert table is not None
        if column.kind == "text":
            text = str(table.texts[document])
            shown = text if len(text) <= TOOLTIP_CHARS else text[:TOOLTIP_CHARS].rstrip() + " …"
            return "\n".join(textwrap.fill(part, 90) for part in shown.splitlines() if part.strip()) or None
        if column.kind == "answer":
            answers = table.model(column.model)
            if answers.correct[document]:
                return f"{column.model} agrees with your coding."
            missed, wrongly = table.mistakes(answers, document)
            return answer_tooltip(str(column.model), table.answer_label(answers, document),
                                  table.human_label(document), missed, wrongly, table.multi_label)
        if column.kind == "confidence":
            value = float(table.model(column.model).confidence[document])
            return NO_CONFIDENCE_TIP if value != value else confidence_tip(table)
        if column.kind == "human" and table.multi_label:
            return f"You coded: {table.human_label(document)}"
        return None

    def _build_columns(self) -> list[Column]:
        table = self._table
        if table is None:
            return []
        columns = [Column("row", ROW, "Row", "The row of this text in your spreadsheet.", width=56)]
        if table.has_ids():
            columns.append(Column("id", ID, "ID", "The text's ID from your spreadsheet.", width=60))
        columns.append(Column("text", TEXT, "Text", "The start of the text; hover over it or select the row to "
                              "read all of it.", width=330))
        several = table.multi_label
        columns.append(Column("human", HUMAN, "Your coding",
                              "The categories you gave this text (a text can have several)." if several else
                              "The category you gave this text.", width=170 if several else 130))
        focus = self.focus_model()
        model_names = table.model_names()
        for name in ([focus] if focus else []) + [n for n in model_names if n != focus]:
            tip = (f"The categories {name} gave this text. ✓: exactly the categories you coded; ✗: it missed one or "
                   "added one." if several else
                   f"The category {name} chose. ✓: the same as your coding; ✗: a different one.")
            columns.append(Column("answer", PREDICTED + name, f"{name}\nanswer", tip, model=name,
                                  width=180 if several else 140))
            has = table.model(name).has_confidence
            # the model's name stands over its answer, just left of this column: no need to repeat it
            columns.append(Column("confidence", CONFIDENCE + name, "\nconfidence",
                                  f"{name}: " + (confidence_tip(table) if has else NO_CONFIDENCE_TIP), model=name,
                                  width=84))
        for extra in table.metadata_columns():
            columns.append(Column("metadata", METADATA + extra, extra,
                                  f"“{extra}” from your spreadsheet (not read by the models).", width=110))
        return columns


class DocumentsTableView(QTableView):
    """The table of documents: whole-row selection, one line per row, sortable by header click,
    widths fitted to the kind of column (not measured over 100,000 rows)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.documents = DocumentsTableModel(self)
        self.setModel(self.documents)
        self.setObjectName("documentsTable")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setAlternatingRowColors(False)  # the answers' colours carry meaning; stripes would blur it
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.verticalHeader().setVisible(False)
        rows = self.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # uniform heights: no measuring
        rows.setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.horizontalHeader()
        header.setSectionsMovable(False)
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # test order until a header is clicked
        self.setSortingEnabled(True)
        self._widths: dict[str, int] = {}  # widths the user dragged, by column key
        self._fitting = False
        header.sectionResized.connect(self._remember_width)
        self.documents.modelReset.connect(self._fit_columns)

    def _remember_width(self, section: int, _old: int, new: int) -> None:
        columns = self.documents.columns()
        if not self._fitting and 0 <= section < len(columns):
            self._widths[columns[section].key] = new

    def _fit_columns(self) -> None:
        """Widths by kind of column (or as the user left them); the sort indicator where the sort is."""
        header = self.horizontalHeader()
        columns = self.documents.columns()
        self._fitting = True
        for i, column in enumerate(columns):
            header.setSectionResizeMode(i, QHeaderView.ResizeMode.Interactive)
            self.setColumnWidth(i, self._widths.get(column.key, column.width))
        self._fitting = False
        key, descending = self.documents.sort_state()
        keys = [column.key for column in columns]
        order = Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
        header.blockSignals(True)  # only show where the sort is; the rows are already in order
        header.setSortIndicator(keys.index(key) if key in keys else -1, order)
        header.blockSignals(False)


class AnswersTable(QTableWidget):
    """The reading pane's table of every model's answer for one document, coloured as the documents
    table (bold: the model the filters chose); as high as its rows, so the pane scrolls, not the table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(ANSWER_HEADERS), parent)
        self.setObjectName("documentAnswers")
        self.setHorizontalHeaderLabels(ANSWER_HEADERS)
        self.horizontalHeaderItem(2).setToolTip(CONFIDENCE_TIP)
        self.horizontalHeaderItem(3).setToolTip(AGREES_TIP)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setWordWrap(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for column in range(len(ANSWER_HEADERS)):  # model and answer share what the numbers leave
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch if column < 2 else
                                        QHeaderView.ResizeMode.ResizeToContents)
        header.setMinimumSectionSize(40)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def set_table(self, table: DocumentsTable) -> None:
        """The header tips say what confidence and agreeing mean for ``table``'s answers."""
        self.horizontalHeaderItem(2).setToolTip(confidence_tip(table))
        self.horizontalHeaderItem(3).setToolTip(SEVERAL_AGREES_TIP if table.multi_label else AGREES_TIP)

    def fill(self, document: Document, table: DocumentsTable | None, focus: str | None) -> None:
        """One row per answer to ``document``; the ``focus`` model's row in bold."""
        self.setRowCount(len(document.answers))
        for row, answer in enumerate(document.answers):
            agrees = f"{RIGHT_MARK} yes" if answer.correct else f"{WRONG_MARK} no"
            cells = [answer.model, answer.category, format_confidence(answer.confidence), agrees]
            background = QBrush(QColor(AGREE_BACKGROUND if answer.correct else DISAGREE_BACKGROUND))
            several = bool(table is not None and table.multi_label)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text if column < 2 else "")  # a long name or category, shortened in its cell
                if column >= 1:
                    item.setBackground(background)
                if column == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    item.setToolTip(confidence_tip(table) if answer.confidence is not None else NO_CONFIDENCE_TIP)
                if column in (1, 3) and several and not answer.correct:  # which categories it missed or added
                    item.setToolTip(answer_tooltip(answer.model, answer.category, document.human, answer.missed,
                                                   answer.wrongly, True))
                if answer.model == focus:
                    font = QFont()
                    font.setBold(True)
                    item.setFont(font)
                self.setItem(row, column, item)
        rows_height = sum(self.rowHeight(r) for r in range(self.rowCount()))
        self.setFixedHeight(self.horizontalHeader().height() + rows_height + 2 * self.frameWidth() + 2)

    def answers(self) -> list[list[str]]:
        """The answers as the user reads them, row by row."""
        return [[self.item(r, c).text() for c in range(self.columnCount())] for r in range(self.rowCount())]
