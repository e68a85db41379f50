"""The Results step: which model agrees best with the user's coding, and the details of each.

Top: a headline sentence and a bar chart of the test macro-F1 per model with its interval.
Bottom: a picker (best first) and, for the chosen model, tabs with the scores per category,
the confusion matrix, the tuning and the time taken. A fine-tuned Transformer sits in the same
chart and tables; its details also say how its setting was chosen (cross-validation or one
validation split, as a learning rate × epochs grid), where it trained (GPU or processor), what
was cut from long texts, and where the model was saved. The page only shows numbers the engine
computed (``ExperimentResult``); it computes none itself.

Where a text can have several categories, a line under the headline adds micro-F1, how often all
categories of a text are right (subset accuracy) and the Hamming loss; a table under the chart
compares the models on these; the scores per category add each F1's interval and the threshold;
and a grid of small per-category 2×2 tables takes the place of the confusion matrix (with “Check my
codings…”, which looks for texts placed in one other category, hidden).

The headline's sentences are worded in ``results_headline``, the tabs built in ``results_tabs`` and the
chosen model's details filled in by ``model_details``.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QWidget,
)

from guiapp.core.experiment import ExperimentResult, ModelResult
from guiapp.core.explain.documents import DocumentFilter
from guiapp.ui import theme
from guiapp.ui.session.session_page import SessionPage
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.step_order import DOCUMENTS_STEP
from guiapp.ui.common.empty_state import EmptyState
from guiapp.ui.common.fitting_splitter import FittingSplitter
from guiapp.ui.common.glossary import GlossaryLabel, explain
from guiapp.ui.common.layouts import STRETCH, vbox
from guiapp.ui.common.lazy_widget import LazyWidget
from guiapp.ui.steps.results.codebook_details import CODEBOOK_TERMS, SHOW_PROMPT, sensitivity_overview
from guiapp.ui.steps.results.learning_curve_panel import LearningCurvePanel
from guiapp.ui.steps.results.measures_line import MeasuresLine
from guiapp.ui.steps.results.model_details import ModelDetails
from guiapp.ui.steps.results.results_export import ResultsExport
from guiapp.ui.steps.results.results_headline import headline, intervals_overlap, study_line
from guiapp.ui.steps.results.results_tables import ModelMeasuresTable
from guiapp.ui.steps.results.results_tabs import (
    BARS_FOOTPRINT,
    CONFUSION_TIP,
    MULTI_LABEL_RESULT_TERMS,
    RESULT_TERMS,
    TAB_NAMES,
    TAB_TIPS,
    ResultsTabs,
)
from guiapp.ui.common.save_chart_button import save_chart_button
from guiapp.ui.common.scroll_area import ScrollArea, fill
from guiapp.workers import Worker
from guiapp.core.export.appendix_coding_team import coding_team_facts_of


def compare_models_job(result: ExperimentResult, on_event=None):  # noqa: ANN001 — a Worker's job
    from guiapp.core.experiment.scores.comparisons import compare_models

    return compare_models(result)

EMPTY_TITLE = "No results yet"
EMPTY_TEXT = "Run a study on the Run step: the comparison of your models appears here."
OVERLAP_TEXT = ("The top models' intervals overlap: the tab “Real difference?” below tells whether their "
                "difference is larger than chance.")
# a study where a text can have several categories
MULTI_LABEL_TERMS = ["threshold", "per-category table", "micro-F1", "subset accuracy", "exact match", "Hamming loss"]
CATEGORY_TABLES_TAB = "Per-category tables"
CATEGORY_TABLES_TIP = ("A text can have several categories, so there is no confusion matrix: each category has its own "
                       "small yes/no table of the test texts instead.")
HEADLINE_SEVERAL = ("A text can have several categories in this study: each category is decided on its own, and "
                    "macro-F1 averages the categories' F1.")


class ResultsPage(ResultsTabs, ModelDetails, SessionPage):
    """Shows an :class:`ExperimentResult`; empty until :meth:`show_result` is called. ``errorRaised``:
    an error of an export, and what was being done."""

    confusionCellClicked = Signal(str, int, int)  # model, your coding's index, the prediction's index
    extendGridRequested = Signal(dict)  # the Transformer grid extended beyond the edge its best setting sits on

    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent, session)
        self.result: ExperimentResult | None = None
        self._ranked: list[ModelResult] = []
        self.empty = EmptyState(EMPTY_TITLE, EMPTY_TEXT, "results")
        self.empty_label = self.empty.label
        self.panel = self._build_content()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        # below its smallest comfortable height (a low window) the page scrolls instead of squeezing
        self.content = ScrollArea(self.panel, name="resultsScroll")
        self.stack.addWidget(self.content)
        fill(self, self.stack)
        self._follow(self.session)

    def _follow(self, session: StudySession) -> None:
        """Show the session's result; clicks that open texts ask the Documents step through the session."""
        self.statusMessage.connect(session.say)
        self.errorRaised.connect(session.report_error)
        self.confusionCellClicked.connect(self._show_cell)
        self.extendGridRequested.connect(session.extend_transformer_grid)
        self.groups.groupChosen.connect(self._show_group)
        self.export.explained = lambda: session.explained_documents  # "Explain all" goes into the export too
        self.learning.curveChanged.connect(session.set_learning_curve)
        session.learningCurveChanged.connect(self._curve_from_session)
        session.resultChanged.connect(self._result_changed)
        session.resultsNoteChanged.connect(self.set_data_note)
        session.chosenModelChanged.connect(self.choose_model)

    def _curve_from_session(self, curve) -> None:  # noqa: ANN001 — a LearningCurveResult (an opened project's)
        if curve is not self.learning.curve():
            self.learning.set_curve(curve)

    def _result_changed(self, result: ExperimentResult | None) -> None:
        if result is None:
            self.clear()
            return
        self.show_result(result)
        # the learning curve redraws the study that gave the result, on its table as it is now: the
        # file's codings with those made on the Coding step, as the run read them
        spec = result.study_spec() if self.session.frame is not None else None
        self.set_study(spec, self.session.study_table_with_codings(spec.data.mapping) if spec is not None else None)

    def _show_cell(self, model: str, human: int, predicted: int) -> None:
        """A click on a confusion-matrix cell: the Documents step, filtered to those documents."""
        self.session.go_to(DOCUMENTS_STEP)
        self.session.show_cell(model, human, predicted)

    def _show_group(self, column: str, value) -> None:  # noqa: ANN001 — a cell value, a (low, high) range or None
        """Double-clicking a group opens its test texts on the Documents step (filtered by that
        column's value; a range of numbers cannot be filtered there)."""
        if isinstance(value, tuple):
            self.statusMessage.emit(f"The Documents step filters by one value of “{column}”, not by a range: "
                                    "choose the column there and type a value.")
            return
        model = self.groups.model_combo.currentData() or None
        self.session.go_to(DOCUMENTS_STEP)
        self.session.show_documents(DocumentFilter(model=model, metadata_column=column, metadata_mode="equals",
                                                   metadata_value="" if value is None else str(value)))

    # -- building ---------------------------------------------------------------------------------
    def _build_content(self) -> QWidget:
        panel = QWidget()
        self.study_label = QLabel("", objectName="studyLine")
        self.study_label.setWordWrap(True)
        self.study_label.setStyleSheet(theme.SOFT_STYLE)
        self.study_label.setToolTip("The study these results belong to, the data file it used and when it was run.")
        self.data_note_label = QLabel("", objectName="resultDataNote")
        self.data_note_label.setWordWrap(True)
        self.data_note_label.setStyleSheet(theme.notice_style("caution"))
        self.data_note_label.hide()
        self.headline_label = QLabel("", objectName="headline")
        self.headline_label.setWordWrap(True)
        self.headline_label.setTextFormat(Qt.TextFormat.RichText)
        self.headline_label.setStyleSheet("font-size: 16px;")
        self.headline_label.setToolTip(explain(["macro-F1", "confidence interval", "test text"]))
        self.measures_line = MeasuresLine()
        self.measures_line.hide()
        self.caution_label = QLabel(OVERLAP_TEXT, objectName="caution")
        self.caution_label.setWordWrap(True)
        self.caution_label.setStyleSheet(theme.notice_style("caution"))
        self.caution_label.setToolTip(explain(["confidence interval"]))
        self.notes_label = QLabel("", objectName="resultNotes")
        self.notes_label.setWordWrap(True)
        self.notes_label.setStyleSheet(theme.NOTE_STYLE)
        self.export = ResultsExport()
        self.export.failed.connect(self.errorRaised)
        self.export.written.connect(self.statusMessage)

        # overview: bars per model and the models that failed
        self._f1_slot = LazyWidget(self._make_f1_chart, footprint=BARS_FOOTPRINT)
        self.failed_label = QLabel("", objectName="failedModels")
        self.failed_label.setWordWrap(True)
        self.failed_label.setTextFormat(Qt.TextFormat.RichText)
        self.failed_label.setStyleSheet(theme.notice_style("problem", "6px 8px"))
        overview_title = QLabel("Agreement with your coding on the test texts, per model", objectName="chartTitle")
        overview_title.setStyleSheet(theme.BOLD_STYLE)
        overview_title.setToolTip(explain(["macro-F1", "confidence interval"]))
        title_row = QHBoxLayout()
        title_row.addWidget(overview_title, 1)
        title_row.addWidget(save_chart_button(self._f1_slot.widget, "saveF1Chart"))
        overview = QWidget()
        self.models_table = ModelMeasuresTable()  # a text can have several categories: every measure per model
        self.models_table.hide()
        # a language model with your codebook: how much its answers depend on the instruction's wording
        self.sensitivity_label = GlossaryLabel("", terms=CODEBOOK_TERMS, objectName="promptSensitivity")
        self.sensitivity_label.setStyleSheet(theme.notice_style("news"))
        self.sensitivity_label.hide()
        vbox(overview, title_row, self._f1_slot, self.models_table, self.sensitivity_label, self.failed_label, STRETCH,
             margins=(0, 0, 6, 0))
        overview_scroll = ScrollArea(overview)

        # details of one model
        self.picker = QComboBox(objectName="modelPicker")
        self.picker.setMinimumWidth(260)
        self.picker.setToolTip("Choose a model to see its details; the best model comes first.")
        self.picker.currentIndexChanged.connect(self._model_chosen)
        self.summary_label = QLabel("", objectName="modelSummary")
        self.summary_label.setStyleSheet(theme.SOFT_STYLE)
        self.summary_label.setWordWrap(True)
        self.summary_label.setToolTip(explain(["macro-F1", "accuracy"]))
        picker_row = QHBoxLayout()
        picker_label = QLabel("Details for")
        picker_label.setStyleSheet(theme.BOLD_STYLE)
        picker_row.addWidget(picker_label)
        picker_row.addWidget(self.picker)
        picker_row.addWidget(self.summary_label, 1)
        self.tabs = QTabWidget(objectName="modelTabs")
        self.tabs.addTab(self._build_category_tab(), TAB_NAMES[0])
        self.tabs.addTab(self._build_confusion_tab(), TAB_NAMES[1])
        self.tabs.addTab(self._build_tuning_tab(), TAB_NAMES[2])
        self.tabs.addTab(self._build_time_tab(), TAB_NAMES[3])
        self.tabs.addTab(self._build_comparison_tab(), TAB_NAMES[4])
        self.tabs.addTab(self._build_groups_tab(), TAB_NAMES[5])
        self.learning = LearningCurvePanel()
        self.learning.setObjectName("learningCurvePanel")
        self.tabs.addTab(self.learning, TAB_NAMES[6])
        self.export.learning_curve = self.learning.curve  # a drawn curve goes into the Excel export too
        self.export.findings = lambda: self.session.findings  # the Findings step's shares: a paragraph of the appendix
        self.export.coding_team = lambda: coding_team_facts_of(self.session.codings, self.session.codebook)
        self.export.project = lambda: self.session.capture_project({})  # the study as it is now, for the report card
        self.tabs.currentChanged.connect(self._tab_changed)
        for index, tip in enumerate(TAB_TIPS):
            self.tabs.setTabToolTip(index, tip)
        self.model_notes_label = GlossaryLabel("", terms=RESULT_TERMS)
        self.model_notes_label.setObjectName("modelNotes")
        self.model_notes_label.setStyleSheet(theme.SOFT_STYLE)
        self.saved_label = QLabel("", objectName="savedModel")
        self.saved_label.setStyleSheet(theme.SOFT_STYLE)
        self.saved_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.show_folder_button = QPushButton("Show folder", objectName="showModelFolder")
        self.show_folder_button.setToolTip("Open the folder with the saved model in your file manager.")
        self.show_folder_button.clicked.connect(self.show_model_folder)
        saved_row = QHBoxLayout()
        saved_row.setContentsMargins(0, 0, 0, 0)
        saved_row.addWidget(self.saved_label, 1)
        saved_row.addWidget(self.show_folder_button)
        self.saved_box = QWidget(objectName="savedModelBox")
        self.saved_box.setLayout(saved_row)
        self.codebook_label = GlossaryLabel("", terms=CODEBOOK_TERMS, objectName="codebookRecord")
        self.codebook_label.setStyleSheet(theme.SOFT_STYLE)
        self.prompt_button = QPushButton(SHOW_PROMPT, objectName="showPrompt")
        self.prompt_button.setToolTip("Read the exact prompt this language model was given for every text, and "
                                      "copy it for your paper.")
        self.prompt_button.clicked.connect(self.show_prompt)
        codebook_row = QHBoxLayout()
        codebook_row.setContentsMargins(0, 0, 0, 0)
        codebook_row.addWidget(self.codebook_label, 1)
        codebook_row.addWidget(self.prompt_button, 0, Qt.AlignmentFlag.AlignTop)
        self.codebook_box = QWidget(objectName="codebookBox")
        self.codebook_box.setLayout(codebook_row)
        self.codebook_box.hide()
        details = QWidget()
        vbox(details, picker_row, self.model_notes_label, self.codebook_box, self.saved_box, (self.tabs, 1),
             margins=(0, 6, 0, 0))

        self._overview = overview
        self.splitter = FittingSplitter(Qt.Orientation.Vertical, self._overview_height, name="resultsSplitter",
                                        stretch=(2, 3))
        self.splitter.addWidget(overview_scroll)
        self.splitter.addWidget(details)

        vbox(panel, self.study_label, self.data_note_label, self.headline_label, self.measures_line,
             self.caution_label, self.notes_label, (self.splitter, 1), self.export, margins=(16, 12, 16, 10), spacing=6)
        return panel

    def tables(self) -> tuple[Any, Any, Any]:
        """The study's table, its column roles and the separate test table (for the groups and coders)."""
        return self.session.study_tables()

    def _tab_changed(self, index: int) -> None:
        # the table may arrive after the result (opening a project): fill the groups when first shown
        if index == TAB_NAMES.index("By group") and self.result is not None and self.groups.scores is None:
            self._show_groups(self.result)
        if (index == TAB_NAMES.index("Real difference?") and self.result is not None
                and getattr(self, "_coders_shown", None) is not self.result):
            self._show_coders(self.result)

    def set_study(self, spec, table) -> None:  # noqa: ANN001 — an ExperimentSpec and its DataFrame
        """The study the learning curve is drawn for (the one shown, with its table)."""
        self.learning.set_study(spec, table)

    def _show_groups(self, result: ExperimentResult) -> None:
        table, mapping, test_table = self.tables()
        if table is None or mapping is None:
            self.groups.clear()
            return
        self.groups.set_result(result, table, mapping, test_table)

    def _show_coders(self, result: ExperimentResult) -> None:
        """With a table that counts the coders per category (e.g. Davidson's hate_speech,
        offensive_language, neither), also compare the models with those coders."""
        from guiapp.core.errors import UserError
        from guiapp.core.experiment.scores.coder_agreement import test_text_rows
        from guiapp.core.experiment.scores.coder_columns import coder_count_columns
        from guiapp.core.experiment.results.tested_texts import table_of_test_texts

        table, mapping, test_table = self.tables()
        if table is None or result.multi_label:  # several categories per text: counts of coders say nothing per text
            return
        columns = coder_count_columns(table_of_test_texts(result, table, test_table), result.categories, mapping)
        if not columns:
            return
        try:
            rows = test_text_rows(result, table, test_table)
        except (UserError, ValueError, IndexError):
            return  # not the table the study was run on: say nothing rather than compare the wrong rows
        self._coders_shown = result
        self.comparison.set_coders(rows, columns, result)

    def _compare_in_background(self, result: ExperimentResult) -> None:
        """The paired tests and agreement take a second or more on large test sets: off the GUI thread."""
        self.comparison.clear()
        self.comparison.headline.set_plain_text("Comparing the models…")
        worker = Worker(compare_models_job, result, name="compare models")
        worker.signals.finished.connect(
            lambda found, result=result: self.result is result and self.comparison.set_comparisons(
                found, n_texts=len(result.test_true)))
        self._comparison_slot.start(worker)

    # -- public API -------------------------------------------------------------------------------
    def show_result(self, result: ExperimentResult) -> None:
        self.result = result
        self._compare_in_background(result)
        self._show_groups(result)
        self._show_coders(result)
        self.study_label.setText(study_line(result))
        self.set_data_note("")
        self.export.set_result(result)
        self._ranked = result.ranked()
        rich, _ = headline(result)
        self.headline_label.setText(rich)
        self._show_kind(result)
        self.caution_label.setVisible(intervals_overlap(result))
        notes = list(result.notes)
        recommendation = result.recommendation()
        notes.extend(recommendation.cautions if recommendation is not None else [])
        if result.status == "cancelled":
            notes.insert(0, "This run was cancelled before every model finished; only the finished ones are shown.")
        self.notes_label.setText("\n".join(notes))
        self.notes_label.setVisible(bool(notes))

        self.f1_chart.set_scores([
            (model.name, model.test.macro_f1, *(model.test.macro_f1_ci or (None, None)))
            for model in self._ranked
        ], recommended=recommendation.model.name if recommendation is not None else None)
        sensitivity = sensitivity_overview(self._ranked)
        self.sensitivity_label.set_plain_text(sensitivity)
        self.sensitivity_label.setVisible(bool(sensitivity))
        failed = [model for model in result.models if not model.ok]
        self.failed_label.setText(self._failed_html(failed))
        self.failed_label.setVisible(bool(failed))
        self.time_chart.set_times([(model.name, model.total_seconds or 0.0) for model in self._ranked])

        self.picker.blockSignals(True)
        self.picker.clear()
        for rank, model in enumerate(self._ranked, 1):
            self.picker.addItem(f"{rank}. {model.name}  ({model.test.macro_f1:.2f})", model.name)
        self.picker.blockSignals(False)
        has_details = bool(self._ranked)
        self.picker.setEnabled(has_details)
        self.tabs.setEnabled(has_details)
        if has_details:
            self.picker.setCurrentIndex(0)
            self._model_chosen(0)
        self.stack.setCurrentWidget(self.content)
        self.splitter.reset()
        self.statusMessage.emit(
            f"Showing the results of {len(self._ranked)} model{'s' if len(self._ranked) != 1 else ''}"
            + (f"; {len(failed)} did not finish." if failed else ".")
        )

    def _show_kind(self, result: ExperimentResult) -> None:
        """What differs where a text can have several categories: the measures line, the table of every
        measure per model, the per-category tables instead of the confusion matrix."""
        several = result.multi_label
        best = result.best()
        self.measures_line.setVisible(several and best is not None)
        if several and best is not None:
            self.measures_line.set_test(best.test, result.n_test_texts)
        tip = explain(["macro-F1", "confidence interval", "test text"])
        self.headline_label.setToolTip(f"{HEADLINE_SEVERAL}\n{tip}" if several else tip)
        self.models_table.setVisible(several and bool(self._ranked))
        if several:
            self.models_table.set_models(self._ranked, result.n_test_texts)
        index = TAB_NAMES.index("Confusion matrix")
        self.tabs.setTabText(index, CATEGORY_TABLES_TAB if several else "Confusion matrix")
        self.tabs.setTabToolTip(index, CATEGORY_TABLES_TIP if several else CONFUSION_TIP)
        self.heatmap_scroll.setVisible(not several)
        self.check_codings_button.setVisible(not several)  # it looks for texts placed in one other category
        self.save_heatmap_button.setVisible(not several)
        self.category_scroll.setVisible(several)
        terms = MULTI_LABEL_RESULT_TERMS if several else RESULT_TERMS
        for label in (self.category_caption, self.confusion_caption):
            label.set_terms(terms)
        self.summary_label.setToolTip(explain(["macro-F1", "micro-F1", "subset accuracy"] if several
                                              else ["macro-F1", "accuracy"]))

    def clear(self) -> None:
        self.result = None
        self._comparison_slot.cancel()
        self.comparison.clear()
        self.groups.clear()
        self.export.cancel()
        self.export.set_result(None)
        self._ranked = []
        self.picker.clear()
        self.stack.setCurrentWidget(self.empty)

    def set_data_note(self, text: str) -> None:
        """A warning above the results (e.g. the data file changed since they were computed); "" hides it."""
        self.data_note_label.setText(text)
        self.data_note_label.setVisible(bool(text))

    def data_note(self) -> str:
        return self.data_note_label.text() if not self.data_note_label.isHidden() else ""

    def choose_model(self, name: str) -> None:
        """Show the details of the model called ``name``."""
        index = self.picker.findData(name)
        if index >= 0:
            self.picker.setCurrentIndex(index)

    def chosen_model(self) -> ModelResult | None:
        index = self.picker.currentIndex()
        return self._ranked[index] if 0 <= index < len(self._ranked) else None

    def model_names(self) -> list[str]:
        """The models in the picker, best first."""
        return [self.picker.itemData(i) for i in range(self.picker.count())]

    def headline_text(self) -> str:
        return headline(self.result)[1] if self.result is not None else ""

    def caution_text(self) -> str:
        return self.caution_label.text() if self.caution_label.isVisibleTo(self) else ""

    def failed_texts(self) -> list[str]:
        """"name: message" for every model that did not finish."""
        if self.result is None:
            return []
        return [f"{model.name}: {model.message or 'did not finish'}" for model in self.result.models if not model.ok]

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TAB_NAMES.index(name))

    def saved_folder(self) -> str:
        """Where the chosen model was saved ("" when it was not)."""
        model = self.chosen_model()
        return model.artefact if model is not None else ""

    def show_model_folder(self) -> bool:
        """Open the chosen model's folder in the file manager; False when it does not exist."""
        folder = self.saved_folder()
        if not folder or not Path(folder).is_dir():
            self.statusMessage.emit("The folder of the saved model no longer exists.")
            return False
        return QDesktopServices.openUrl(QUrl.fromLocalFile(folder))

    # -- layout --------------------------------------------------------------------------------------
    def _overview_height(self, total: int) -> int:
        """Give the chart of all models the room it needs (up to 55 %), the details the rest."""
        self._overview.adjustSize()
        need = self._overview.sizeHint().height() + 4
        return max(min(need, int(total * (0.55 if total > 560 else 0.5))), min(150, total // 2))

    def _cell_clicked(self, human: int, predicted: int) -> None:
        model = self.chosen_model()
        if model is not None:
            self.confusionCellClicked.emit(model.name, human, predicted)

    # -- details ----------------------------------------------------------------------------------------
    def _failed_html(self, failed: list[ModelResult]) -> str:
        if not failed:
            return ""
        lines = [f"<b>Did not finish ({len(failed)}):</b>"]
        for model in failed:
            message = model.message or ("Cancelled." if model.status == "cancelled" else "No message.")
            lines.append(f"<b>{html.escape(model.name)}</b> — "
                         f"<span style='color:{theme.ERROR_STRONG};'>{html.escape(message)}</span>")
        return "<br>".join(lines)

