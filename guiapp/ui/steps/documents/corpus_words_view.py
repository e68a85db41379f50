"""The words a model relies on for each category, over many documents: a bar chart and a table.

The chart shows the best-ranked words at a glance (red toward the category, blue away, as in the
coloured texts); the table beside it holds the category's top words with their counts and can be
sorted by any column. Words are ranked by a weighted score that counts how many documents hold
them (mean score × log₂(1 + documents), :mod:`guiapp.core.explain.corpus_table`), and only words
found in at least a minimum number of documents are listed (3 unless the researcher changes it in
the spin box), so one odd document cannot put a word at the top. The note under the chooser says
how the words were chosen and ranked, and whether punctuation is among them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, QSortFilterProxyModel, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.explain.attribution import METHOD_NAMES
from guiapp.core.explain.corpus_table import (
    DEFAULT_MIN_DOCUMENTS,
    MAX_MIN_DOCUMENTS,
    CorpusWords,
)
from guiapp.core.export.highlight_html import format_score
from guiapp.ui import theme
from guiapp.ui.steps.documents.explanation_terms import ATTRIBUTION_TIP, COEFFICIENT_TIP, MEAN_SCORE_TIP, WEIGHTED_TIP
from guiapp.ui.common.lazy_widget import Footprint, LazyWidget

if TYPE_CHECKING:
    from guiapp.ui.steps.documents.word_bar_chart import WordBarChart

TOP_BARS = 15
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
MINIMUM_TIP = ("Only words found in at least this many of the explained documents are listed, so that a word met "
               "once or twice cannot top the list because of one document.")
HEADERS = ["Word", "Weighted score", "Mean score", "Occurrences", "Documents", "Coefficient"]
HEADER_TIPS = [
    "The word as it is usually written in your texts.",
    WEIGHTED_TIP,
    MEAN_SCORE_TIP,
    "How often the word occurs in the explained documents.",
    "In how many of the explained documents the word occurs.",
    COEFFICIENT_TIP,
]
COEFFICIENT_COLUMN = 5
# what the empty chart asks of the layout (tests compare), so the view lays out the same before it is made
CHART_FOOTPRINT = Footprint(QSize(420, 420), QSize(68, 68), policy=QSizePolicy.Policy.Expanding)


def _item(text: str, sort_value: object, align_right: bool = False) -> QStandardItem:
    item = QStandardItem(text)
    item.setData(sort_value, SORT_ROLE)
    item.setEditable(False)
    if align_right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class CorpusWordsView(QWidget):
    """Category chooser, minimum of documents, bar chart of the top words, sortable table of them,
    and the sentences that say how they were found and ranked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._words: CorpusWords | None = None
        self._category = QComboBox()
        self._category.setToolTip("The category whose words are shown.")
        self._category.currentIndexChanged.connect(self._redraw)
        self._minimum = QSpinBox(objectName="corpusWordsMinimum")
        self._minimum.setRange(1, MAX_MIN_DOCUMENTS)
        self._minimum.setValue(DEFAULT_MIN_DOCUMENTS)
        self._minimum.setToolTip(MINIMUM_TIP)
        self._minimum.valueChanged.connect(self._redraw)
        self._note = QLabel(objectName="corpusWordsNote")
        self._note.setWordWrap(True)
        self._note.setStyleSheet(theme.MUTED_STYLE)
        self._note.setToolTip(WEIGHTED_TIP)
        self._sentence = QLabel()
        self._sentence.setWordWrap(True)
        self._sentence.setStyleSheet(theme.SOFT_STYLE)
        self._sentence.setToolTip(ATTRIBUTION_TIP)
        self._chart = LazyWidget(_make_chart, footprint=CHART_FOOTPRINT)  # loads pyqtgraph: made when first shown
        self._model = QStandardItemModel(0, len(HEADERS))
        self._model.setHorizontalHeaderLabels(HEADERS)
        for column, tip in enumerate(HEADER_TIPS):
            self._model.horizontalHeaderItem(column).setToolTip(tip)
        self._proxy = QSortFilterProxyModel()
        self._proxy.setSourceModel(self._model)
        self._proxy.setSortRole(SORT_ROLE)
        self._table = QTableView()
        self._table.setModel(self._proxy)
        self._table.setSortingEnabled(True)
        self._table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self._table.verticalHeader().hide()
        self._table.setAlternatingRowColors(True)
        header = self._table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self._table.setMinimumWidth(380)
        top = QHBoxLayout()
        top.addWidget(QLabel("Category:"))
        top.addWidget(self._category)
        top.addSpacing(16)
        minimum_label = QLabel("Words found in at least")
        minimum_label.setToolTip(MINIMUM_TIP)
        top.addWidget(minimum_label)
        top.addWidget(self._minimum)
        top.addWidget(QLabel("documents"))
        top.addStretch(1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._chart)
        splitter.addWidget(self._table)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self._sentence)
        layout.addWidget(self._note)
        layout.addWidget(splitter, 1)
        self.clear()

    # ----- public API -------------------------------------------------------------------------
    def show_words(self, words: CorpusWords) -> None:
        self._words = words
        self._category.blockSignals(True)
        self._category.clear()
        self._category.addItems(words.categories)
        self._category.setEnabled(bool(words.categories))
        self._category.blockSignals(False)
        self._minimum.blockSignals(True)
        self._minimum.setValue(words.min_documents)
        self._minimum.setEnabled(True)
        self._minimum.blockSignals(False)
        method = METHOD_NAMES.get(words.method, words.method).lower()
        self._sentence.setText(
            f"Words that {words.model} relies on, averaged over {words.n_documents:,} explained "
            f"document{'s' if words.n_documents != 1 else ''} (word scores made by {method}). "
            "Red bars push toward the category, blue bars away from it."
        )
        self._redraw()

    def clear(self) -> None:
        self._words = None
        self._category.blockSignals(True)
        self._category.clear()
        self._category.setEnabled(False)
        self._category.blockSignals(False)
        self._sentence.setText("No documents have been explained yet.")
        self._note.setText("")
        self._note.setVisible(False)
        self._minimum.setEnabled(False)
        if self._chart.is_made():  # a chart not made yet is empty anyway
            self.chart().set_rows([])
        self._model.removeRows(0, self._model.rowCount())
        self._table.setColumnHidden(COEFFICIENT_COLUMN, True)

    def choose_category(self, category: str) -> None:
        self._category.setCurrentText(category)

    def min_documents(self) -> int:
        """The minimum number of documents a listed word is found in, as chosen."""
        return self._minimum.value()

    def set_min_documents(self, value: int) -> None:
        self._minimum.setValue(value)

    def note(self) -> str:
        """How the words were chosen and ranked (minimum of documents, ranking, punctuation)."""
        return self._note.text()

    # ----- what the user sees -----------------------------------------------------------------
    def sentence(self) -> str:
        return self._sentence.text()

    def chart(self) -> WordBarChart:
        return self._chart.widget()

    def table(self) -> QTableView:
        return self._table

    def visible_headers(self) -> list[str]:
        return [h for c, h in enumerate(HEADERS) if not self._table.isColumnHidden(c)]

    def table_rows(self) -> list[list[str]]:
        """The table as shown (sorted as the user sorted it), visible columns only."""
        columns = [c for c in range(len(HEADERS)) if not self._table.isColumnHidden(c)]
        return [[self._proxy.index(r, c).data() for c in columns] for r in range(self._proxy.rowCount())]

    # ----- drawing ----------------------------------------------------------------------------
    def _redraw(self) -> None:
        if self._words is None:
            return
        rows = self._words.for_category(self._category.currentText(), self.min_documents())  # best-ranked first
        self._note.setText(self._words.method_note(self.min_documents()))
        self._note.setVisible(True)
        least = self.min_documents()
        self.chart().set_rows(rows[:TOP_BARS], "No words to show for this category" if least <= 1 else
                             f"No word of this category is found in {least:,} or more documents: lower the minimum")
        self._model.removeRows(0, self._model.rowCount())
        for row in rows:
            coefficient = row.coefficient
            self._model.appendRow([
                _item(row.word, row.word.lower()),
                _item(format_score(row.weighted_score), row.weighted_score, True),
                _item(format_score(row.mean_score), row.mean_score, True),
                _item(f"{row.occurrences:,}", row.occurrences, True),
                _item(f"{row.documents:,}", row.documents, True),
                _item("" if coefficient is None else format_score(coefficient),
                      float("-inf") if coefficient is None else coefficient, True),
            ])
        self._table.setColumnHidden(COEFFICIENT_COLUMN, all(row.coefficient is None for row in self._words.rows))
        self._table.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # the ranking


def _make_chart() -> WordBarChart:
    from guiapp.ui.steps.documents.word_bar_chart import WordBarChart

    return WordBarChart()
