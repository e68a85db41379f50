"""Does a model make more mistakes on some kinds of texts? The Results step's view of the groups.

The user chooses a column of their table (party, year, outlet: :func:`candidate_columns`) and a
model; the view shows one row per group of test texts (how many, macro-F1, the share coded
differently from the user, each with its interval, and the verdict in words), marks the groups
where the model clearly makes more mistakes, and says so in plain sentences above the table. The
numbers come from :func:`guiapp.core.experiment.scores.subgroup_scores.subgroup_scores`, computed in the
background for large studies. Where a group's test texts all carry one category in the coding
(speaker → party), macro-F1 says nothing about it: the score column then shows the share coded
right (accuracy) for that group, its header says so, and a sentence above the table explains why.
Double-clicking a group emits :attr:`SubgroupView.groupChosen`
(column, value: the cell value, ``(low, high)`` for a range of numbers, None for empty cells).
No dialogs; problems are said in the view.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from guiapp.ui import theme
from guiapp.ui.common.glossary import TERMS, GlossaryLabel
from guiapp.ui.common.section_title import section_title
from guiapp.ui.steps.results.table_height import ROW_HEIGHT, fit_rows
from guiapp.workers import Worker, WorkerSlot

WORDS = ["macro-F1", "confidence interval", "interval", "test text"]
BACKGROUND_WORK = 5_000_000  # resampled texts (samples × test texts × models) above which a worker computes
VERDICT_WORDS = {
    "much worse": "More mistakes than the other texts",
    "not clearly worse": "Not clearly worse",
    "too few texts to judge": "Too few texts to judge",
}
HEADERS = ["Group", "Test texts", "Macro-F1", "Share wrong", "Other texts wrong", "In words"]
TIPS = [
    "The value of the chosen column. Double-click a group to read its texts in the Documents step.",
    "How many of the test texts are in this group.",
    f"Macro-F1: {TERMS['macro-F1']} Here only on this group's texts; the range is its 95% interval.",
    "The share of this group's texts the model codes differently from you; the range is its 95% interval.",
    "The share of all other test texts the model codes differently from you.",
    "Whether the model clearly makes more mistakes on this group than on the other texts.",
]
SCORE_HEADERS = {"macro-F1": "Macro-F1", "share right": "Share right",
                 "macro-F1 or share right": "Macro-F1 or share right"}
SHARE_RIGHT_TIP = ("Share right: the share of this group's texts the model codes as you did (accuracy); the range is "
                   "its 95% interval. Shown instead of macro-F1 because all of the group's texts carry one category "
                   "in your coding, and macro-F1 over one category says little.")
SCORE_TIPS = {
    "macro-F1": TIPS[2],
    "share right": SHARE_RIGHT_TIP,
    "macro-F1 or share right": ("Macro-F1 where a group holds texts of several categories in your coding; for a group "
                                "whose texts all carry one category, the share the model codes as you did (marked "
                                "“right”), since macro-F1 over one category says little."),
}
NO_COLUMNS = ("Your table has no column to group the texts by (such as party, year or outlet: a column with "
              "between 2 and 50 different values, or numbers). Add one to the table to see whether a model does "
              "worse on some kinds of texts.")


def subgroups_job(result, table, column, test_table=None, on_event=None):
    """A Worker's job: the scores per group of ``column`` (it reports no progress; a stale answer is ignored)."""
    from guiapp.core.experiment.scores.subgroup_scores import subgroup_scores

    return subgroup_scores(result, table, column, test_table=test_table)


def _number(value: float, interval: tuple[float, float], percent: bool) -> str:
    if not math.isfinite(value):
        return "–"
    shown = (lambda x: f"{x:.0%}") if percent else (lambda x: f"{x:.2f}")
    low, high = interval
    if not (math.isfinite(low) and math.isfinite(high)):
        return shown(value)
    return f"{shown(value)}  ({shown(low)} to {shown(high)})"


def _score_cell(group, mixed: bool) -> tuple[str, float]:
    """The score column's text and sort value: macro-F1, or the share right where macro-F1 says nothing
    (marked "right" when other groups show macro-F1)."""
    if group.macro_f1_meaningful:
        return _number(group.macro_f1, group.macro_f1_interval, False), group.macro_f1
    text = _number(group.share_right, group.share_right_interval, True)
    return (text.replace("  (", " right  (", 1) if "  (" in text else text + " right") if mixed else text, group.share_right


class _Item(QTableWidgetItem):
    """A read-only cell that sorts by its value."""

    def __init__(self, text: str, value: Any, tip: str) -> None:
        super().__init__(text)
        self.setData(Qt.ItemDataRole.UserRole, value)
        self.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        self.setToolTip(tip)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.data(Qt.ItemDataRole.UserRole), other.data(Qt.ItemDataRole.UserRole)
        if isinstance(mine, int | float) and isinstance(theirs, int | float):
            return mine < theirs
        return str(mine).lower() < str(theirs).lower()


class SubgroupView(QWidget):
    """Scores per group of test texts. :meth:`set_result` shows a study (the table it was run on,
    its column mapping, and the separate test file's table if it had one); :meth:`choose_column`
    picks the column to group by; :meth:`clear` empties the view."""

    groupChosen = Signal(str, object)  # column, value of the double-clicked group

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("subgroupView")
        self.scores = None  # SubgroupScores of the chosen column, once computed
        self.result = None
        self._table_frame = None
        self._test_frame = None
        self._slot = WorkerSlot(self)
        self._request = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(section_title("Does a model make more mistakes on some kinds of texts?"))

        choices = QHBoxLayout()
        choices.addWidget(QLabel("Group the test texts by"))
        self.column_combo = QComboBox(objectName="subgroupColumn", minimumContentsLength=14,
                                      toolTip="A column of your table, such as party, year or outlet.")
        choices.addWidget(self.column_combo)
        choices.addSpacing(16)
        choices.addWidget(QLabel("Model"))
        self.model_combo = QComboBox(objectName="subgroupModel", minimumContentsLength=24, toolTip=(
            "The table shows this model's scores; the sentences above it cover every model."))
        choices.addWidget(self.model_combo)
        choices.addStretch(1)
        layout.addLayout(choices)

        self.headline = GlossaryLabel("", terms=WORDS)
        self.headline.setObjectName("subgroupHeadline")
        self.headline.setStyleSheet(theme.headline_style("subgroupHeadline"))
        layout.addWidget(self.headline)
        self.caption = GlossaryLabel("", terms=WORDS)
        self.caption.setObjectName("subgroupCaption")
        self.caption.setStyleSheet(theme.MUTED_STYLE)
        layout.addWidget(self.caption)

        self.table = QTableWidget(0, len(HEADERS), objectName="subgroupTable")
        self.table.setHorizontalHeaderLabels(HEADERS)
        for column, tip in enumerate(TIPS):
            self.table.horizontalHeaderItem(column).setToolTip(tip)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        header = self.table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setStretchLastSection(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # the engine's order until the user sorts
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.cellDoubleClicked.connect(self._double_clicked)
        layout.addWidget(self.table)
        self.hint = QLabel("Double-click a group to read its texts in the Documents step.", objectName="subgroupHint")
        self.hint.setStyleSheet(theme.MUTED_STYLE)
        layout.addWidget(self.hint)
        layout.addStretch(1)

        self.column_combo.currentIndexChanged.connect(self._column_changed)
        self.model_combo.currentIndexChanged.connect(lambda _: self._show_model())
        self.clear()

    # -- public ------------------------------------------------------------------------------------
    def set_result(self, result, table, mapping, test_table=None) -> None:
        """Show ``result`` (an ExperimentResult) of the study run on ``table`` (a DataFrame) with
        ``mapping`` (a ColumnMapping or its dict); ``test_table`` when the study had a test file."""
        from guiapp.core.experiment.scores.subgroup_scores import candidate_columns
        from guiapp.core.experiment.results.tested_texts import table_of_test_texts

        if result is None or table is None:
            self.clear()
            return
        previous = self.column_combo.currentData()
        self.result, self._table_frame, self._test_frame = result, table, test_table
        columns = candidate_columns(table_of_test_texts(result, table, test_table), mapping)
        metadata = list(mapping.metadata_columns if hasattr(mapping, "metadata_columns")
                        else (mapping or {}).get("metadata_columns", []))
        preferred = [c for c in columns if c in metadata] + [c for c in columns if c not in metadata]
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        for rank, model in enumerate(result.ranked(), 1):
            self.model_combo.addItem(f"{rank}. {model.name}", model.name)
        self.model_combo.blockSignals(False)
        self.column_combo.blockSignals(True)
        self.column_combo.clear()
        for column in columns:
            self.column_combo.addItem(str(column), column)
        self.column_combo.blockSignals(False)
        for widget in (self.column_combo, self.model_combo):
            widget.setEnabled(bool(columns) and bool(result.ranked()))
        if not result.ranked():
            self._say("No model finished, so there is nothing to compare.")
        elif not columns:
            self._say(NO_COLUMNS)
        else:
            self.choose_column(previous if previous in columns else preferred[0])

    def choose_column(self, name: str) -> None:
        """Group the test texts by the column ``name`` (one of the offered columns)."""
        index = self.column_combo.findData(name)
        if index < 0:
            raise ValueError(f"“{name}” is not a column the texts can be grouped by here.")
        if index == self.column_combo.currentIndex():
            self._compute(name)
        else:
            self.column_combo.setCurrentIndex(index)  # computes through _column_changed

    def clear(self) -> None:
        self._slot.cancel()
        self._request += 1
        self.scores = self.result = self._table_frame = self._test_frame = None
        for combo in (self.column_combo, self.model_combo):
            combo.blockSignals(True)
            combo.clear()
            combo.setEnabled(False)
            combo.blockSignals(False)
        self._say("No study results yet: once models have finished, this shows whether they do worse on some "
                  "kinds of texts.")

    def is_busy(self) -> bool:
        return self._slot.is_busy()

    def headline_text(self) -> str:
        return self.headline.plain_text()

    def rows(self) -> list[list[str]]:
        """The texts of every cell, in the order shown."""
        return [[self.table.item(r, c).text() if self.table.item(r, c) else "" for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]

    def flagged_rows(self) -> list[int]:
        """The rows shown as groups with clearly more mistakes."""
        return [r for r in range(self.table.rowCount()) if self.table.item(r, 0).data(Qt.ItemDataRole.UserRole + 1)]

    # -- parts -------------------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        self.scores = None
        self.headline.set_plain_text(text)
        self.caption.set_plain_text("")
        self.caption.setVisible(False)
        self.table.setRowCount(0)
        self.table.setVisible(False)
        self.hint.setVisible(False)

    def _column_changed(self, index: int) -> None:
        if index >= 0:
            self._compute(self.column_combo.itemData(index))

    def _compute(self, column: str) -> None:
        result = self.result
        self._slot.cancel()
        self._request += 1
        request = self._request
        samples = result.protocol.samples(1000)
        work = samples * len(result.test_true) * max(len(result.ranked()), 1)
        if work <= BACKGROUND_WORK:
            from guiapp.core.errors import UserError

            try:
                found = subgroups_job(result, self._table_frame, column, self._test_frame)
            except UserError as error:
                self._failed(error, request)
            else:
                self._show(found, request)
            return
        self._say(f"Working out the scores per value of “{column}” for {len(result.test_true):,} test texts…")
        worker = Worker(subgroups_job, result, self._table_frame, column, self._test_frame, name="scores per group")
        worker.signals.finished.connect(lambda found, request=request: self._show(found, request))
        worker.signals.failed.connect(lambda error, request=request: self._failed(error, request))
        self._slot.start(worker)

    def _failed(self, error: Exception, request: int) -> None:
        if request != self._request:
            return
        message = getattr(error, "message", "") or str(error)
        hint = getattr(error, "hint", "")
        self._say(f"{message} {hint}".strip())

    def _show(self, scores, request: int) -> None:
        if request != self._request:
            return  # the user chose another column meanwhile
        self.scores = scores
        self.headline.set_plain_text("\n".join(scores.headline))
        self.caption.set_plain_text(scores.describe() + " Such groups are shown in red. Only the test texts count: "
                                    "no model saw them while it learnt.")
        score_header = self.table.horizontalHeaderItem(2)
        score_header.setText(SCORE_HEADERS[scores.score_name])
        score_header.setToolTip(SCORE_TIPS[scores.score_name])
        for widget in (self.caption, self.table, self.hint):
            widget.setVisible(True)
        self.table.setSortingEnabled(False)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self._show_model()

    def _show_model(self) -> None:
        if self.scores is None or self.model_combo.currentIndex() < 0:
            return
        name = self.model_combo.currentData()
        model = next((m for m in self.scores.models if m.model == name), None)
        if model is None:
            return
        table = self.table
        table.setSortingEnabled(False)
        table.horizontalHeaderItem(0).setText(self.scores.column)
        table.setRowCount(len(model.groups))
        bold = QFont(table.font())
        bold.setWeight(QFont.Weight.DemiBold)
        for row, group in enumerate(model.groups):
            words = VERDICT_WORDS.get(group.verdict, group.verdict)
            if group.rest_error_rate is None:
                words = "Nothing to compare"
            cells = [
                (group.label, group.label),
                (f"{group.n_texts:,}", group.n_texts),
                _score_cell(group, mixed=self.scores.score_name != "share right"),
                (_number(group.error_rate, group.error_interval, True), group.error_rate),
                (_number(group.rest_error_rate, (math.nan, math.nan), True)
                 if group.rest_error_rate is not None else "–", group.rest_error_rate or 0.0),
                (words, words),
            ]
            for column, (text, value) in enumerate(cells):
                item = _Item(text, value, group.sentence)
                if column == 2 and not group.macro_f1_meaningful:
                    item.setToolTip(SHARE_RIGHT_TIP)
                if 1 <= column <= 4:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if group.flagged:
                    item.setBackground(QBrush(QColor(theme.FLAG_BACKGROUND)))
                    item.setForeground(QBrush(QColor(theme.FLAG_TEXT)))
                    item.setFont(bold)
                elif group.verdict == "too few texts to judge":
                    item.setForeground(QBrush(QColor(theme.MUTED)))
                table.setItem(row, column, item)
            table.item(row, 0).setData(Qt.ItemDataRole.UserRole + 1, group.flagged)
            table.item(row, 0).setData(Qt.ItemDataRole.UserRole + 2, row)  # the group's place in model.groups
        table.setSortingEnabled(True)
        self._fit()

    def _fit(self) -> None:
        table = self.table
        table.resizeColumnsToContents()
        for column in range(table.columnCount() - 1):
            table.setColumnWidth(column, min(table.columnWidth(column) + 16, 260))
        table.setFixedHeight(fit_rows(table, air=6))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width() and self.table.rowCount():
            QTimer.singleShot(0, self._fit)

    def _double_clicked(self, row: int, _column: int) -> None:
        if self.scores is None:
            return
        model = next((m for m in self.scores.models if m.model == self.model_combo.currentData()), None)
        if model is not None:
            group = model.groups[self.table.item(row, 0).data(Qt.ItemDataRole.UserRole + 2)]
            self.groupChosen.emit(self.scores.column, group.value)
