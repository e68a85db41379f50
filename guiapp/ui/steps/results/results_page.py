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
"""

from __future__ import annotations

import html
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.experiment.results.result_parts import DeviceUsed
from guiapp.core.experiment import ExperimentResult, ModelResult
from guiapp.core.explain.documents import DocumentFilter
from guiapp.core.stats.fold_interval import fold_interval
from guiapp.ui import theme
from guiapp.ui.steps.results.combined_details import (
    COMBINED_STAGES,
    COMBINED_TERMS,
    chosen_text,
    folds_text,
    how_text,
    is_combined,
    summary_part,
)
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.step_order import DOCUMENTS_STEP
from guiapp.ui.steps.results.category_confusions import CategoryConfusionGrid
from guiapp.ui.common.chart_numbers import format_row_share
from guiapp.ui.steps.results.comparison_view import ComparisonView
from guiapp.ui.common.empty_state import EmptyState
from guiapp.ui.common.fitting_splitter import FittingSplitter
from guiapp.ui.common.glossary import GlossaryLabel, explain
from guiapp.ui.common.layouts import STRETCH, vbox
from guiapp.ui.common.lazy_widget import LARGEST, Footprint, LazyWidget
from guiapp.ui.steps.results.learning_curve_panel import LearningCurvePanel
from guiapp.ui.steps.results.measures_line import MeasuresLine
from guiapp.ui.steps.results.results_export import ResultsExport
from guiapp.ui.steps.results.results_tables import (
    CategoryScoresTable,
    GridTable,
    ModelMeasuresTable,
    TimesTable,
    TransformerGridTable,
    describe_setting,
    transformer_stages,
)
from guiapp.ui.common.scroll_area import ScrollArea, fill
from guiapp.ui.steps.results.subgroup_view import SubgroupView
from guiapp.workers import Worker, WorkerSlot

if TYPE_CHECKING:  # the charts load pyqtgraph: each is made when first shown or drawn in
    from guiapp.ui.common.confusion_heatmap import ConfusionHeatmap
    from guiapp.ui.steps.results.results_charts import F1BarChart, TimeBarChart

# what the empty charts ask of the layout (tests compare), so the page lays out the same before they are made
BARS_FOOTPRINT = Footprint(QSize(700, 150), QSize(68, 68), QSize(0, 150), QSize(LARGEST, 150),
                           QSizePolicy.Policy.Expanding)
HEATMAP_FOOTPRINT = Footprint(QSize(640, 480), QSize(68, 68), QSize(200, 150), policy=QSizePolicy.Policy.Expanding)


def compare_models_job(result: ExperimentResult, on_event=None):  # noqa: ANN001 — a Worker's job
    from guiapp.core.experiment.scores.comparisons import compare_models

    return compare_models(result)

EMPTY_TITLE = "No results yet"
EMPTY_TEXT = "Run a study on the Run step: the comparison of your models appears here."
OVERLAP_TEXT = ("The top models' intervals overlap: the tab “Real difference?” below tells whether their "
                "difference is larger than chance.")
RESULT_TERMS = ["macro-F1", "F1", "precision", "recall", "support", "confusion matrix", "confidence interval",
                "interval", "cross-validation", "fold", "grid", "setting", "test text", "accuracy",
                "standard deviation", "validation split", "learning rate", "epoch", "GPU", "Transformer",
                "fine-tuning", "weight", "token", *COMBINED_TERMS]
MULTI_LABEL_RESULT_TERMS = [*RESULT_TERMS, "threshold", "per-category table", "micro-F1", "exact match", "Hamming loss"]
TAB_NAMES = ("Per category", "Confusion matrix", "Tuning", "Time", "Real difference?", "By group",
             "Learning curve")
CELL_CLICK_HINT = "Click a cell to read those documents."
# a study where a text can have several categories
MULTI_LABEL_TERMS = ["threshold", "per-category table", "micro-F1", "subset accuracy", "exact match", "Hamming loss"]
CATEGORY_TABLES_TAB = "Per-category tables"
CATEGORY_TABLES_TIP = ("A text can have several categories, so there is no confusion matrix: each category has its own "
                       "small yes/no table of the test texts instead.")
HEADLINE_SEVERAL = ("A text can have several categories in this study: each category is decided on its own, and "
                    "macro-F1 averages the categories' F1.")


def study_line(result: ExperimentResult) -> str:
    """Which study and data file a result belongs to, and when it was run (the line above the headline):
    Study “name” · data file.xlsx (1,122 rows) · run on 23 Nov 2026 14:02."""
    study = result.study_source
    parts = [f"Study “{study.study_name or 'untitled'}”"]
    if study.source:
        rows = study.rows
        parts.append(Path(study.source).name + (f" ({rows:,} rows)" if rows is not None else ""))
    fixes = study.category_fixes.summary()
    if fixes:
        parts.append(f"category fixes: {fixes}")
    when = _local_time(result.finished_at or result.started_at)
    if when:
        parts.append(f"run on {when}")
    return "  ·  ".join(parts)


def _local_time(stamp: str) -> str:
    """An ISO time stamp as local time in words ("23 Nov 2026 14:02"); "" when there is none."""
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return ""
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return f"{moment.day} {moment:%b %Y %H:%M}"


def headline(result: ExperimentResult) -> tuple[str, str]:
    """The headline as (rich text, plain text)."""
    best = result.best()
    if best is None:
        text = "No model finished, so there is nothing to compare yet. See below for what went wrong."
        return html.escape(text), text
    test = best.test
    interval = ""
    if test.macro_f1_ci:
        low, high = test.macro_f1_ci
        interval = f" ({test.ci_level * 100:.0f} % interval {low:.2f}–{high:.2f})"
    n_test = result.n_test_texts
    on = f" on {n_test:,} test texts" if n_test else ""
    several = len(result.finished_models()) > 1
    lead = "Recommended: " if several else "Agreement with your coding: "
    rest = f", macro-F1 {test.macro_f1:.2f}{interval}{on}."
    recommendation = result.recommendation() if several else None
    why = f" {recommendation.reason}" if recommendation is not None else ""
    return (f"{html.escape(lead)}<b>{html.escape(best.name)}</b>{html.escape(rest)}"
            + (f"<br><span style='font-weight: normal'>{html.escape(why.strip())}</span>" if why else ""),
            f"{lead}{best.name}{rest}{why}")


def intervals_overlap(result: ExperimentResult) -> bool:
    """True when the two best models' intervals overlap (their difference may be chance)."""
    ranked = result.ranked()
    if len(ranked) < 2 or not ranked[0].test.macro_f1_ci or not ranked[1].test.macro_f1_ci:
        return False
    return ranked[0].test.macro_f1_ci[0] <= ranked[1].test.macro_f1_ci[1]


def is_transformer(model: ModelResult) -> bool:
    return model.representation == "transformer"


def format_weights(n: int) -> str:
    """22_713_219 -> "22.7 M weights"."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} M weights"
    return f"{n:,} weights"


def device_text(device: DeviceUsed | None) -> str:
    """Where a Transformer trained (``ModelResult.device``), in plain words."""
    if device is None:
        return ""
    kind, name = device.kind, device.name
    if kind == "cuda":
        return f"{name or 'an NVIDIA graphics card'} (GPU)" + (", with 16-bit numbers (bf16)" if device.bf16 else "")
    if kind == "mps":
        return f"{name or 'the Apple GPU'} (Apple GPU)"
    return f"the processor ({name})" if name else "the processor (CPU)"


def tuning_sentence(model: ModelResult) -> str:
    """How a Transformer's setting was chosen, with why, in plain words."""
    how = model.tuning
    if not how:
        return ""
    if how.startswith("one validation split"):
        return (f"How the setting was chosen: on {how}. Each setting was fine-tuned once on the other training "
                "texts and compared on the texts set aside; cross-validation would fine-tune it once per fold, "
                "which takes hours without a GPU.")
    return f"How the setting was chosen: {how}, like the other models."


def _save_button(chart: LazyWidget, name: str) -> QPushButton:
    button = QPushButton("Save chart…", objectName=name)
    button.setToolTip("Save this chart as a PNG picture or an SVG drawing, e.g. for a paper.")
    button.clicked.connect(lambda: chart.widget().save_with_dialog())
    return button


class ResultsPage(QWidget):
    """Shows an :class:`ExperimentResult`; empty until :meth:`show_result` is called."""

    statusMessage = Signal(str)
    errorRaised = Signal(object, str)  # an error of an export, and what was being done
    confusionCellClicked = Signal(str, int, int)  # model, your coding's index, the prediction's index
    extendGridRequested = Signal(dict)  # the Transformer grid extended beyond the edge its best setting sits on

    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent)
        self.session = session or StudySession(self)
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
        title_row.addWidget(_save_button(self._f1_slot, "saveF1Chart"))
        overview = QWidget()
        self.models_table = ModelMeasuresTable()  # a text can have several categories: every measure per model
        self.models_table.hide()
        vbox(overview, title_row, self._f1_slot, self.models_table, self.failed_label, STRETCH, margins=(0, 0, 6, 0))
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
        self.tabs.currentChanged.connect(self._tab_changed)
        self.tabs.setTabToolTip(0, "How well the model does on each of your categories.")
        self.tabs.setTabToolTip(1, "Confusion matrix: " + explain(["confusion matrix"]).split(": ", 1)[1])
        self.tabs.setTabToolTip(2, "Which settings were tried and which one was chosen.")
        self.tabs.setTabToolTip(3, "How long each stage took.")
        self.tabs.setTabToolTip(4, "Whether the differences between the models are larger than chance, and how "
                                   "closely each model agrees with your coding (as a second coder would).")
        self.tabs.setTabToolTip(6, "How many more texts should you code? How each model's score grows with the "
                                   "number of coded training texts.")
        self.tabs.setTabToolTip(5, "Whether a model makes more mistakes for one party, year or outlet: the scores "
                                   "per value of a column of your table.")
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
        details = QWidget()
        vbox(details, picker_row, self.model_notes_label, self.saved_box, (self.tabs, 1), margins=(0, 6, 0, 0))

        self._overview = overview
        self.splitter = FittingSplitter(Qt.Orientation.Vertical, self._overview_height, name="resultsSplitter",
                                        stretch=(2, 3))
        self.splitter.addWidget(overview_scroll)
        self.splitter.addWidget(details)

        vbox(panel, self.study_label, self.data_note_label, self.headline_label, self.measures_line,
             self.caution_label, self.notes_label, (self.splitter, 1), self.export, margins=(16, 12, 16, 10), spacing=6)
        return panel

    def _build_category_tab(self) -> QWidget:
        tab = QWidget()
        self.category_caption = GlossaryLabel("", terms=RESULT_TERMS, objectName="categoryCaption")
        self.category_table = CategoryScoresTable()
        column = QVBoxLayout(tab)
        column.addWidget(self.category_caption)
        column.addWidget(self.category_table, 1)
        return tab

    def _build_confusion_tab(self) -> QWidget:
        tab = QWidget()
        self.confusion_caption = GlossaryLabel("", terms=RESULT_TERMS, objectName="confusionCaption")
        self._heatmap_slot = LazyWidget(self._make_heatmap, footprint=HEATMAP_FOOTPRINT)
        scroll = ScrollArea(self._heatmap_slot)
        self.heatmap_scroll = scroll
        check = QPushButton("Check my codings…", objectName="checkMyCodings", toolTip=(
            "Some mistakes may be in the coding, not in the model: list the coded texts a quick model, trained "
            "without each of them, places in another category, and keep or change each coding "
            "(on the Coding step; your file is not changed)."), clicked=self.session.check_codings)
        self.check_codings_button = check
        self.save_heatmap_button = _save_button(self._heatmap_slot, "saveHeatmap")
        # a text can have several categories: a small yes/no table per category instead of the matrix
        self.category_grid = CategoryConfusionGrid()
        self.category_scroll = ScrollArea(self.category_grid, name="categoryConfusionsScroll", sideways=False)
        self.category_scroll.hide()
        top = QHBoxLayout()
        top.addWidget(self.confusion_caption, 1)
        top.addWidget(check, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.save_heatmap_button, 0, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout(tab)
        column.addLayout(top)
        column.addWidget(scroll, 1)
        column.addWidget(self.category_scroll, 1)
        return tab

    def _build_tuning_tab(self) -> QWidget:
        tab = QWidget()
        self.tuning_label = GlossaryLabel("", terms=RESULT_TERMS)
        self.tuning_label.setObjectName("tuningMethod")
        self.chosen_label = GlossaryLabel("", terms=RESULT_TERMS)
        self.chosen_label.setObjectName("chosenSetting")
        self.folds_label = GlossaryLabel("", terms=RESULT_TERMS)
        self.folds_label.setObjectName("foldScores")
        self.grid_caption = GlossaryLabel("", terms=RESULT_TERMS)
        self.grid_caption.setObjectName("gridCaption")
        self.grid_caption.setStyleSheet(theme.NOTE_STYLE)
        self.grid_table = GridTable()
        self.transformer_grid = TransformerGridTable()
        self.extend_button = QPushButton("Try a wider grid…", objectName="extendGrid", toolTip=(
            "Add the next learning rate or number of epochs beyond the edge to the Transformer's grid on the "
            "Models step, to run the study again."), clicked=self._extend_grid)
        column = QVBoxLayout(tab)
        column.addWidget(self.tuning_label)
        column.addWidget(self.chosen_label)
        column.addWidget(self.folds_label)
        column.addWidget(self.grid_caption)
        column.addWidget(self.grid_table, 1)
        column.addWidget(self.transformer_grid)
        column.addWidget(self.extend_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.transformer_spacer = QWidget()
        column.addWidget(self.transformer_spacer, 1)
        return tab

    def _build_time_tab(self) -> QWidget:
        self.device_label = GlossaryLabel("", terms=RESULT_TERMS)
        self.device_label.setObjectName("timeDevice")
        self.times_table = TimesTable()
        self._time_slot = LazyWidget(self._make_time_chart, footprint=BARS_FOOTPRINT)
        chart_title = QLabel("Total time per model", objectName="timeChartTitle")
        chart_title.setStyleSheet(theme.BOLD_STYLE)
        title_row = QHBoxLayout()
        title_row.addWidget(chart_title, 1)
        title_row.addWidget(_save_button(self._time_slot, "saveTimeChart"))
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.addWidget(self.device_label)
        column.addWidget(self.times_table)
        column.addSpacing(6)
        column.addLayout(title_row)
        column.addWidget(self._time_slot)
        column.addStretch(1)
        return ScrollArea(inner)

    @property
    def f1_chart(self) -> F1BarChart:
        return self._f1_slot.widget()

    @property
    def heatmap(self) -> ConfusionHeatmap:
        return self._heatmap_slot.widget()

    @property
    def time_chart(self) -> TimeBarChart:
        return self._time_slot.widget()

    def _make_f1_chart(self) -> F1BarChart:
        from guiapp.ui.steps.results.results_charts import F1BarChart

        chart = F1BarChart()
        chart.setObjectName("f1Chart")
        chart.modelClicked.connect(self.choose_model)
        return chart

    def _make_heatmap(self) -> ConfusionHeatmap:
        from guiapp.ui.common.confusion_heatmap import ConfusionHeatmap

        heatmap = ConfusionHeatmap()
        heatmap.setObjectName("confusionHeatmap")
        heatmap.click_hint = CELL_CLICK_HINT
        heatmap.setToolTip(f"{CELL_CLICK_HINT} Right-click to save this chart as an image.")
        heatmap.cellClicked.connect(self._cell_clicked)
        return heatmap

    def _make_time_chart(self) -> TimeBarChart:
        from guiapp.ui.steps.results.results_charts import TimeBarChart

        chart = TimeBarChart()
        chart.setObjectName("timeChart")
        chart.modelClicked.connect(self.choose_model)
        return chart

    def _build_comparison_tab(self) -> QWidget:
        self.comparison = ComparisonView()
        self.comparison.setObjectName("comparisonView")
        self._comparison_slot = WorkerSlot(self)
        return ScrollArea(self.comparison)

    def _build_groups_tab(self) -> QWidget:
        self.groups = SubgroupView()
        self.groups.setObjectName("subgroupView")
        self.export.subgroups = lambda: self.groups.scores  # the groups shown go into the Excel export too
        return ScrollArea(self.groups)

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
        self.tabs.setTabToolTip(index, CATEGORY_TABLES_TIP if several else
                                "Confusion matrix: " + explain(["confusion matrix"]).split(": ", 1)[1])
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

    def _model_chosen(self, index: int) -> None:
        model = self.chosen_model()
        if model is None or self.result is None:
            return
        self.session.choose_model(model.name)
        test = model.test
        rank = self._ranked.index(model) + 1
        parts = [f"macro-F1 {test.macro_f1:.2f}"]
        if test.macro_f1_ci:
            parts[0] += f" ({test.macro_f1_ci[0]:.2f}–{test.macro_f1_ci[1]:.2f})"
        if test.multi_label:
            parts.append(f"micro-F1 {test.micro_f1 or 0:.2f}")
            parts.append(f"all categories right for {format_row_share(test.accuracy)} of the texts")
        else:
            parts.append(f"accuracy {test.accuracy:.2f}")
        parts.append(f"rank {rank} of {len(self._ranked)}")
        transformer = is_transformer(model)
        if is_combined(model):
            parts.append(summary_part(model))
        elif model.n_features:
            parts.append(format_weights(model.n_features) if transformer
                         else f"each text is {model.n_features:,} numbers")
        device = device_text(model.device) if transformer else ""
        if device:
            parts.append(f"trained on {device}")
        self.summary_label.setText("  ·  ".join(parts))
        self._show_notes(model)

        n_test = self.result.n_test_texts
        if test.multi_label:
            self._show_categories(model)
        else:
            self.category_caption.set_plain_text(
                f"How {model.name} does on each category of the {n_test:,} test texts. Precision: how often it "
                "is right when it picks the category; recall: how many of your texts in the category it finds. "
                "Click a column title to sort."
            )
            self.category_table.set_scores(test.per_category)

            self.confusion_caption.set_plain_text(
                "Confusion matrix. Rows: your coding; columns: the model's choice. Each cell: number of test texts "
                "and share of the row. Blue: agreement; orange: mistakes; the stronger, the larger the share. "
                + CELL_CLICK_HINT
            )
            self.heatmap.set_matrix(self.result.categories, test.confusion)

        self._show_tuning(model)
        if transformer:
            self.times_table.set_seconds(model.seconds, transformer_stages(model.tuning))
        elif is_combined(model):
            self.times_table.set_seconds(model.seconds, COMBINED_STAGES)
        else:
            self.times_table.set_seconds(model.seconds)
        self.device_label.set_plain_text(f"{model.name} was trained on {device}." if device else "")
        self.device_label.setVisible(bool(device))
        self.time_chart.set_times([(m.name, m.total_seconds or 0.0) for m in self._ranked], highlight=model.name)

    def _show_categories(self, model: ModelResult) -> None:
        """The scores per category and the per-category tables where a text can have several categories."""
        from guiapp.core.export.multi_label_facts import thresholds_tuned

        result, test = self.result, model.test
        n_test = result.n_test_texts
        tuned = thresholds_tuned(result)
        rule = ("Each category is decided on its own: the model puts a text in a category when its probability for "
                "it reaches the category's threshold (" + ("tuned on the training texts, never on the test texts)."
                                                           if tuned else "0.5 for every category)."))
        self.category_caption.set_plain_text(
            f"How {model.name} does on each category of the {n_test:,} test texts. Precision: how often it is right "
            "when it puts a text in the category; recall: how many of your texts in the category it finds. "
            f"The interval is the range the F1 would likely take with other test texts. {rule} "
            "Click a column title to sort."
        )
        thresholds = model.thresholds if len(model.thresholds) == len(result.categories) else None
        self.category_table.set_scores(test.per_category, multi_label=True, thresholds=thresholds)
        self.confusion_caption.set_plain_text(
            f"One small table per category, for {model.name} on the {n_test:,} test texts. Rows: whether you coded "
            "a text with the category (yes / no); columns: whether the model put it there (yes / no). Each cell: "
            "number of test texts and share of the row. Blue: the model decided as you coded; orange: it missed "
            "or added the category; the stronger, the larger the share. Hover over a cell for a sentence."
        )
        self.category_grid.set_tables(result.categories, test.category_confusions or [], test.per_category,
                                      thresholds)

    def _show_notes(self, model: ModelResult) -> None:
        notes = model.notes
        self.model_notes_label.set_plain_text("Notes: " + " ".join(notes) if notes else "")
        self.model_notes_label.setVisible(bool(notes))
        folder = model.artefact
        self.saved_box.setVisible(bool(folder))
        if folder:
            exists = Path(folder).is_dir()
            self.saved_label.setText(f"The trained model was saved in: {folder}" + ("" if exists else " (no longer there)"))
            self.saved_label.setToolTip(
                "The fine-tuned model's files (safetensors weights, tokenizer, categories), to apply it to new "
                "texts later." if is_transformer(model) else "The saved model's files.")
            self.show_folder_button.setEnabled(exists)

    def _extend_grid(self) -> None:
        model = self.chosen_model()
        choice = model.setting_choice if model else None
        if choice is not None and choice.extended_grid:
            self.extendGridRequested.emit(dict(choice.extended_grid))

    def _show_tuning(self, model: ModelResult) -> None:
        choice = model.setting_choice
        self.extend_button.setVisible(bool(is_transformer(model) and choice is not None and choice.extended_grid))
        self.tabs.setTabText(TAB_NAMES.index("Tuning"), "How it combines" if is_combined(model) else "Tuning")
        if is_combined(model):
            self._show_combination(model)
            return
        setting = describe_setting(model.classifier, model.chosen_params)
        self.chosen_label.set_plain_text(f"Chosen setting: {setting}", bold_prefix="")
        transformer = is_transformer(model)
        tuning = tuning_sentence(model) if transformer else ""
        self.tuning_label.set_plain_text(tuning)
        self.tuning_label.setVisible(bool(tuning))
        self.grid_table.setVisible(not transformer)
        self.transformer_grid.setVisible(transformer)
        self.transformer_spacer.setVisible(transformer)
        if transformer:
            self._show_transformer_tuning(model)
            return
        scores = model.cv_scores
        if scores:
            folds = "  ·  ".join(f"{score:.2f}" for score in scores)
            self.folds_label.set_plain_text(
                f"Its macro-F1 on each of the {len(scores)} folds of cross-validation: {folds}  —  "
                f"mean {model.cv_mean:.2f}" + self._fold_interval(scores)
            )
        else:
            self.folds_label.set_plain_text("No cross-validation scores were recorded for this model.")
        if len(model.grid) > 1:
            self.grid_caption.set_plain_text(
                f"All {len(model.grid)} settings of the grid, best mean first. The chosen one is highlighted."
            )
        elif model.grid:
            self.grid_caption.set_plain_text("Only one setting was tried, so there was nothing to choose.")
        else:
            self.grid_caption.set_plain_text("No tuning results were recorded for this model.")
        self.grid_table.set_grid(model.classifier, model.grid, model.chosen_params)

    def _fold_interval(self, scores: list[float]) -> str:
        """The mean's 95 % interval across folds (``fold_interval``), e.g. " (95 % interval 0.71–0.77)";
        "" when there is none (fewer than 3 folds)."""
        if self.result is None:
            return ""
        interval = fold_interval(scores, self.result.test_split.n_train or 0, self.result.protocol.folds)
        return f" (95 % interval {interval[0]:.2f}–{interval[1]:.2f})" if interval else ""

    def _show_combination(self, model: ModelResult) -> None:
        self.tuning_label.set_plain_text(chosen_text(model))
        self.chosen_label.set_plain_text(how_text(model))
        self.tuning_label.setVisible(True)
        self.folds_label.set_plain_text(folds_text(model))
        self.grid_caption.set_plain_text("")
        self.grid_table.setVisible(False)
        self.transformer_grid.setVisible(False)
        self.transformer_spacer.setVisible(True)

    def _show_transformer_tuning(self, model: ModelResult) -> None:
        split = model.tuning.startswith("one validation split")
        held_out = "the validation texts" if split else "the folds of cross-validation (mean)"
        scores = model.cv_scores
        if split and scores:
            self.folds_label.set_plain_text(f"Its macro-F1 on the validation texts: {scores[0]:.2f}")
        elif scores:
            folds = "  ·  ".join(f"{score:.2f}" for score in scores)
            self.folds_label.set_plain_text(
                f"Its macro-F1 on each of the {len(scores)} folds of cross-validation: {folds}  —  "
                f"mean {model.cv_mean:.2f}")
        else:
            self.folds_label.set_plain_text("No tuning scores were recorded for this model.")
        n = len(model.grid)
        if n > 1:
            self.grid_caption.set_plain_text(
                f"The {n} settings tried: learning rate (rows) × epochs (columns). Each cell is the macro-F1 on "
                f"{held_out}; the chosen one is highlighted. Hover over a cell for its time.")
        elif n:
            self.grid_caption.set_plain_text("Only one setting was tried, so there was nothing to choose.")
        else:
            self.grid_caption.set_plain_text("No tuning results were recorded for this model.")
        self.transformer_grid.set_grid(model.grid, model.chosen_params, held_out)
