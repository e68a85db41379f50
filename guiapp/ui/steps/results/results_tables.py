"""Tables of one model's results: scores per category, every tuned setting, and stage times.

A fine-tuned Transformer's settings form a learning rate × epochs grid, shown as such
(:class:`TransformerGridTable`); its stages are named for fine-tuning (:func:`transformer_stages`).
Where a text can have several categories, the scores per category add each F1's interval, the
texts the model put in the category and its threshold, and :class:`ModelMeasuresTable` compares
the models on macro-F1, micro-F1, exact match and Hamming loss.

Numbers are shown with two decimals and sort as numbers; every column title and cell has a
tooltip that says in plain words what the number means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QSizePolicy, QTableWidgetItem, QWidget

from guiapp.core.errors import UserError
from guiapp.core.experiment.scores.metrics import CategoryScores
from guiapp.core.experiment.results.experiment_result import GridPointResult
from guiapp.core.models.conventional import describe_params
from guiapp.ui.theme import CHOSEN_BACKGROUND, WEAK
from guiapp.ui.common.chart_numbers import (
    format_row_share,
    format_seconds,
    format_share,
)
from guiapp.ui.common.glossary import TERMS
from guiapp.ui.common.read_only_table import ReadOnlyTable

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


class _Table(ReadOnlyTable):
    HEADERS: tuple[str, ...] = ()
    TIPS: tuple[str, ...] = ()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.HEADERS, self.TIPS, 26, parent)
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
    """Precision, recall, F1 and support of each category; click a column title to sort. Where a
    text can have several categories (``set_scores(…, multi_label=True)``) also the F1's interval,
    how many test texts the model put in the category, and the threshold it used."""

    HEADERS = ("Category", "Precision", "Recall", "F1", "Test texts (support)")
    TIPS = (
        "The categories you coded.",
        "Precision: " + TERMS["precision"],
        "Recall: " + TERMS["recall"],
        "F1: " + TERMS["F1"],
        "Support: " + TERMS["support"],
    )
    MULTI_LABEL_HEADERS = ("Category", "Precision", "Recall", "F1", "F1 interval (95 %)", "Coded (test texts)",
                           "Predicted (test texts)", "Threshold")
    MULTI_LABEL_TIPS = (
        "The categories you coded; each is a yes/no decision of its own.",
        "Precision: " + TERMS["precision"],
        "Recall: " + TERMS["recall"],
        "F1: " + TERMS["F1"],
        ("The range this category's F1 would likely take with other test texts (95 % bootstrap interval); "
         "wide with few coded texts."),
        "How many test texts you coded with this category.",
        "How many test texts the model put in this category.",
        "Threshold: " + TERMS["threshold"],
    )
    WEAK_F1 = 0.5

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("categoryTable")
        self.setSortingEnabled(True)
        self._multi_label = False

    def _set_kind(self, multi_label: bool) -> None:
        """The columns of a single-label study, or of one where a text can have several categories."""
        if multi_label == self._multi_label:
            return
        self._multi_label = multi_label
        headers, tips = (self.MULTI_LABEL_HEADERS, self.MULTI_LABEL_TIPS) if multi_label else (self.HEADERS, self.TIPS)
        self.setColumnCount(len(headers))
        self.setHorizontalHeaderLabels(list(headers))
        for column, tip in enumerate(tips):
            self.horizontalHeaderItem(column).setToolTip(tip)

    def _not_counted(self, row: int, score: CategoryScores) -> None:
        """A category neither coded nor predicted in the test texts: no scores, and not in the macro-F1."""
        words = (f"No test text was coded “{score.category}” and the model put none there, so it has no score "
                 "and does not count in the macro-F1.")
        if self._multi_label:
            cells = {column: SortItem("—", -1.0, words) for column in (1, 2, 3, 4)} | {
                5: SortItem("0", 0, words), 6: SortItem("0", 0, words)}
        else:
            cells = {column: SortItem("—", -1.0, words) for column in (1, 2, 3)} | {4: SortItem("0", 0, words)}
        for column, cell in cells.items():
            cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, column, cell)

    def set_scores(self, scores: Sequence[CategoryScores], *, multi_label: bool = False,
                   thresholds: Sequence[float] | None = None) -> None:
        """Show ``scores``; ``multi_label``: the columns of a study where a text can have several
        categories, with the model's ``thresholds`` (one per category, in the order of ``scores``)."""
        self._set_kind(multi_label)
        self.setSortingEnabled(False)
        self.setRowCount(len(scores))
        limits = list(thresholds) if thresholds is not None and len(thresholds) == len(scores) else [None] * len(scores)
        for row, score in enumerate(scores):
            name = score.category
            self.setItem(row, 0, SortItem(name, name.lower(), name))
            if multi_label:
                self._threshold(row, name, limits[row])
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
            if multi_label:
                self._several(row, score, support)
            else:
                self.setItem(row, 4, support)
        self.setSortingEnabled(True)
        self.sortItems(3, Qt.SortOrder.DescendingOrder)
        self.fit_columns()

    def _several(self, row: int, score: CategoryScores, support: SortItem) -> None:
        """The F1 interval, coded and predicted texts of a category where a text can have several."""
        name = score.category
        if score.f1_ci is not None:
            low, high = score.f1_ci
            interval = SortItem(f"{low:.2f}–{high:.2f}", float(low),
                                f"With other test texts, the F1 of “{name}” would likely lie between {low:.2f} and "
                                f"{high:.2f} (95 % bootstrap interval over the test texts).")
        else:
            interval = SortItem("—", -1.0, "No interval was computed for this category.")
        interval.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.setItem(row, 4, interval)
        self.setItem(row, 5, support)
        predicted = max(int(score.predicted), 0)
        cell = SortItem(f"{predicted:,}", predicted, f"The model put {predicted:,} of the test texts in “{name}”.")
        cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.setItem(row, 6, cell)

    def _threshold(self, row: int, name: str, threshold: float | None) -> None:
        if threshold is None:
            cell = SortItem("—", -1.0, "The threshold was not recorded.")
        else:
            cell = SortItem(f"{threshold:.2f}", float(threshold),
                            f"The model puts a text in “{name}” when its probability for “{name}” is at least "
                            f"{threshold:.2f}.")
        cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.setItem(row, 7, cell)


class ModelMeasuresTable(_Table):
    """Every finished model on the measures of a study where a text can have several categories:
    macro-F1 with its interval, micro-F1, exact match (all categories of a text right) and Hamming
    loss; best first, as tall as its rows."""

    HEADERS = ("Model", "Macro-F1", "95 % interval", "Micro-F1", "All categories right", "Hamming loss")
    TIPS = (
        "The compared models, the recommended one first.",
        "Macro-F1: " + TERMS["macro-F1"],
        "Confidence interval: " + TERMS["confidence interval"],
        "Micro-F1: " + TERMS["micro-F1"],
        "Exact match (subset accuracy): " + TERMS["subset accuracy"],
        "Hamming loss: " + TERMS["Hamming loss"],
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelMeasuresTable")
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_models(self, models: Sequence[Any], n_test: int) -> None:  # noqa: ANN401 — ModelResult
        """One row per finished model, in the order given (best first)."""
        self.setRowCount(len(models))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        texts = f"{n_test:,} test texts" if n_test else "the test texts"
        for row, model in enumerate(models):
            test = model.test
            ci = test.macro_f1_ci
            cells = [
                SortItem(model.name, model.name.lower(), model.name),
                SortItem(f"{test.macro_f1:.2f}", test.macro_f1, f"Macro-F1 of {model.name} on {texts}."),
                SortItem(f"{ci[0]:.2f}–{ci[1]:.2f}" if ci else "—", ci[0] if ci else -1.0,
                         f"With other test texts its macro-F1 would likely lie in this range ({test.ci_level:.0%})."
                         if ci else "No interval was computed."),
                SortItem(_score(test.micro_f1), test.micro_f1 if test.micro_f1 is not None else -1.0,
                         f"Micro-F1 of {model.name}: {TERMS['micro-F1']}"),
                SortItem(format_row_share(test.accuracy), test.accuracy,
                         f"{model.name} got every category of {format_row_share(test.accuracy)} of {texts} right: "
                         "no category missing, none added."),
                SortItem(_score(test.hamming_loss, 3), test.hamming_loss if test.hamming_loss is not None else -1.0,
                         f"{model.name} got {format_share(test.hamming_loss or 0.0)} of all yes/no decisions (each "
                         "text × each category) wrong." if test.hamming_loss is not None else "Not recorded."),
            ]
            for column, cell in enumerate(cells):
                if column:
                    cell.setTextAlignment(right)
                self.setItem(row, column, cell)
        self.fit_columns()
        self.setFixedHeight(self.horizontalHeader().height() + 26 * max(len(models), 1) + 4)


def _score(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


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
