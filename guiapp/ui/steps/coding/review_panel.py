"""Codings the models doubt: texts coded one way that models which never saw them put in another
category, most doubtful first, each with "Keep" and "Change to …".

The panel shows a :class:`~guiapp.core.coding.review.Review` as it comes from the core (its sentence,
then its doubts in their order) and says what the researcher decided; it records nothing itself.
The page records a decision when the panel asks (``keep`` / ``change``) and may pass the decisions
made earlier back in (``decided``). A decision made here is shown at once.
"""

from __future__ import annotations

import html
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.coding.review import Doubt
from guiapp.ui import theme
from guiapp.ui.steps.coding.elided_text_delegate import ElidedTextDelegate
from guiapp.ui.common.eliding_button import ElidingButton
from guiapp.ui.common.section_title import section_title

TITLE = "Codings the models doubt"
HEADERS = ("Row", "Text", "Your coding", "Suggested", "Confidence", "Decision")
TIPS = (
    "The row of the text in your spreadsheet.",
    "The coded text (hover over it to read all of it).",
    "The category you (or your file) gave the text.",
    "The category that models which did not see this text while learning find most likely instead.",
    "How sure those models are of the suggested category (its probability).",
    "Keep your coding, or change it to the suggested category.",
)
ROW, TEXT, CODED, SUGGESTED, CONFIDENCE, DECISION = range(len(HEADERS))
SHOWN_CHARACTERS = 400  # of a long text in its cell (whole in the tooltip)
TEXT_LINES = 3  # the height of a row, in lines of text (taller when Keep and Change stand one above the other)
MOST_DECISION_PIXELS = 400  # the decision column is never wider (a long category is shortened with "…")
MOST_STACKED_PIXELS = 240  # nor, where Keep and Change stand one above the other, wider than this
LEAST_TEXT_PIXELS = 170  # the text never gets less; the other columns give up room first
MOST_CATEGORY_PIXELS = 160  # a longer category name is shortened with "…" (whole in its tooltip)
LEAST_CATEGORY_PIXELS = 90  # where room is short, the category columns shrink to this first
WAITING = "Codings can be checked once texts of at least two categories are coded."
CELL_AIR = 30  # the cell's own padding and margins around what it holds
KEEP_TIP = "Your coding stays as it is; the text is no longer listed as doubted."
CHANGE_TIP = ("Code this text “{category}” instead of “{coded}” (recorded in the study; your spreadsheet is "
              "not changed).")


class DoubtRow(NamedTuple):
    """One line of the panel as shown."""

    row: Hashable
    text: str
    coded: str
    suggested: str
    confidence: float
    coded_probability: float
    in_file: bool | None = None  # the coding is the spreadsheet's (None: not known)


class ReviewLike(Protocol):
    """A review as the core gives it: :class:`~guiapp.core.coding.review.Review`, or the coding loop's."""

    doubts: Sequence
    sentence: str
    n_checked: int


class ReviewPanel(QWidget):
    """The doubted codings with a Keep / Change decision per row."""

    keep = Signal(object)  # the row (the table's index label) whose coding stays
    change = Signal(object, str)  # the row, and the category it is to be coded instead

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reviewPanel")
        self._lines: list[DoubtRow] = []
        self._decided: dict[Hashable, str] = {}  # row -> the category the researcher settled on
        self._row_names: Mapping = {}
        self._reviewed = False  # a review is shown (not only what a check would look at)
        self.sentence_label = QLabel(objectName="reviewSentence")
        self.sentence_label.setWordWrap(True)
        self.sentence_label.setTextFormat(Qt.TextFormat.PlainText)
        self.table = QTableWidget(0, len(HEADERS), objectName="reviewTable")
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        for column, tip in enumerate(TIPS):
            self.table.horizontalHeaderItem(column).setToolTip(tip)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)  # the buttons act, not a selection
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setWordWrap(True)
        self._text_delegate = ElidedTextDelegate(TEXT_LINES, self.table)
        self.table.setItemDelegateForColumn(TEXT, self._text_delegate)
        self.table.viewport().installEventFilter(self)  # the columns follow the table's width
        self.table.setAlternatingRowColors(True)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setStyleSheet(f"QTableWidget {{ border: 1px solid {theme.BORDER}; }}"
                                 "QTableWidget::item { padding: 0 6px; }")
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # widths follow the panel's (see _fit_columns)
        header.setStretchLastSection(False)
        self.count_label = QLabel(objectName="reviewCount")
        self.count_label.setStyleSheet(theme.MUTED_STYLE)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(8)
        column.addWidget(section_title(TITLE))
        column.addWidget(self.sentence_label)
        column.addWidget(self.table, 1)
        column.addWidget(self.count_label)
        column.addStretch(0)  # takes the room only while the table is hidden
        self.set_review(None, {}, [])

    # ----- the page gives -------------------------------------------------------------------------
    def set_review(self, review: ReviewLike | None, texts_by_row: Mapping | None = None,
                   rows_by_position: Sequence | None = None, *, row_names: Mapping | None = None,
                   decided: Mapping | None = None) -> None:
        """Show ``review`` (None: nothing reviewed yet): a :class:`~guiapp.core.coding.review.Review`,
        whose doubts name texts by ``position``, an index into ``rows_by_position`` (the rows whose
        codings were reviewed, in the order given to the review), or the coding loop's review, whose
        doubts carry their ``row`` and ``text``. ``texts_by_row``: row → its text (where the doubts do not
        carry it). ``row_names``: row → how the spreadsheet numbers it (default: the row itself).
        ``decided``: row → the category the researcher already settled on (kept or changed to); those
        rows are shown as decided."""
        self._row_names = dict(row_names or {})
        self._decided = {row: str(category) for row, category in (decided or {}).items()}
        doubts = list(review.doubts) if review is not None else []
        self._lines = [_line(d, texts_by_row or {}, rows_by_position) for d in doubts]
        self._reviewed = review is not None
        self.sentence_label.setText(WAITING if review is None else review.sentence)
        no_doubts = review is not None and not doubts and review.n_checked > 0
        self.sentence_label.setStyleSheet(
            f"QLabel {{ {theme.notice_style('done', '8px 10px')} color: {theme.GOOD_TEXT}; }}" if no_doubts
            else theme.SOFT_STYLE)
        self.table.setVisible(bool(self._lines))
        self._fill()

    def set_waiting(self, sentence: str) -> None:
        """What the check would look at, said while no check has been made (a review shown stays)."""
        if not self._reviewed:
            self.sentence_label.setText(sentence)

    def mark_decided(self, row: Hashable, category: str) -> None:
        """Show ``row`` as decided: its coding is now ``category`` (its own: kept; another: changed)."""
        self._decided[row] = str(category)
        index = self._index_of(row)
        if index is not None:
            self._show_decision(index)
        self._show_count()

    # ----- what the researcher sees (for tests and the page) --------------------------------------
    def rows(self) -> list[Hashable]:
        """The doubted rows top to bottom (most doubtful first)."""
        return [line.row for line in self._lines]

    def cell_texts(self, index: int) -> list[str]:
        """What line ``index`` shows, column by column (the decision column: its words)."""
        texts = [self.table.item(index, column).text() for column in range(DECISION)]
        return [*texts, self.decision_text(index)]

    def decision_text(self, index: int) -> str:
        cell = self.table.cellWidget(index, DECISION)
        label = cell.findChild(QLabel) if cell is not None else None
        return label.text() if label is not None else ""

    def decision(self, row: Hashable) -> str | None:
        """The category ``row`` was settled on, or None while undecided."""
        return self._decided.get(row)

    def keep_button(self, index: int) -> QPushButton | None:
        return self._button(index, "reviewKeep")

    def change_button(self, index: int) -> QPushButton | None:
        return self._button(index, "reviewChange")

    def sentence(self) -> str:
        return self.sentence_label.text()

    # ----- drawing ----------------------------------------------------------------------------------
    def _fill(self) -> None:
        table = self.table
        table.setRowCount(0)
        table.setRowCount(len(self._lines))
        height = self._text_delegate.row_height(table)
        for index, line in enumerate(self._lines):
            shown = line.text if len(line.text) <= SHOWN_CHARACTERS else line.text[:SHOWN_CHARACTERS].rstrip() + " …"
            name = str(self._row_names.get(line.row, line.row))
            confidence = _percent(line.confidence)
            probability_tip = (f"Models that did not see this text give “{line.suggested}” a probability of "
                               f"{confidence} and your coding “{line.coded}” {_percent(line.coded_probability)}.")
            origin = {True: " The coding comes from your spreadsheet.", False: " You coded it in TextLab."}
            coded_tip = probability_tip + origin.get(line.in_file, "")
            cells = {ROW: (name, f"Row {name} of your spreadsheet."),
                     TEXT: (" ".join(shown.split()), _wrapped_tip(line.text)),
                     CODED: (line.coded, coded_tip),
                     SUGGESTED: (line.suggested, probability_tip),
                     CONFIDENCE: (confidence, probability_tip)}
            for column, (text, tip) in cells.items():
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                item.setTextAlignment((Qt.AlignmentFlag.AlignRight if column in (ROW, CONFIDENCE)
                                       else Qt.AlignmentFlag.AlignLeft) | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(index, column, item)
            table.item(index, SUGGESTED).setForeground(QBrush(QColor(theme.ACCENT)))
            table.setRowHeight(index, height)
            self._show_decision(index, refit=False)
        self._fit_columns()
        self._show_count()

    def eventFilter(self, watched, event) -> bool:  # Qt's name
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _fit_columns(self) -> None:
        """Every column in view, the table never scrolling sideways where it can be helped: the text
        takes what the other columns leave, never less than ``LEAST_TEXT_PIXELS``; where room is short,
        Keep and Change stand one above the other, the category columns shrink and a long category in
        "Change to “…”" is shortened at its end, so that each label is read from its start."""
        table = self.table
        if not self._lines:
            return
        metrics, header = table.fontMetrics(), table.horizontalHeader()
        room = table.viewport().width()
        needed = {}
        for column in (ROW, CODED, SUGGESTED, CONFIDENCE):
            texts = [table.item(index, column).text() for index in range(table.rowCount())]
            needed[column] = max([header.sectionSizeFromContents(column).width(),
                                  *(metrics.horizontalAdvance(text) + CELL_AIR for text in texts)])
        cells = [table.cellWidget(index, DECISION) for index in range(table.rowCount())]
        cells = [cell for cell in cells if cell is not None]
        side_by_side = max([0, *(_side_by_side_width(cell) for cell in cells)]) + CELL_AIR
        stacked = min(max([0, *(_stacked_width(cell) for cell in cells)]) + CELL_AIR, MOST_STACKED_PIXELS)
        least_decision = max([0, *(cell.minimumSizeHint().width() for cell in cells)]) + CELL_AIR
        fixed = needed[ROW] + needed[CONFIDENCE]
        widths = {ROW: needed[ROW], CONFIDENCE: needed[CONFIDENCE]}
        category_room = max(LEAST_CATEGORY_PIXELS, (room - fixed - LEAST_TEXT_PIXELS - stacked) // 2)
        for column in (CODED, SUGGESTED):
            widths[column] = min(needed[column], MOST_CATEGORY_PIXELS, category_room)
        left = room - sum(widths.values()) - LEAST_TEXT_PIXELS
        stack = left < min(side_by_side, MOST_DECISION_PIXELS)
        wanted = stacked if stack else side_by_side
        widths[DECISION] = max(min(least_decision, MOST_DECISION_PIXELS), min(wanted, MOST_DECISION_PIXELS, left))
        widths[TEXT] = max(LEAST_TEXT_PIXELS, room - sum(widths.values()))
        for cell in cells:
            cell.layout().setDirection(QBoxLayout.Direction.TopToBottom if stack else QBoxLayout.Direction.LeftToRight)
        for column, width in widths.items():
            table.setColumnWidth(column, width)
        self._fit_rows()

    def _fit_rows(self) -> None:
        """Each row as tall as its text's lines, or as its decision where Keep and Change are stacked."""
        table = self.table
        height = self._text_delegate.row_height(table)
        for index in range(table.rowCount()):
            cell = table.cellWidget(index, DECISION)
            cell_height = cell.layout().sizeHint().height() if cell is not None and cell.layout() else 0
            table.setRowHeight(index, max(height, cell_height))

    def _show_decision(self, index: int, refit: bool = True) -> None:
        line = self._lines[index]
        decided = self._decided.get(line.row)
        cell = QWidget()
        layout = QHBoxLayout(cell)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(6)
        if decided is None:
            keep = QPushButton("Keep", objectName="reviewKeep")
            keep.setToolTip(KEEP_TIP)
            keep.clicked.connect(lambda _=False, row=line.row: self._keep(row))
            change = ElidingButton(f"Change to “{line.suggested}”", elide=Qt.TextElideMode.ElideRight)
            change.setObjectName("reviewChange")
            change.setToolTip(CHANGE_TIP.format(category=line.suggested, coded=line.coded))
            change.clicked.connect(lambda _=False, row=line.row, category=line.suggested: self._change(row, category))
            keep.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            layout.addWidget(keep, 0, Qt.AlignmentFlag.AlignLeft)
            layout.addWidget(change)
        else:
            kept = decided == line.coded
            label = QLabel(f"✓ Kept “{decided}”" if kept else f"✓ Changed to “{decided}”")
            label.setStyleSheet(f"{theme.text_style(theme.GOOD)} {theme.BOLD_STYLE}")
            layout.addWidget(label)
        layout.addStretch(1)
        old = self.table.cellWidget(index, DECISION)
        if old is not None:
            old.hide()  # Qt deletes it later; gone from the screen now
        self.table.setCellWidget(index, DECISION, cell)
        if refit:
            self._fit_columns()  # a decision shown: the row's height and layout follow
        faint = QBrush(QColor(theme.FAINT_TEXT))
        for column in range(DECISION):
            item = self.table.item(index, column)
            if item is not None and decided is not None:
                item.setForeground(faint)

    def _show_count(self) -> None:
        if not self._lines:
            self.count_label.setText("")
            return
        done = sum(1 for line in self._lines if line.row in self._decided)
        left = len(self._lines) - done
        self.count_label.setText(f"{done:,} of {len(self._lines):,} decided" + (f"; {left:,} to go." if left else "."))

    def _keep(self, row: Hashable) -> None:
        line = self._lines[self._index_of(row)]  # type: ignore[index]
        self.mark_decided(row, line.coded)
        self.keep.emit(row)

    def _change(self, row: Hashable, category: str) -> None:
        self.mark_decided(row, category)
        self.change.emit(row, category)

    def _index_of(self, row: Hashable) -> int | None:
        return next((i for i, line in enumerate(self._lines) if line.row == row), None)

    def _button(self, index: int, name: str) -> QPushButton | None:
        cell = self.table.cellWidget(index, DECISION)
        return cell.findChild(QPushButton, name) if cell is not None else None


def _line(doubt: Doubt | Any, texts_by_row: Mapping, rows_by_position: Sequence | None) -> DoubtRow:
    """The line of one doubt: named by its row (its own, or through its position)."""
    if hasattr(doubt, "row"):
        row = doubt.row
    elif rows_by_position is not None:
        row = rows_by_position[doubt.position]
    else:
        raise ValueError("a doubt named by its position needs the rows by position to be shown")
    text = texts_by_row.get(row, getattr(doubt, "text", ""))
    return DoubtRow(row, str(text), str(doubt.coded), str(doubt.suggested), float(doubt.confidence),
                    float(doubt.coded_probability), getattr(doubt, "in_file", None))


def _side_by_side_width(cell: QWidget) -> int:
    """The width of a decision cell with its buttons side by side, whichever way they stand now."""
    layout = cell.layout()
    margins = layout.contentsMargins()
    widths = [layout.itemAt(i).sizeHint().width() for i in range(layout.count())]
    shown = [w for w in widths if w > 0]
    return sum(shown) + layout.spacing() * max(len(shown) - 1, 0) + margins.left() + margins.right()


def _stacked_width(cell: QWidget) -> int:
    """The width of a decision cell with its buttons one above the other: its widest part."""
    layout = cell.layout()
    margins = layout.contentsMargins()
    widths = [layout.itemAt(i).sizeHint().width() for i in range(layout.count())]
    return max([0, *widths]) + margins.left() + margins.right()


def _percent(probability: float) -> str:
    """0.873 → "87 %"."""
    return f"{round(probability * 100)} %"


def _wrapped_tip(text: str) -> str:
    """A long text as a tooltip that wraps (rich text) instead of one endless line."""
    return f"<p style='white-space: pre-wrap;'>{html.escape(text)}</p>"
