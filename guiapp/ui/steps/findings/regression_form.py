"""The regression form of the Findings step: which category, explained by which columns, logistic or
linear, and the table of coefficients with their intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from guiapp.ui import theme
from guiapp.ui.common.column_check_list import ColumnCheckList
from guiapp.ui.common.layouts import STRETCH, hbox, vbox

KINDS = (("logistic", "Logistic (the chance of the category)"), ("linear", "Linear (the share, in points)"))


class RegressionForm(QWidget):
    """Asks for a regression (``fitWanted(outcome, columns, kind)``) and shows the one fitted."""

    fitWanted = Signal(str, list, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome_combo = QComboBox(objectName="regressionOutcome")
        self.outcome_combo.setToolTip("The category whose chance (or share) the columns explain.")
        self.kind_combo = QComboBox(objectName="regressionKind")
        for key, words in KINDS:
            self.kind_combo.addItem(words, key)
        self.columns_list = ColumnCheckList("regressionColumns", max_height=110)
        self.columns_list.setToolTip("Tick the columns that may explain the category (e.g. party and year).")
        self.fit_button = QPushButton("Fit", objectName="fitRegression")
        self.fit_button.setToolTip("Fit the regression; its standard errors carry the model's mistakes.")
        self.fit_button.clicked.connect(self._fit)
        self.coefficients = QTableWidget(0, 5, objectName="coefficientsTable")
        self.coefficients.setHorizontalHeaderLabels(["Term", "Estimate", "Standard error", "95 % interval", "p"])
        self.coefficients.horizontalHeader().setStretchLastSection(True)
        self.coefficients.verticalHeader().hide()
        self.coefficients.setToolTip("Logistic: each estimate is a change in the log-odds of the category; the odds "
                                     "ratio says by how many times the odds change (above 1: more likely). Linear: "
                                     "the change in the category's share per unit of the column.")
        self.note = QLabel("", objectName="regressionNote", wordWrap=True)
        self.note.setStyleSheet(theme.SOFT_STYLE)
        vbox(self, hbox(None, QLabel("Category:"), self.outcome_combo, QLabel("Model:"), self.kind_combo, STRETCH),
             QLabel("Explained by the columns:"), self.columns_list, hbox(None, self.fit_button, STRETCH),
             self.note, (self.coefficients, 1))

    def set_choices(self, categories: Sequence[str], columns: Sequence[str], *, why_none: str = "") -> None:
        """The categories to explain and the columns to explain them with (``why_none``: said when
        there is no column)."""
        self.outcome_combo.clear()
        self.outcome_combo.addItems([str(c) for c in categories])
        self.columns_list.set_columns(columns, [])
        self.fit_button.setEnabled(bool(columns))
        self.note.setText("" if columns else why_none)
        self.coefficients.setRowCount(0)

    def checked_columns(self) -> list:
        return self.columns_list.checked()

    def check_columns(self, columns: Sequence) -> None:
        self.columns_list.set_checked(columns)

    def _fit(self) -> None:
        columns = self.checked_columns()
        if not columns:
            self.note.setText("Tick at least one column that may explain the category.")
            return
        self.note.setText("Fitting…")
        self.fitWanted.emit(self.outcome_combo.currentText(), columns, self.kind_combo.currentData())

    def show_regression(self, regression) -> None:  # noqa: ANN001 — a Regression
        self.note.setText(f"{regression.formula}: {regression.n_texts:,} texts, {regression.n_coded:,} of them coded. "
                          f"Estimated by {regression.method}. {regression.assumption}"
                          + ("\n" + "\n".join(regression.warnings) if regression.warnings else ""))
        rows = list(regression.coefficients)
        odds = regression.kind == "logistic"  # odds ratios read more easily than log-odds
        headers = ["Term", "Estimate", "Standard error", "95 % interval", "p"]
        self.coefficients.setColumnCount(len(headers) + odds)
        self.coefficients.setHorizontalHeaderLabels([*headers, "Odds ratio (95 % interval)"] if odds else headers)
        self.coefficients.setRowCount(len(rows))
        for row, c in enumerate(rows):
            cells = [c.term, f"{c.estimate:.3f}", f"{c.standard_error:.3f}", f"{c.low:.3f} to {c.high:.3f}",
                     f"{c.p_value:.3f}"]
            if odds:
                cells.append(_odds(c) if c.term != "Intercept" else "")
            for column, text in enumerate(cells):
                self.coefficients.setItem(row, column, QTableWidgetItem(text))
        self.coefficients.resizeColumnsToContents()


def _odds(c) -> str:  # noqa: ANN001 — a Coefficient
    """The odds ratio of a term with its interval ("1.45 (1.10 to 1.91)")."""

    def ratio(value: float) -> str:
        try:
            return f"{math.exp(value):.2f}"
        except OverflowError:
            return "very large"

    return f"{ratio(c.estimate)} ({ratio(c.low)} to {ratio(c.high)})"
