"""Step 8, Findings: how often each category occurs in a corpus — overall and per group — with
intervals that carry the model's mistakes, the differences between groups, and a regression of a
category on columns of the table.

Two corpora can be measured. The texts a study's model answered on the Predict step: its mistakes
are measured on the study's test texts, which it never learned from (prediction-powered inference).
Or the researcher's own table, coded and uncoded texts together: a quick model cross-fitted on the
coded texts answers for every text, and the texts the Coding step chose are weighted by the chance
with which it drew them. The arithmetic is the core's (``core/findings``); this page chooses, shows
and saves.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.session.session_page import SessionPage
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.findings.comparison_choice import ComparisonChoice
from guiapp.ui.common.empty_state import EmptyState
from guiapp.ui.common.job_progress import JobProgress
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.steps.findings.regression_form import RegressionForm
from guiapp.ui.common.save_dialogs import ask_save_path, proposed_name
from guiapp.ui.common.scroll_area import fill
from guiapp.ui.common.when_shown import WhenShown
from guiapp.ui.steps.findings.shares_table import SharesTable
from guiapp.workers import Worker, WorkerSlot

NO_GROUPS = "— the whole corpus —"
PREDICTED, TABLE = "predicted", "table"
SOURCES = ((PREDICTED, "The texts predicted on the Predict step"),
           (TABLE, "Your table: its coded and uncoded texts"))


def _predicted_inputs(result, model, predictions, table, frame, test_frame, log,  # noqa: ANN001, ANN202
                      on_event):  # noqa: ANN001, ARG001 — in a worker
    from guiapp.core.findings.from_study import findings_inputs

    return findings_inputs(result, model, predictions, table, frame, test_frame, log)


def _table_inputs(frame, mapping, log, categories, fixes, on_event):  # noqa: ANN001, ANN202 — in a worker
    from guiapp.core.findings.from_table import table_findings_inputs

    return table_findings_inputs(frame, mapping, log, categories=categories, fixes=fixes, on_event=on_event)


def _estimate(inputs, column, options, on_event):  # noqa: ANN001, ANN202 — in a worker
    return inputs.estimate(column, **options, on_event=on_event)


def _regress(inputs, outcome, columns, kind, on_event):  # noqa: ANN001, ANN202, ARG001 — in a worker
    from guiapp.core.findings import formula_for

    return inputs.regress(formula_for(outcome, columns), kind)


def _save(path, findings, regression, on_event):  # noqa: ANN001, ANN202, ARG001
    from guiapp.core.export.findings_export import write_findings

    return write_findings(path, findings, regression)


NO_FINDINGS = ("No findings yet", "Code texts of your table (on the Data or Coding step), or predict new texts with a "
               "trained model on the Predict step: the shares of the categories in them show here.")
SEVERAL_CATEGORIES = ("No findings yet",
                      "Code texts of your table (on the Data or Coding step), or predict new texts with a trained model "
                      "on the Predict step: the share of texts that have each category shows here, with intervals. A "
                      "text can have several categories in your study, so each category is measured on its own, as a "
                      "yes/no question.")

class FindingsPage(SessionPage):
    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent, session)
        self.inputs = None  # StudyFindingsInputs of the model chosen, or TableFindingsInputs
        self.findings = None
        self.regression = None
        self._table_inputs = None  # the table's cross-fitted inputs, until the table or its codings change
        self._slot, self._regress_slot, self._save_slot = WorkerSlot(self), WorkerSlot(self), WorkerSlot(self)
        self.empty = EmptyState(*NO_FINDINGS, "findings")
        self.content = self._build()
        layout = fill(self, self.content)
        layout.addWidget(self.empty)
        self.content.hide()
        self.statusMessage.connect(self.session.say)
        self.errorRaised.connect(self.session.report_error)
        self._catch_up = WhenShown(self, self.refresh)  # changed while hidden: measured again when shown
        self._wanted_source = None  # the corpus to show next (new predictions: theirs)
        self.session.predictionsChanged.connect(self._predictions_changed)
        self.session.resultChanged.connect(lambda _r: self._follow())
        for changed in (self.session.dataChanged, self.session.codingsChanged, self.session.codebookChanged):
            changed.connect(self._table_changed)
        self.session.tableChanged.connect(lambda _t: self._table_changed())
        self.refresh()

    # -- building -----------------------------------------------------------------------------------------
    def _build(self) -> QWidget:
        panel = QWidget()
        title = QLabel("How often each category occurs", objectName="findingsTitle")
        title.setStyleSheet(theme.heading_style(18))
        self.intro = QLabel(objectName="findingsIntro", wordWrap=True)
        self.intro.setStyleSheet(theme.SOFT_STYLE)
        self.source_combo = QComboBox(objectName="findingsSource")
        self.source_combo.setToolTip("Which texts to measure: those a study's model predicted on the Predict step, "
                                     "or the texts of your table, coded and uncoded.")
        self.source_combo.currentIndexChanged.connect(lambda _i: self._source_chosen())
        self.model_label = QLabel("Model:")
        self.model_combo = QComboBox(objectName="findingsModel")
        self.model_combo.setToolTip("The model whose answers for the corpus are counted (those it gave on the "
                                    "Predict step).")
        self.model_combo.currentIndexChanged.connect(lambda _i: self._model_chosen())
        self.group_combo = QComboBox(objectName="findingsGroups")
        self.group_combo.setToolTip("Give the shares per value of a column (party, year, outlet), with the "
                                    "differences between the groups.")
        self.group_combo.currentIndexChanged.connect(lambda _i: self._group_chosen(picked=True))
        for combo in (self.source_combo, self.model_combo, self.group_combo):  # names are never cut off
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.elsewhere_box = QCheckBox("These texts come from another time or source than the coded ones",
                                       objectName="findingsElsewhere")
        self.elsewhere_box.setToolTip(
            "Tick when none of your coded texts comes from this corpus (coded 2016, measuring 2020): the shares "
            "are then adjusted for categories that became more or less frequent (prior-shift quantification), "
            "assuming the categories are written about in the same way.")
        self.elsewhere_box.toggled.connect(lambda _on: self.estimate())
        self.stratified_box = QCheckBox("The coded texts were drawn at random within each group",
                                        objectName="findingsStratified")
        self.stratified_box.setToolTip(
            "Tick when you drew the texts to code so many per group of this column (say 100 per party) rather "
            "than at random from the whole table: each group then counts by its size in the table.")
        self.stratified_box.toggled.connect(self._stratified_ticked)
        self.save_button = QPushButton("Save findings…", objectName="saveFindings", enabled=False)
        self.save_button.setToolTip("Save the shares, the differences, the regression and how they were "
                                    "estimated as an Excel workbook (or the shares as CSV).")
        self.save_button.clicked.connect(self.choose_save_path)
        self.progress = JobProgress()
        self.progress.hide()
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
        self.differences_note = QLabel("Choose a column under “Per group” to compare its groups.", wordWrap=True,
                                       objectName="differencesNote")
        self.differences_note.setStyleSheet(theme.SOFT_STYLE)
        self.compare_label = QLabel("Compared with:")
        self.compare_combo = ComparisonChoice()
        self.compare_combo.currentIndexChanged.connect(lambda _i: self._comparison_chosen())
        differences_tab = QWidget()
        vbox(differences_tab, hbox(None, self.compare_label, self.compare_combo, STRETCH), self.differences_note,
             (self.differences, 1))
        self._show_comparison(None)
        self.regression_form = RegressionForm()
        self.regression_form.fitWanted.connect(self.fit_regression)
        self.tabs = QTabWidget(objectName="findingsTabs")
        self.tabs.addTab(self.shares, "Shares")
        self.tabs.addTab(differences_tab, "Differences between groups")
        self.tabs.addTab(self.regression_form, "Regression")
        vbox(panel, title, self.intro,
             hbox(None, QLabel("Measure:"), self.source_combo, self.model_label, self.model_combo, QLabel("Per group:"),
                  self.group_combo, STRETCH, self.save_button),
             hbox(None, self.elsewhere_box, self.stratified_box, STRETCH),
             self.progress, self.assumption, self.warnings, (self.tabs, 1), margins=(24, 16, 24, 12), spacing=8)
        return panel

    # -- following the session ------------------------------------------------------------------------------
    def sources(self) -> list[str]:
        """The corpora that can be measured now."""
        session, found = self.session, []
        if session.predictions is not None and session.result is not None and session.predicted_table is not None:
            found.append(PREDICTED)
        mapping = session.mapping
        if session.frame is not None and mapping is not None and mapping.text_columns and (
                mapping.category_column is not None or mapping.category_columns or len(session.codings)):
            found.append(TABLE)
        return found

    def refresh(self) -> None:
        several = self.session.mapping is not None and bool(self.session.mapping.multi_label)
        sources = self.sources()
        self.empty.set_words(*(SEVERAL_CATEGORIES if several else NO_FINDINGS))
        self.content.setVisible(bool(sources))
        self.empty.setVisible(not sources)
        if not sources:
            self._slot.cancel()
            self.progress.hide()
            self._clear_findings()
            return
        choice = self.session.findings_choice
        current, self._wanted_source = self._wanted_source or choice.get("source"), None
        self.source_combo.blockSignals(True)
        self.source_combo.clear()
        for key, words in SOURCES:
            if key in sources:
                self.source_combo.addItem(words, key)
        keep = current if current in sources else sources[0]
        self.source_combo.setCurrentIndex(self.source_combo.findData(keep))
        self.source_combo.blockSignals(False)
        predictions = self.session.predictions
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        if predictions is not None:
            self.model_combo.addItems(predictions.models)
            self.model_combo.setCurrentIndex(max(self.model_combo.findText(str(choice.get("model", ""))), 0))
        self.model_combo.blockSignals(False)
        self._source_chosen(remember=current in (None, keep))  # one not there yet (a project opening) stays chosen
        self._show_kept()

    def _follow(self) -> None:
        """Something the findings rest on changed: measure again now when shown, else when next shown
        (the table's quick model takes a while; no need while the researcher codes on another step)."""
        wanted = self._wanted_source or self.session.findings_choice.get("source")
        if self.isVisible() or wanted not in self.sources():
            self.refresh()
        else:
            self._catch_up.when_shown()

    def _predictions_changed(self, predictions) -> None:  # noqa: ANN001
        if predictions is not None and not self.session.predictions_restored:  # new answers: measured next
            self._wanted_source = PREDICTED
        self._follow()

    def _table_changed(self) -> None:
        self._table_inputs = None
        self._follow()

    def _source_chosen(self, *, remember: bool = True) -> None:
        source = self.source_combo.currentData()
        if remember:
            self.session.findings_choice["source"] = source
        predicted = source == PREDICTED
        for widget in (self.model_label, self.model_combo, self.elsewhere_box):
            widget.setVisible(predicted)
        if not predicted:
            self.elsewhere_box.blockSignals(True)
            self.elsewhere_box.setChecked(False)
            self.elsewhere_box.blockSignals(False)
        if predicted:
            self._model_chosen()
        elif source == TABLE:
            self._measure_table()

    def _model_chosen(self) -> None:
        session, model = self.session, self.model_combo.currentText()
        if self.source_combo.currentData() != PREDICTED or not model or session.predictions is None:
            return
        session.findings_choice["model"] = model
        self._clear_findings()  # the model's answers are lined up with the test texts in a job: a corpus can be large
        self._run(Worker(_predicted_inputs, session.result, model, session.predictions, session.predicted_table,
                         session.frame, session.test_frame, session.codings, name="findings inputs"),
                  lambda inputs: self._predicted_ready(inputs, model), "Reading the model's answers…")

    def _predicted_ready(self, inputs, model: str) -> None:  # noqa: ANN001 — StudyFindingsInputs
        n_corpus, n_coded = len(inputs.probabilities), len(inputs.coded.labels)
        self._inputs_ready(inputs, (
            f"The share of each category among the {n_corpus:,} texts {model} answered on the Predict step, with "
            f"95 % intervals that carry its mistakes: they are measured on the study's {n_coded:,} test texts, which "
            "the model never learned from (prediction-powered inference). Counting the model's answers is shown "
            "beside, for contrast: it ignores the mistakes."))

    def _measure_table(self) -> None:
        if self._table_inputs is not None:
            self._table_ready(self._table_inputs)
            return
        self._clear_findings()
        if not self.isVisible():  # the quick model learns when the researcher looks
            self._catch_up.when_shown()
            return
        session = self.session
        fixes = session.data_spec.category_fixes if session.data_spec is not None else None
        self._run(Worker(_table_inputs, session.frame, session.mapping, session.codings, session.codebook.names(),
                         fixes, name="findings model"),
                  self._table_measured, "Teaching the quick model your coded texts…")

    def _table_measured(self, inputs) -> None:  # noqa: ANN001 — TableFindingsInputs
        self._table_inputs = inputs
        if self.source_combo.currentData() == TABLE:
            self._table_ready(inputs)

    def _table_ready(self, inputs) -> None:  # noqa: ANN001
        n_corpus, n_coded = len(inputs.probabilities), len(inputs.coded.labels)
        self._inputs_ready(inputs, (
            f"The share of each category among the {n_corpus:,} texts of your table, coded or not, with 95 % "
            f"intervals that carry the model's mistakes: a quick model learns from your {n_coded:,} coded texts and "
            "answers for every text; its mistakes on the coded texts, each answered by a model that did not learn "
            "from it, correct the count. Counting the model's answers is shown beside, for contrast."))

    def _inputs_ready(self, inputs, intro: str) -> None:  # noqa: ANN001
        self.inputs = inputs
        texts = set(self.session.mapping.text_columns) if self.session.mapping is not None else set()
        columns = [c for c in inputs.columns() if c not in texts]  # per party, year, outlet — not per text
        chosen = self.session.findings_choice.get("group", "")
        self.group_combo.blockSignals(True)
        self.group_combo.clear()
        self.group_combo.addItem(NO_GROUPS, "")
        from guiapp.core.tables.group_columns import group_columns

        for offered in group_columns(inputs.corpus, columns):  # few groups first; ids and days last, marked
            self.group_combo.addItem(offered.label, offered.name)
            self.group_combo.setItemData(self.group_combo.count() - 1, offered.tip, Qt.ItemDataRole.ToolTipRole)
        self.group_combo.setCurrentIndex(max(self.group_combo.findData(chosen), 0) if chosen else 0)
        self.group_combo.blockSignals(False)
        self.regression_form.set_choices(inputs.categories, columns,
                                         why_none="The corpus and the coded texts share no column to explain the "
                                                  "category with.")
        self.regression = None
        self.intro.setText(intro)
        self._group_chosen()

    def _show_kept(self) -> None:
        """The findings an opened project showed, shown again while they are measured anew (once)."""
        kept = self.session.kept_findings
        if kept is None or self.findings is not None:
            return
        chosen = {"source": self.source_combo.currentData(), "group": self.session.findings_choice.get("group", "")}
        if chosen["source"] == PREDICTED:
            chosen["model"] = self.model_combo.currentText()
        if kept.matches(chosen):
            self.session.kept_findings = None
            self._estimated(kept.findings)

    def _clear_findings(self) -> None:
        self.inputs = self.findings = None
        if self.session.findings is not None:
            self.session.set_findings(None)

    def _not_measurable(self, why: str) -> None:
        self._clear_findings()
        self.progress.hide()
        self.assumption.setText(why)
        self.warnings.hide()
        self.shares.set_shares(())
        self.differences.setRowCount(0)
        self.save_button.setEnabled(False)

    def _group_chosen(self, *, picked: bool = False) -> None:
        from guiapp.core.findings.records import ALL_PAIRS  # findings are loaded by now: no cost to the window

        choice = self.session.findings_choice
        if picked:
            choice["group"] = self.group_combo.currentData() or ""
            if choice.get("compare_with") != ALL_PAIRS:  # a group of the column before is none of this one's
                choice["compare_with"] = ""
        self.stratified_box.blockSignals(True)
        self.stratified_box.setChecked(bool(choice.get("stratified")))
        self.stratified_box.blockSignals(False)
        table = self._measuring_table() and not self.inputs.chosen_by_coding_step
        self.stratified_box.setVisible(bool(table and self.group_combo.currentData()))
        self.estimate()

    def _stratified_ticked(self, ticked: bool) -> None:
        self.session.findings_choice["stratified"] = ticked
        self.estimate()

    def _measuring_table(self) -> bool:
        return self.inputs is not None and self.inputs.source == TABLE

    # -- estimating --------------------------------------------------------------------------------------------
    def estimate(self) -> None:
        if self.inputs is None:
            return
        column = self.group_combo.currentData() or ""
        if self._measuring_table():
            options = {"stratified": self.stratified_box.isVisible() and self.stratified_box.isChecked()}
        else:
            options = {"elsewhere": self.elsewhere_box.isChecked()}
        from guiapp.core.findings.records import ALL_PAIRS

        compare = str(self.session.findings_choice.get("compare_with", "")) if column else ""
        options["all_pairs"] = compare == ALL_PAIRS
        options["reference"] = compare if compare not in ("", ALL_PAIRS) else None
        self._run(Worker(_estimate, self.inputs, column, options, name="findings"), self._estimated,
                  "Estimating the shares…")

    def _comparison_chosen(self) -> None:
        self.session.findings_choice["compare_with"] = self.compare_combo.choice()
        self.estimate()

    def _run(self, worker: Worker, done, message: str) -> None:  # noqa: ANN001 — done(the job's result)
        """Start a job of the page's one slot, with progress and Cancel; ``done`` takes its result
        unless a later job has taken the slot meanwhile."""
        worker.signals.finished.connect(lambda result, w=worker: self._finished(w, result, done))
        worker.signals.failed.connect(lambda error, w=worker: self._failed(w, error))
        worker.signals.cancelled.connect(lambda w=worker: self._cancelled(w))
        self._slot.start(worker)
        self.progress.show()
        self.progress.attach(worker, message)
        self.statusMessage.emit(message)

    def _finished(self, worker: Worker, result, done) -> None:  # noqa: ANN001
        if worker is self._slot.current:
            self.progress.hide()
            done(result)

    def _failed(self, worker: Worker, error: Exception) -> None:
        if worker is not self._slot.current:
            return
        self._not_measurable(str(error))
        if not isinstance(error, UserError):
            self.errorRaised.emit(error, "Estimating the shares")

    def _cancelled(self, worker: Worker) -> None:
        if worker is self._slot.current:
            self.progress.hide()
            self.statusMessage.emit("Stopped: the shares shown are from before.")

    def _estimated(self, findings) -> None:  # noqa: ANN001 — a Findings
        self.findings = findings
        self.session.set_findings(findings)  # the methods appendix gets its paragraph
        self.save_button.setEnabled(True)
        notes = list(dict.fromkeys([*(self.inputs.notes if self.inputs is not None else ()), *findings.warnings]))
        said = f"{findings.assumption} Estimated by {findings.method}."
        self.assumption.setText(f"{said}\n{findings.model_note}" if findings.model_note else said)
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
        self._show_comparison(findings if rows else None)
        self.differences_note.setText(
            f"Differences in points of share: {findings.comparison_words()}." if rows else
            "Choose a column under “Per group” to compare its groups.")
        self.differences.setRowCount(len(rows))
        for row, difference in enumerate(rows):
            for column, text in enumerate((difference.category, difference.sentence(), f"{difference.p_value:.3f}",
                                           f"{100 * difference.naive:+.1f} points")):
                self.differences.setItem(row, column, QTableWidgetItem(text))
        self.differences.resizeColumnsToContents()

    def _show_comparison(self, findings) -> None:  # noqa: ANN001 — a Findings with differences, or None
        """The "Compared with:" choice, offered with the groups of ``findings`` (hidden without)."""
        if findings is not None:
            self.compare_combo.set_groups(findings.groups, findings.largest(), findings.comparison)
        for widget in (self.compare_label, self.compare_combo):
            widget.setVisible(findings is not None)

    def fit_regression(self, outcome: str, columns: list, kind: str) -> None:
        if self.inputs is None:
            return
        worker = Worker(_regress, self.inputs, outcome, columns, kind, name="regression")
        worker.signals.finished.connect(self._fitted)
        worker.signals.failed.connect(self._regression_failed)
        self._regress_slot.start(worker)

    def _fitted(self, regression) -> None:  # noqa: ANN001 — a Regression
        self.regression = regression
        self.regression_form.show_regression(regression)

    def _regression_failed(self, error: Exception) -> None:
        if isinstance(error, UserError):
            self.regression_form.note.setText(str(error))
        else:
            self.regression_form.note.setText("")
            self.errorRaised.emit(error, "Fitting the regression")

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
    def is_busy(self) -> bool:
        return any(slot.current is not None for slot in (self._slot, self._regress_slot, self._save_slot))

    def cancel_jobs(self) -> None:
        for slot in (self._slot, self._regress_slot, self._save_slot):
            slot.cancel()


