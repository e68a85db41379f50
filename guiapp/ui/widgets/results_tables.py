"""Tables of one model's results: scores per category, every tuned setting, and stage times.

A fine-tuned Transformer's settings form a learning rate × epochs grid, shown as such
(:class:`TransformerGridTable`); its stages are named for fine-tuning (:func:`transformer_stages`).

Numbers are shown with two decimals and sort as numbers; every column title and cell has a
tooltip that says in plain words what the number means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.core.experiment.metrics import CategoryScores
from guiapp.core.experiment.results import GridPointResult
from guiapp.core.models.conventional import describe_params
from guiapp.ui.theme import CHOSEN_BACKGROUND, WEAK
from guiapp.ui.widgets.chart_numbers import format_seconds
from guiapp.ui.widgets.glossary import TERMS

SORT_ROLE = Qt.ItemDataRole.UserRole + 1


def describe_setting(classifier: str, params: dict[str, Any]) -> str:
    """A setting in the GUI's words; falls back to "name = value" for unknown classifiers."""
    if not params:
        return "default setting"
    try:
        return describe_params(classifier, params)
    except (UserError, TypeError, ValueError):  # a classifier this version does not know (e.g. a newer results file)
        return ", ".join(f"{name} = {value}" for name, value in params.items())


class SortItem(QTableWidgetItem):
    """A cell that shows formatted text but sorts by its underlying value."""

    def __init__(self, text: str, value: Any, tip: str = "") -> None:
        super().__init__(text)
        self.setData(SORT_ROLE, value)
        self.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        if tip:
            self.setToolTip(tip)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.data(SORT_ROLE), other.data(SORT_ROLE)
        if isinstance(mine, int | float) and isinstance(theirs, int | float):
            return mine < theirs
        return str(mine).lower() < str(theirs).lower()


class _Table(QTableWidget):
    HEADERS: tuple[str, ...] = ()
    TIPS: tuple[str, ...] = ()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(self.HEADERS), parent)
        self.setHorizontalHeaderLabels(list(self.HEADERS))
        for column, tip in enumerate(self.TIPS):
            self.horizontalHeaderItem(column).setToolTip(tip)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(26)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)

    MIN_FIRST_COLUMN = 200
    MIN_COLUMN = 90
    NARROWEST_FIRST_COLUMN = 120  # in a narrow window the names give way (shortened, whole in their tooltip)

    def fit_columns(self) -> None:
        """Columns as wide as their contents (the first at least MIN_FIRST_COLUMN pixels), so
        the numbers stay close to the names they belong to — unless that is wider than the table:
        then the first column gives way, so that the table does not scroll sideways."""
        self.resizeColumnsToContents()
        self._first_wanted = max(self.columnWidth(0) + 12, self.MIN_FIRST_COLUMN)
        self.setColumnWidth(0, self._first_wanted)
        for column in range(1, self.columnCount()):
            self.setColumnWidth(column, max(self.columnWidth(column) + 12, self.MIN_COLUMN))
        self._fit_width()

    def _fit_width(self) -> None:
        wanted = getattr(self, "_first_wanted", None)
        header = self.horizontalHeader()
        if wanted is None or header.sectionResizeMode(0) != QHeaderView.ResizeMode.Interactive:
            return
        others = sum(self.columnWidth(column) for column in range(1, self.columnCount()))
        room = self.viewport().width() - others
        width = max(min(wanted, room), self.NARROWEST_FIRST_COLUMN)
        if width != self.columnWidth(0):
            self.setColumnWidth(0, width)

    def resizeEvent(self, event) -> None:  # noqa: ANN001 — also called when the viewport changes size
        super().resizeEvent(event)
        self._fit_width()

    def rows(self) -> list[list[str]]:
        """The texts of every cell, in the order shown."""
        return [[self.item(r, c).text() if self.item(r, c) else "" for c in range(self.columnCount())]
                for r in range(self.rowCount())]

    @staticmethod
    def _number(value: float, tip: str = "") -> SortItem:
        item = SortItem(f"{value:.2f}", float(value), tip)
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return item


class CategoryScoresTable(_Table):
    """Precision, recall, F1 and support of each category; click a column title to sort."""

    HEADERS = ("Category", "Precision", "Recall", "F1", "Test texts (support)")
    TIPS = (
        "The categories you coded.",
        "Precision: " + TERMS["precision"],
        "Recall: " + TERMS["recall"],
        "F1: " + TERMS["F1"],
        "Support: " + TERMS["support"],
    )
    WEAK_F1 = 0.5

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("categoryTable")
        self.setSortingEnabled(True)

    def _not_counted(self, row: int, score: CategoryScores) -> None:
        """A category neither coded nor predicted in the test texts: no scores, and not in the macro-F1."""
        words = (f"No test text was coded “{score.category}” and the model put none there, so it has no score "
                 "and does not count in the macro-F1.")
        cells = {column: SortItem("—", -1.0, words) for column in (1, 2, 3)} | {4: SortItem("0", 0, words)}
        for column, cell in cells.items():
            cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, column, cell)

    def set_scores(self, scores: Sequence[CategoryScores]) -> None:
        self.setSortingEnabled(False)
        self.setRowCount(len(scores))
        for row, score in enumerate(scores):
            name = score.category
            self.setItem(row, 0, SortItem(name, name.lower(), name))
            if not score.counted:
                self._not_counted(row, score)
                continue
            self.setItem(row, 1, self._number(
                score.precision,
                f"Of the test texts the model put in “{name}”, {score.precision:.0%} were coded “{name}” by you."))
            self.setItem(row, 2, self._number(
                score.recall,
                f"Of the {score.support:,} test texts you coded “{name}”, the model put {score.recall:.0%} there too."))
            f1 = self._number(score.f1, f"F1 for “{name}”: {TERMS['F1']}")
            if score.support == 0:
                f1.setToolTip(f"No test text was coded “{name}”, but the model put {score.predicted:,} there: "
                              "this category counts as 0 in the macro-F1.")
            if score.f1 < self.WEAK_F1:
                f1.setForeground(QBrush(QColor(WEAK)))
                f1.setToolTip(f1.toolTip() + "\nBelow 0.5: the model often gets this category wrong.")
            self.setItem(row, 3, f1)
            support = SortItem(f"{score.support:,}", int(score.support),
                               f"You coded {score.support:,} of the test texts “{name}”.")
            support.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, 4, support)
        self.setSortingEnabled(True)
        self.sortItems(3, Qt.SortOrder.DescendingOrder)
        self.fit_columns()


class GridTable(_Table):
    """Every setting tried in tuning with its cross-validated macro-F1, best first; the chosen
    setting is highlighted."""

    HEADERS = ("Setting", "Mean macro-F1", "± std", "Per fold", "Fitting time")
    TIPS = (
        "Setting: " + TERMS["setting"],
        "The macro-F1 of this setting, averaged over the folds of cross-validation on the training texts.",
        "Standard deviation: " + TERMS["standard deviation"],
        "The macro-F1 on each fold, in order.",
        "How long fitting this setting took, summed over the folds.",
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gridTable")
        self.setSortingEnabled(True)
        self._chosen_text = ""

    def set_grid(self, classifier: str, grid: Sequence[GridPointResult], chosen: dict[str, Any]) -> None:
        self.setSortingEnabled(False)
        self.setRowCount(len(grid))
        self._chosen_text = ""
        bold = QFont()
        bold.setBold(True)
        for row, point in enumerate(grid):
            setting = describe_setting(classifier, point.params)
            is_chosen = point.params == chosen
            shown = f"✔ {setting}  (chosen)" if is_chosen else setting
            cells = [
                SortItem(shown, setting, setting),
                self._number(point.mean),
                SortItem(f"± {point.std:.2f}", float(point.std)),
                SortItem("  ".join(f"{s:.2f}" for s in point.fold_scores), float(point.mean)),
                SortItem(format_seconds(point.fit_seconds), float(point.fit_seconds)),
            ]
            for column, cell in enumerate(cells):
                if column >= 1:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if is_chosen:
                    cell.setBackground(QBrush(QColor(CHOSEN_BACKGROUND)))
                    cell.setFont(bold)
                    cell.setToolTip("The setting TextLab chose: it had the best mean macro-F1 in cross-validation.")
                self.setItem(row, column, cell)
            if is_chosen:
                self._chosen_text = shown
        self.setSortingEnabled(True)
        self.sortItems(1, Qt.SortOrder.DescendingOrder)
        self.fit_columns()

    def fit_columns(self) -> None:
        """The settings column takes what the numbers leave (long settings are shortened)."""
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def chosen_row(self) -> int | None:
        """The row (as shown) of the chosen setting."""
        for row in range(self.rowCount()):
            if self.item(row, 0).text() == self._chosen_text and self._chosen_text:
                return row
        return None


def format_rate(value: Any) -> str:
    """2e-05 -> "2e-5"; 0.0001 -> "0.0001"."""
    try:
        return f"{float(value):g}".replace("e-0", "e-").replace("e+0", "e+")
    except (TypeError, ValueError):
        return str(value)


class TransformerGridTable(_Table):
    """A Transformer's tuning as a grid: learning rates (rows) × epochs (columns), each cell the
    mean macro-F1 of that setting on the held-out texts; the chosen cell is highlighted."""

    HEADERS = ("Learning rate",)
    TIPS = ("Learning rate: " + TERMS["learning rate"],)
    MIN_FIRST_COLUMN = 120

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transformerGridTable")
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustToContents)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self._chosen: tuple[int, int] | None = None

    def set_grid(self, grid: Sequence[GridPointResult], chosen: dict[str, Any], held_out: str) -> None:
        """``held_out`` names where the scores come from, e.g. "the validation texts"."""
        rates = sorted({float(p.params.get("learning_rate", 0)) for p in grid})
        epochs = sorted({int(p.params.get("epochs", 0)) for p in grid})
        self.clear()
        self.setColumnCount(len(epochs) + 1)
        self.setRowCount(len(rates))
        self.setHorizontalHeaderLabels(["Learning rate"] + [f"{e} epoch{'s' if e != 1 else ''}" for e in epochs])
        header_tip = "Epochs: " + TERMS["epoch"]
        self.horizontalHeaderItem(0).setToolTip(self.TIPS[0])
        for column in range(1, len(epochs) + 1):
            self.horizontalHeaderItem(column).setToolTip(header_tip)
        for row, rate in enumerate(rates):
            self.setItem(row, 0, SortItem(format_rate(rate), rate, f"Learning rate {format_rate(rate)} (= {rate:.6f})"))
            for column in range(1, len(epochs) + 1):
                empty = SortItem("—", -1.0, "This combination was not tried.")
                empty.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.setItem(row, column, empty)
        bold = QFont()
        bold.setBold(True)
        self._chosen = None
        for point in grid:
            row = rates.index(float(point.params.get("learning_rate", 0)))
            column = epochs.index(int(point.params.get("epochs", 0))) + 1
            scores = "  ".join(f"{s:.2f}" for s in point.fold_scores)
            text = f"{point.mean:.2f}" + (f"  ± {point.std:.2f}" if len(point.fold_scores) > 1 else "")
            tip = (f"Macro-F1 on {held_out}: {point.mean:.3f}"
                   + (f" (per fold: {scores})" if len(point.fold_scores) > 1 else "")
                   + f". Fine-tuning took {format_seconds(point.fit_seconds)}.")
            cell = SortItem(text, float(point.mean), tip)
            cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            if point.params == chosen:
                cell.setText(f"✔ {text}  (chosen)")
                cell.setBackground(QBrush(QColor(CHOSEN_BACKGROUND)))
                cell.setFont(bold)
                cell.setToolTip(tip + "\nThe setting TextLab chose: the best macro-F1 on " + held_out + ".")
                self._chosen = (row, column)
            self.setItem(row, column, cell)
        self.fit_columns()
        self.setFixedHeight(self.horizontalHeader().height() + 26 * max(len(rates), 1) + 6)

    def chosen_cell(self) -> tuple[int, int] | None:
        """(row, column) of the chosen setting."""
        return self._chosen


STAGES = (
    ("features", "Turning the texts into numbers"),
    ("tuning", "Tuning: trying every setting with cross-validation"),
    ("final_fit", "Training the chosen setting on all training texts"),
    ("predict", "Predicting the test texts"),
    ("total", "Total"),
)


class TimesTable(_Table):
    """How long each stage of one model took."""

    HEADERS = ("Stage", "Time")
    TIPS = ("What the model was doing.", "How long it took on this computer.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timesTable")

    def set_seconds(self, seconds: dict[str, float], stages_named: Sequence[tuple[str, str]] = STAGES) -> None:
        """Show ``seconds`` per stage; ``stages_named`` gives the stages' order and names."""
        stages = [(key, label) for key, label in stages_named if key in seconds]
        stages += [(key, key.replace("_", " ").capitalize()) for key in seconds
                   if key not in dict(STAGES) and key not in dict(stages_named)]
        self.setRowCount(len(stages))
        bold = QFont()
        bold.setBold(True)
        for row, (key, label) in enumerate(stages):
            name = SortItem(label, row)
            value = SortItem(format_seconds(seconds[key]), float(seconds[key]), f"{seconds[key]:.2f} seconds")
            value.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if key == "total":
                name.setFont(bold)
                value.setFont(bold)
            self.setItem(row, 0, name)
            self.setItem(row, 1, value)
        self.fit_columns()
        self.setFixedHeight(self.horizontalHeader().height() + 26 * max(len(stages), 1) + 4)


def transformer_stages(tuning: str) -> tuple[tuple[str, str], ...]:
    """The stages of a fine-tuned Transformer (no separate features step), named for how its
    setting was chosen (e.g. "one validation split (20% of the training texts)")."""
    how = f"on {tuning}" if tuning.startswith("one ") else f"with {tuning}" if tuning else ""
    return (
        ("tuning", f"Tuning: fine-tuning every setting {how}".strip()),
        ("final_fit", "Fine-tuning the chosen setting on all training texts"),
        ("predict", "Predicting the test texts"),
        ("total", "Total"),
    )
