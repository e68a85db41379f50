"""One small 2×2 table per category, for a study where a text can have several categories.

Such a study has no confusion matrix (a text is not in one category but in several); instead each
category is a yes/no decision, and its table counts the test texts you coded with the category
(“Coded: yes”) or not (“Coded: no”) against whether the model put them there (“Model: yes / no”).
Each cell shows the count and its share of the row; blue cells are where the model decided as you
coded, orange cells its mistakes (missed or added), the stronger the larger the share — the
colours of the confusion matrix. The cards wrap into as many columns as the width allows, so 8 to
20 categories read as a grid that scrolls down, never sideways.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.experiment.scores.metrics import CategoryScores
from guiapp.ui import theme
from guiapp.ui.theme import AGREE_RGB, DISAGREE_RGB, EMPTY_CELL_RGB, TEXT_COLOR, WHITE
from guiapp.ui.common.chart_numbers import format_count, format_row_share

CARD_WIDTH = 232
SPACING = 10
CODED = ("Coded: yes", "Coded: no")
MODEL = ("Model: yes", "Model: no")
ROW_TIPS = ("The test texts you coded with this category.", "The test texts you did not code with this category.")
COLUMN_TIPS = ("The test texts the model put in this category.", "The test texts the model did not put in it.")


def cell_colour(count: int, share: float, agree: bool) -> QColor:
    """Blue for agreement, orange for a mistake, stronger with a larger share of the row; faint grey when empty."""
    if count == 0:
        return QColor(*EMPTY_CELL_RGB)
    base = AGREE_RGB if agree else DISAGREE_RGB
    strength = min(max(share, 0.0), 1.0) ** 0.7 * 0.92
    return QColor(*(round(255 + (channel - 255) * strength) for channel in base))


def _strong(share: float) -> bool:
    """White text where the cell is dark (as in the confusion matrix)."""
    return share ** 0.7 > 0.55


class CategoryCard(QFrame):
    """One category: its name, its 2×2 table and its F1 (with interval and threshold, when known).

    ``table`` is [[tn, fp], [fn, tp]] (rows: your coding no/yes; columns: the model's no/yes), as the
    engine records it; it is shown with "yes" first."""

    def __init__(self, category: str, table: Sequence[Sequence[int]], scores: CategoryScores | None = None,
                 threshold: float | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("categoryCard")
        self.setStyleSheet(theme.card_style("categoryCard"))
        self.setFixedWidth(CARD_WIDTH)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.category = category
        (tn, fp), (fn, tp) = [[int(value) for value in row] for row in table]
        # shown rows: coded yes, coded no; shown columns: model yes, model no
        self.counts = [[tp, fn], [fp, tn]]
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(4)
        title = QLabel(objectName="categoryCardTitle")
        title.setStyleSheet(theme.BOLD_STYLE + " border: none;")
        title.setText(title.fontMetrics().elidedText(category, Qt.TextElideMode.ElideRight, CARD_WIDTH - 20))
        title.setToolTip(category)
        self.title = title
        column.addWidget(title)
        grid = QGridLayout()
        grid.setSpacing(2)
        for position, (text, tip) in enumerate(zip(MODEL, COLUMN_TIPS, strict=True)):
            grid.addWidget(self._header(text, tip, Qt.AlignmentFlag.AlignCenter), 0, position + 1)
        self.cells: list[list[QLabel]] = []
        for row, (text, tip) in enumerate(zip(CODED, ROW_TIPS, strict=True)):
            grid.addWidget(self._header(text, tip, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), row + 1, 0)
            total = sum(self.counts[row])
            labels = []
            for col in range(2):
                count = self.counts[row][col]
                share = count / total if total else 0.0
                labels.append(self._cell(row, col, count, share, total))
                grid.addWidget(labels[-1], row + 1, col + 1)
            self.cells.append(labels)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(2, 1)
        column.addLayout(grid)
        self.footer = QLabel(self._footer(scores, threshold), objectName="categoryCardScore")
        self.footer.setStyleSheet(theme.SOFT_STYLE + " border: none; font-size: 11px;")
        self.footer.setWordWrap(True)  # the F1, its interval and the threshold: on two lines if need be
        self.footer.setToolTip("F1: how well the model finds this category's texts without adding others (0 to 1)."
                               + (" In brackets: the range it would likely take with other test texts (95 %)."
                                  if scores is not None and scores.f1_ci else "")
                               + (" Threshold: the probability the model needs before it puts a text in this "
                                  "category." if threshold is not None else ""))
        column.addWidget(self.footer)

    @staticmethod
    def _header(text: str, tip: str, alignment: Qt.AlignmentFlag) -> QLabel:
        label = QLabel(text)
        label.setStyleSheet(theme.NOTE_STYLE + " border: none; font-size: 11px;")
        label.setAlignment(alignment)
        label.setToolTip(tip)
        return label

    def _cell(self, row: int, col: int, count: int, share: float, total: int) -> QLabel:
        agree = row == col  # (yes, yes) and (no, no)
        colour = cell_colour(count, share, agree)
        text = f"{format_count(count)}\n{format_row_share(share)}" if total else "0"
        label = QLabel(text, objectName="categoryCell")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setMinimumHeight(38)
        ink = WHITE if count and _strong(share) else TEXT_COLOR
        label.setStyleSheet(f"QLabel#categoryCell {{ background: {colour.name()}; color: {ink}; border: none; "
                            f"border-radius: 3px; font-weight: {600 if agree else 400}; }}")
        label.setToolTip(self._cell_tip(row, col, count, share, total))
        label.setProperty("colour", colour.name())
        return label

    def _cell_tip(self, row: int, col: int, count: int, share: float, total: int) -> str:
        name = f"“{self.category}”"
        if row == 0:
            whole = f"Of the {format_count(total)} test texts you coded {name}"
            rest = (f"the model also put {format_count(count)} ({format_row_share(share)}) there." if col == 0 else
                    f"the model missed {format_count(count)} ({format_row_share(share)}).")
        else:
            whole = f"Of the {format_count(total)} test texts you did not code {name}"
            rest = (f"the model added {format_count(count)} ({format_row_share(share)}) to it." if col == 0 else
                    f"the model also left {format_count(count)} ({format_row_share(share)}) out.")
        return f"{whole}, {rest}"

    @staticmethod
    def _footer(scores: CategoryScores | None, threshold: float | None) -> str:
        parts = []
        if scores is not None and scores.counted:
            ci = f" ({scores.f1_ci[0]:.2f}–{scores.f1_ci[1]:.2f})" if scores.f1_ci else ""
            parts.append(f"F1 {scores.f1:.2f}{ci}")
        elif scores is not None:
            parts.append("no F1: neither coded nor predicted")
        if threshold is not None:
            parts.append(f"threshold {threshold:.2f}")
        return " · ".join(parts)

    def cell_texts(self) -> list[list[str]]:
        """What the four cells say, rows coded yes/no, columns model yes/no."""
        return [[label.text() for label in row] for row in self.cells]

    def cell_colours(self) -> list[list[str]]:
        return [[str(label.property("colour")) for label in row] for row in self.cells]


class CategoryConfusionGrid(QWidget):
    """The cards of every category, wrapped into as many columns as fit."""

    EMPTY_TEXT = "No per-category tables to show."

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("categoryConfusions")
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(SPACING)
        self._grid.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._cards: list[CategoryCard] = []
        self._columns = 0
        self._empty = QLabel(self.EMPTY_TEXT, objectName="categoryConfusionsEmpty")
        self._empty.setStyleSheet(theme.NOTE_STYLE)
        self._grid.addWidget(self._empty, 0, 0)
        self.setMinimumWidth(CARD_WIDTH)

    def set_tables(self, categories: Sequence[str], tables: Sequence[Sequence[Sequence[int]]],
                   scores: Sequence[CategoryScores] | None = None,
                   thresholds: Sequence[float] | None = None) -> None:
        """One card per category: ``tables[k]`` is [[tn, fp], [fn, tp]]; ``scores`` and ``thresholds``
        (per category, optional) add the F1 with its interval and the threshold under each table."""
        for card in self._cards:
            self._grid.removeWidget(card)
            card.deleteLater()
        scores = list(scores) if scores is not None and len(scores) == len(categories) else [None] * len(categories)
        limits = list(thresholds) if thresholds is not None and len(thresholds) == len(categories) else (
            [None] * len(categories))
        self._cards = [CategoryCard(str(name), table, score, limit, self)
                       for name, table, score, limit in zip(categories, tables, scores, limits, strict=True)]
        self._empty.setVisible(not self._cards)
        self._columns = 0
        self._place(force=True)

    def categories(self) -> list[str]:
        return [card.category for card in self._cards]

    def cards(self) -> list[CategoryCard]:
        return list(self._cards)

    def card(self, category: str) -> CategoryCard:
        return next(card for card in self._cards if card.category == category)

    def columns(self) -> int:
        return self._columns

    def resizeEvent(self, event) -> None:  # noqa: ANN001, N802
        super().resizeEvent(event)
        self._place()

    def _place(self, force: bool = False) -> None:
        columns = max(1, (self.width() + SPACING) // (CARD_WIDTH + SPACING)) if self.width() > 0 else 1
        columns = min(columns, max(len(self._cards), 1))
        if columns == self._columns and not force:
            return
        self._columns = columns
        for card in self._cards:
            self._grid.removeWidget(card)
        for index, card in enumerate(self._cards):
            self._grid.addWidget(card, index // columns, index % columns)
            card.show()
