"""The bar chart of the words a category relies on, over many documents: the best-ranked words at a
glance, red toward the category and blue away, as in the coloured texts.
:class:`~guiapp.ui.steps.documents.corpus_words_view.CorpusWordsView` shows it beside the table."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QToolTip, QWidget

from guiapp.core.explain.corpus_table import RANKING, CorpusWord
from guiapp.core.export.highlight_html import AWAY_RGB, TOWARD_RGB, format_score
from guiapp.ui.common.chart_base import GRID_ALPHA, ChartWidget, chart_font
from guiapp.ui.steps.documents.explanation_terms import WEIGHTED_TIP


class WordBarChart(ChartWidget):
    """Horizontal bars of weighted scores, best-ranked at the top, the word written at the left."""

    ROW_PIXELS = 22

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._default_name = "words-per-category"
        item = self.getPlotItem()
        item.getViewBox().invertY(True)
        item.showGrid(x=True, y=False, alpha=GRID_ALPHA)
        item.getAxis("left").setStyle(tickLength=0, autoExpandTextSpace=False)
        item.getAxis("bottom").setStyle(maxTickLevel=0)
        self._set_axis_label("bottom", f"Weighted score toward the category ({RANKING})")
        self._rows: list[CorpusWord] = []
        self._bars: pg.BarGraphItem | None = None
        self._message_item: pg.TextItem | None = None
        self.setToolTip(WEIGHTED_TIP)
        self.scene().sigMouseMoved.connect(self._hover)
        self._ready = True
        self.set_rows([])

    def sizeHint(self) -> QSize:
        return QSize(420, 420)

    def set_rows(self, rows: list[CorpusWord], empty: str = "No words to show for this category") -> None:
        self._rows = list(rows)
        item = self.getPlotItem()
        item.clear()
        self._bars = None
        self._message_item = None
        left = item.getAxis("left")
        if not self._rows:
            left.setTicks([[]])
            left.setWidth(20)
            self._message_item = self._message(empty)
            return
        n = len(self._rows)
        scores = np.array([row.weighted_score for row in self._rows], dtype=float)
        brushes = [pg.mkBrush(*(TOWARD_RGB if s >= 0 else AWAY_RGB)) for s in scores]
        self._bars = pg.BarGraphItem(x0=np.zeros(n), y=np.arange(n, dtype=float), height=0.7, width=scores,
                                     brushes=brushes, pens=[pg.mkPen(None)] * n)
        item.addItem(self._bars)
        metrics = QFontMetrics(chart_font(9))
        names = [metrics.elidedText(row.word, Qt.TextElideMode.ElideRight, 160) for row in self._rows]
        left.setTicks([[(float(i), name) for i, name in enumerate(names)]])
        left.setWidth(max(metrics.horizontalAdvance(name) for name in names) + 14)
        low, high = min(0.0, float(scores.min())), max(0.0, float(scores.max()))
        span = (high - low) or 1.0
        item.getViewBox().setRange(xRange=(low - span * 0.02, high + span * 0.04), yRange=(-0.6, n - 0.4), padding=0)

    def words(self) -> list[str]:
        return [row.word for row in self._rows]

    def values(self) -> list[float]:
        """The bars' lengths: the weighted scores."""
        return [row.weighted_score for row in self._rows]

    def bar_item(self) -> pg.BarGraphItem | None:
        return self._bars

    def message(self) -> str | None:
        return self._message_item.toPlainText() if self._message_item else None

    def _hover(self, scene_pos: QPointF) -> None:
        view = self.getPlotItem().getViewBox()
        if not self._rows or not view.sceneBoundingRect().contains(scene_pos):
            return
        index = round(view.mapSceneToView(scene_pos).y())
        if 0 <= index < len(self._rows):
            row = self._rows[index]
            tip = (f"“{row.word}”: weighted score {format_score(row.weighted_score)} toward “{row.category}” "
                   f"(mean score {format_score(row.mean_score)} × log₂(1 + {row.documents:,} documents)), "
                   f"{row.occurrences:,} times in {row.documents:,} documents")
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), tip, self)
