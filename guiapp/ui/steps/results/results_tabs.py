"""The tabs of a model's details on the Results step — scores per category, confusion matrix, tuning,
time, "Real difference?" and "By group" — with the charts they draw once first shown.

:class:`ResultsTabs` builds them for :class:`~guiapp.ui.steps.results.results_page.ResultsPage`: their
widgets are the page's attributes, filled when a model is chosen (``model_details``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from guiapp.ui import theme
from guiapp.ui.common.glossary import GlossaryLabel, explain
from guiapp.ui.common.lazy_widget import LARGEST, Footprint, LazyWidget
from guiapp.ui.common.save_chart_button import save_chart_button
from guiapp.ui.common.scroll_area import ScrollArea
from guiapp.ui.steps.results.category_confusions import CategoryConfusionGrid
from guiapp.ui.steps.results.combined_details import COMBINED_TERMS
from guiapp.ui.steps.results.comparison_view import ComparisonView
from guiapp.ui.steps.results.results_tables import CategoryScoresTable, GridTable, TimesTable, TransformerGridTable
from guiapp.ui.steps.results.subgroup_view import SubgroupView
from guiapp.workers import WorkerSlot

if TYPE_CHECKING:  # the charts load pyqtgraph: each is made when first shown or drawn in
    from guiapp.ui.common.confusion_heatmap import ConfusionHeatmap
    from guiapp.ui.steps.results.results_charts import F1BarChart, TimeBarChart

# what the empty charts ask of the layout (tests compare), so the page lays out the same before they are made
BARS_FOOTPRINT = Footprint(QSize(700, 150), QSize(68, 68), QSize(0, 150), QSize(LARGEST, 150),
                           QSizePolicy.Policy.Expanding)
HEATMAP_FOOTPRINT = Footprint(QSize(640, 480), QSize(68, 68), QSize(200, 150), policy=QSizePolicy.Policy.Expanding)

RESULT_TERMS = ["macro-F1", "F1", "precision", "recall", "support", "confusion matrix", "confidence interval",
                "interval", "cross-validation", "fold", "grid", "setting", "test text", "accuracy",
                "standard deviation", "validation split", "learning rate", "epoch", "GPU", "Transformer",
                "fine-tuning", "weight", "token", *COMBINED_TERMS]
MULTI_LABEL_RESULT_TERMS = [*RESULT_TERMS, "threshold", "per-category table", "micro-F1", "exact match", "Hamming loss"]
TAB_NAMES = ("Per category", "Confusion matrix", "Tuning", "Time", "Real difference?", "By group",
             "Learning curve")
CELL_CLICK_HINT = "Click a cell to read those documents."
CONFUSION_TIP = "Confusion matrix: " + explain(["confusion matrix"]).split(": ", 1)[1]
TAB_TIPS = (  # in the order of TAB_NAMES
    "How well the model does on each of your categories.",
    CONFUSION_TIP,
    "Which settings were tried and which one was chosen.",
    "How long each stage took.",
    "Whether the differences between the models are larger than chance, and how closely each model agrees with "
    "your coding (as a second coder would).",
    "Whether a model makes more mistakes for one party, year or outlet: the scores per value of a column of your "
    "table.",
    "How many more texts should you code? How each model's score grows with the number of coded training texts.",
)


class ResultsTabs:
    """The Results page's tab builders and lazily made charts (mixed into ``ResultsPage``)."""

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
        self.save_heatmap_button = save_chart_button(self._heatmap_slot.widget, "saveHeatmap")
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
        title_row.addWidget(save_chart_button(self._time_slot.widget, "saveTimeChart"))
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

        return self._bar_chart(F1BarChart(), "f1Chart")

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

        return self._bar_chart(TimeBarChart(), "timeChart")

    def _bar_chart(self, chart, name: str):  # noqa: ANN001 — an F1BarChart or a TimeBarChart
        """A chart of one bar per model; clicking a bar shows that model's details."""
        chart.setObjectName(name)
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
