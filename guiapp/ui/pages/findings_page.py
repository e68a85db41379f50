"""Step 8, Findings: how often each category occurs in the corpus the model predicted — overall and
per group — with intervals that carry the model's mistakes, the differences between groups, and a
regression of a category on columns of the table.

The model's answers for the corpus come from the Predict step; its mistakes are measured on the
study's test texts, which it never learned from (prediction-powered inference). The arithmetic is the
core's (``core/findings``); this page chooses, shows and saves.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.widgets.empty_state import EmptyState
from guiapp.ui.widgets.layouts import STRETCH, hbox, vbox
from guiapp.ui.widgets.save_dialogs import ask_save_path, proposed_name
from guiapp.ui.widgets.scroll_area import fill
from guiapp.ui.widgets.shares_table import SharesTable
from guiapp.workers import Worker, WorkerSlot

NO_GROUPS = "— the whole corpus —"
KINDS = (("logistic", "Logistic (the chance of the category)"), ("linear", "Linear (the share, in points)"))


def _estimate(inputs, column, elsewhere, on_event):  # noqa: ANN001, ANN202 — in a worker
    return inputs.estimate(column, elsewhere=elsewhere, on_event=on_event)


def _regress(inputs, outcome, columns, kind, on_event):  # noqa: ANN001, ANN202, ARG001 — in a worker
    from guiapp.core.findings import formula_for

    return inputs.regress(formula_for(outcome, columns), kind)


def _save(path, findings, regression, on_event):  # noqa: ANN001, ANN202, ARG001
    from guiapp.core.export.findings_export import write_findings

    return write_findings(path, findings, regression)


class FindingsPage(QWidget):
    statusMessage = Signal(str)
    errorRaised = Signal(object, str)

    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent)
        self.session = session or StudySession(self)
        self.inputs = None  # StudyFindingsInputs of the model chosen
        self.findings = None
        self.regression = None
        self._slot, self._regress_slot, self._save_slot = WorkerSlot(), WorkerSlot(), WorkerSlot()
        self.empty = EmptyState("No findings yet", "Predict your uncoded texts (or a new file) with a trained model "
                                "on the Predict step; the shares of the categories in them show here.", "findings")
        self.content = self._build()
        layout = fill(self, self.content)
        layout.addWidget(self.empty)
        self.content.hide()
        self.statusMessage.connect(self.session.say)
        self.errorRaised.connect(self.session.report_error)
        self.session.predictionsChanged.connect(lambda _p: self.refresh())
        self.session.resultChanged.connect(lambda _r: self.refresh())

    # -- building -----------------------------------------------------------------------------------------
    def _build(self) -> QWidget:
        panel = QWidget()
        title = QLabel("How often each category occurs", objectName="findingsTitle")
        title.setStyleSheet(theme.heading_style(18))
        self.intro = QLabel(objectName="findingsIntro", wordWrap=True)
        self.intro.setStyleSheet(theme.SOFT_STYLE)
        self.model_combo = QComboBox(objectName="findingsModel")
        self.model_combo.setToolTip("The model whose answers for the corpus are counted (those it gave on the "
                                    "Predict step).")
        self.model_combo.currentIndexChanged.connect(lambda _i: self._model_chosen())
        self.group_combo = QComboBox(objectName="findingsGroups")
        self.group_combo.setToolTip("Give the shares per value of a column (party, year, outlet), with the "
                                    "differences between the groups.")
        self.group_combo.currentIndexChanged.connect(lambda _i: self.estimate())
        self.elsewhere_box = QCheckBox("These texts come from another time or source than the coded ones",
                                       objectName="findingsElsewhere")
        self.elsewhere_box.setToolTip(
            "Tick when none of your coded texts comes from this corpus (coded 2016, measuring 2020): the shares "
            "are then adjusted for categories that became more or less frequent (prior-shift quantification), "
            "assuming the categories are written about in the same way.")
        self.elsewhere_box.toggled.connect(lambda _on: self.estimate())
        self.save_button = QPushButton("Save findings…", objectName="saveFindings", enabled=False)
        self.save_button.setToolTip("Save the shares, the differences, the regression and how they were "
                                    "estimated as an Excel workbook (or the shares as CSV).")
        self.save_button.clicked.connect(self.choose_save_path)
        self.assumption = QLabel(objectName="findingsAssumption", wordWrap=True)
        self.assumption.setStyleSheet(theme.NOTE_STYLE)
        self.warnings = QLabel(objectName="findingsWarnings", wordWrap=True)
        self.warnings.setStyleSheet(theme.notice_style("caution"))
        self.warnings.hide()
        for label in (self.intro, self.assumption, self.warnings):  # wrapped lines keep their height
            label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.shares = SharesTable()
        self.differences = QTableWidget(0, 4, objectName="differencesTable")
        self.differences.setHorizontalHeaderLabels(["Category", "Difference (95 % interval)", "p", "Counting the "
                                                    "model's answers"])
        self.differences.horizontalHeader().setStretchLastSection(True)
        self.differences.verticalHeader().hide()
        self.differences_note = QLabel("Choose a column under “Per group” to compare its groups.", wordWrap=True)
        self.differences_note.setStyleSheet(theme.SOFT_STYLE)
        differences_tab = QWidget()
        vbox(differences_tab, self.differences_note, (self.differences, 1))
        self.tabs = QTabWidget(objectName="findingsTabs")
        self.tabs.addTab(self.shares, "Shares")
        self.tabs.addTab(differences_tab, "Differences between groups")
        self.tabs.addTab(self._build_regression(), "Regression")
        vbox(panel, title, self.intro,
             hbox(None, QLabel("Model:"), self.model_combo, QLabel("Per group:"), self.group_combo, self.elsewhere_box,
                  STRETCH, self.save_button),
             self.assumption, self.warnings, (self.tabs, 1), margins=(24, 16, 24, 12), spacing=8)
        return panel

    def _build_regression(self) -> QWidget:
        tab = QWidget()
        self.outcome_combo = QComboBox(objectName="regressionOutcome")
        self.outcome_combo.setToolTip("The category whose chance (or share) the columns explain.")
        self.kind_combo = QComboBox(objectName="regressionKind")
        for key, words in KINDS:
            self.kind_combo.addItem(words, key)
        self.columns_list = QListWidget(objectName="regressionColumns")
        self.columns_list.setMaximumHeight(110)
        self.columns_list.setToolTip("Tick the columns that may explain the category (e.g. party and year).")
        self.fit_button = QPushButton("Fit", objectName="fitRegression")
        self.fit_button.clicked.connect(self.fit_regression)
        self.coefficients = QTableWidget(0, 5, objectName="coefficientsTable")
        self.coefficients.setHorizontalHeaderLabels(["Term", "Estimate", "Standard error", "95 % interval", "p"])
        self.coefficients.horizontalHeader().setStretchLastSection(True)
        self.coefficients.verticalHeader().hide()
        self.regression_note = QLabel("", wordWrap=True)
        self.regression_note.setStyleSheet(theme.SOFT_STYLE)
        vbox(tab, hbox(None, QLabel("Category:"), self.outcome_combo, QLabel("Model:"), self.kind_combo, STRETCH),
             QLabel("Explained by the columns:"), self.columns_list, hbox(None, self.fit_button, STRETCH),
             self.regression_note, (self.coefficients, 1))
        return tab

    # -- following the session ------------------------------------------------------------------------------
    def refresh(self) -> None:
        predictions = self.session.predictions
        usable = predictions is not None and self.session.result is not None and self.session.predicted_table is not None
        self.content.setVisible(usable)
        self.empty.setVisible(not usable)
        if not usable:
            self.inputs = self.findings = None
            if self.session.findings is not None:
                self.session.set_findings(None)
            return
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        self.model_combo.addItems(predictions.models)
        self.model_combo.blockSignals(False)
        self._model_chosen()

    def _model_chosen(self) -> None:
        from guiapp.core.findings.from_study import findings_inputs

        session, model = self.session, self.model_combo.currentText()
        if not model or session.predictions is None:
            return
        try:
            self.inputs = findings_inputs(session.result, model, session.predictions, session.predicted_table,
                                          session.frame, session.test_frame, session.codings)
        except UserError as error:
            self.inputs = None
            self.assumption.setText(str(error))
            self.shares.setRowCount(0)
            return
        texts = set(session.mapping.text_columns)
        columns = [c for c in self.inputs.columns() if c not in texts]  # per party, year, outlet — not per text
        self.group_combo.blockSignals(True)
        self.group_combo.clear()
        self.group_combo.addItem(NO_GROUPS, "")
        for column in columns:
            self.group_combo.addItem(str(column), column)
        self.group_combo.blockSignals(False)
        self.outcome_combo.clear()
        self.outcome_combo.addItems(list(self.inputs.categories))
        self.columns_list.clear()
        for column in columns:
            item = QListWidgetItem(str(column))
            item.setData(Qt.ItemDataRole.UserRole, column)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.columns_list.addItem(item)
        self.fit_button.setEnabled(bool(columns))
        self.regression_note.setText("" if columns else "The corpus and the test texts share no column to "
                                     "explain the category with.")
        n_corpus, n_coded = len(self.inputs.probabilities), len(self.inputs.coded.labels)
        self.intro.setText(
            f"The share of each category among the {n_corpus:,} texts {model} answered on the Predict step, with "
            f"95 % intervals that carry its mistakes: they are measured on the study's {n_coded:,} test texts, which "
            "the model never learned from (prediction-powered inference). Counting the model's answers is shown "
            "beside, for contrast: it ignores the mistakes.")
        self.estimate()

    # -- estimating --------------------------------------------------------------------------------------------
    def estimate(self) -> None:
        if self.inputs is None:
            return
        column = self.group_combo.currentData() or ""
        worker = Worker(_estimate, self.inputs, column, self.elsewhere_box.isChecked(), name="findings")
        worker.signals.finished.connect(lambda found, w=worker: self._estimated(w, found))
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Estimating the shares"))
        self._slot.start(worker)
        self.statusMessage.emit("Estimating the shares…")

    def _estimated(self, worker: Worker, findings) -> None:  # noqa: ANN001 — a Findings
        if worker is not self._slot.current:
            return
        self.findings = findings
        self.session.set_findings(findings)  # the methods appendix gets its paragraph
        self.save_button.setEnabled(True)
        notes = [*self.inputs.notes, *findings.warnings]
        self.assumption.setText(f"{findings.assumption} Estimated by {findings.method}.")
        shown = notes if len(notes) <= 3 else [*notes[:2], f"… and {len(notes) - 2} more like these (point here to "
                                                           "read them all)."]
        self.warnings.setText("\n".join(shown))
        self.warnings.setToolTip("\n".join(notes))
        self.warnings.setVisible(bool(notes))
        self.shares.set_shares(findings.shares)
        self._show_differences(findings)
        self.statusMessage.emit("The shares are ready.")

    def _show_differences(self, findings) -> None:  # noqa: ANN001
        rows = list(findings.differences)
        self.differences_note.setText(
            f"Differences between the groups of “{findings.group_name}”, in points of share." if rows else
            "Choose a column under “Per group” to compare its groups.")
        self.differences.setRowCount(len(rows))
        for row, difference in enumerate(rows):
            for column, text in enumerate((difference.category, difference.sentence(), f"{difference.p_value:.3f}",
                                           f"{100 * difference.naive:+.1f} points")):
                self.differences.setItem(row, column, QTableWidgetItem(text))
        self.differences.resizeColumnsToContents()

    def fit_regression(self) -> None:
        columns = [self.columns_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.columns_list.count())
                   if self.columns_list.item(i).checkState() == Qt.CheckState.Checked]
        if self.inputs is None or not columns:
            self.regression_note.setText("Tick at least one column that may explain the category.")
            return
        worker = Worker(_regress, self.inputs, self.outcome_combo.currentText(), columns, self.kind_combo.currentData(),
                        name="regression")
        worker.signals.finished.connect(self._fitted)
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Fitting the regression"))
        self._regress_slot.start(worker)
        self.regression_note.setText("Fitting…")

    def _fitted(self, regression) -> None:  # noqa: ANN001 — a Regression
        self.regression = regression
        self.regression_note.setText(f"{regression.formula}: {regression.n_texts:,} texts, {regression.n_coded:,} of "
                                     f"them coded. Estimated by {regression.method}. {regression.assumption}"
                                     + ("\n" + "\n".join(regression.warnings) if regression.warnings else ""))
        rows = list(regression.coefficients)
        self.coefficients.setRowCount(len(rows))
        for row, c in enumerate(rows):
            for column, text in enumerate((c.term, f"{c.estimate:.3f}", f"{c.standard_error:.3f}",
                                           f"{c.low:.3f} to {c.high:.3f}", f"{c.p_value:.3f}")):
                self.coefficients.setItem(row, column, QTableWidgetItem(text))
        self.coefficients.resizeColumnsToContents()

    # -- saving ------------------------------------------------------------------------------------------------
    def choose_save_path(self) -> None:
        if self.findings is None:
            return
        table = self.session.table
        name = proposed_name(str(table.path) if table is not None else "findings", "TextLab findings", ".xlsx")
        path, _ = ask_save_path(self, "Save the findings", name, "Excel (*.xlsx);;CSV (*.csv)",
                                protected=[table.path] if table is not None else [])
        if path:
            self.save_to(Path(path))

    def save_to(self, path: Path) -> None:
        worker = Worker(_save, path, self.findings, self.regression, name="save findings")
        worker.signals.finished.connect(lambda written: self.statusMessage.emit(f"Saved the findings to {written}"))
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Saving the findings"))
        self._save_slot.start(worker)

    # -- for the window ------------------------------------------------------------------------------------------
    def share_text(self, row: int) -> str:
        return f"{self.shares.cell_text(row, 1)} {self.shares.cell_text(row, 2)}"

    def is_busy(self) -> bool:
        return any(slot.current is not None for slot in (self._slot, self._regress_slot, self._save_slot))

    def cancel_jobs(self) -> None:
        for slot in (self._slot, self._regress_slot, self._save_slot):
            slot.cancel()

