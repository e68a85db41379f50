"""Where a Transformer looked in one text: a token × token attention heatmap with its choosers.

Attention is easy to over-read, so the view leads with :data:`ATTENTION_CAUTION` and points to the
word colours (attributions) for *why* the model decided. The colours are a white-to-purple ramp,
deliberately unlike the red/blue of the word colours, so the two are never confused.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QToolTip, QVBoxLayout, QWidget

from guiapp.core.explain.attention_maps import ATTENTION_CAUTION, AttentionMaps
from guiapp.ui import theme
from guiapp.ui.widgets.chart_base import ChartWidget, chart_font
from guiapp.ui.widgets.confusion_heatmap import ColumnNamesAxis
from guiapp.ui.widgets.explanation_terms import ATTENTION_TIP, HEAD_TIP, LAYER_TIP, ROLLOUT_TIP

ROLLOUT = "Rollout across layers"
ALL_HEADS = "All heads, averaged"
COLOUR_MAP = pg.ColorMap([0.0, 0.5, 1.0], list(theme.ATTENTION_RGB))
CAUTION_STYLE = (f"background-color:{theme.WARNING_BACKGROUND}; border:1px solid {theme.FLAG_COLOR}; "
                 f"border-radius:4px; padding:8px; color:{theme.CAUTION_TEXT};")
SHORT_TOKEN = 12  # longer tokens are shortened with "…" on the axes


def short_token(token: str) -> str:
    return token if len(token) <= SHORT_TOKEN else token[:SHORT_TOKEN - 1] + "…"


class AttentionHeatmap(ChartWidget):
    """Rows: the token that pays attention; columns: the token it pays attention to."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self._columns_axis = ColumnNamesAxis()
        super().__init__(parent, bottom_axis=self._columns_axis)
        self._default_name = "attention"
        item = self.getPlotItem()
        item.getViewBox().invertY(True)
        item.getAxis("left").setStyle(tickLength=0, autoExpandTextSpace=False)
        self._columns_axis.setStyle(tickLength=3)
        self._set_axis_label("left", "This word piece…")
        self._set_axis_label("bottom", "…pays this much attention to this one")
        self._tokens: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._image = pg.ImageItem(axisOrder="row-major")
        item.addItem(self._image)
        self._bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=COLOUR_MAP, interactive=False,
                                    colorMapMenu=False, width=16)
        self._bar.setImageItem(self._image, insert_in=item)
        self._bar.axis.setTextPen(pg.mkPen(theme.TEXT_COLOR))
        self._bar.axis.enableAutoSIPrefix(False)
        self._bar.axis.setLabel("Share of attention", color=theme.TEXT_COLOR)
        self._bar.axis.setTickFont(chart_font(8))
        self._left_names: list[str] = []
        self.setMinimumSize(300, 300)  # fits the Documents step's reading pane in a 1024-pixel window
        self.setToolTip(ATTENTION_TIP)
        self.scene().sigMouseMoved.connect(self._hover)
        self._ready = True

    def sizeHint(self) -> QSize:
        return QSize(760, 680)

    def set_matrix(self, tokens: list[str], matrix: np.ndarray) -> None:
        """Draw ``matrix[i, j]`` (how much token i attends to token j), white 0 to purple max."""
        self._tokens = [str(t) for t in tokens]
        self._matrix = np.asarray(matrix, dtype=np.float32)
        n = len(self._tokens)
        top = float(self._matrix.max()) if self._matrix.size else 1.0
        top = top if top > 0 else 1.0
        self._image.setImage(self._matrix if n else np.zeros((1, 1), np.float32), autoLevels=False)
        self._image.setRect(QRectF(-0.5, -0.5, max(n, 1), max(n, 1)))
        self._bar.setLevels((0.0, top))
        self._image.setLevels((0.0, top))
        self._refit()

    def matrix(self) -> np.ndarray:
        return self._matrix.copy()

    def image_data(self) -> np.ndarray | None:
        """What the image item draws."""
        return self._image.image

    def tokens(self) -> list[str]:
        return list(self._tokens)

    def row_labels(self) -> list[str]:
        """The labels down the side (blank where rows are too thin to label every one)."""
        return list(self._left_names)

    def column_labels(self) -> list[str]:
        return self._columns_axis.shown_names()

    def hover_text(self, row: int, column: int) -> str:
        """"«tax» → «the»: 0.23"."""
        return f"«{self._tokens[row]}» → «{self._tokens[column]}»: {self._matrix[row, column]:.2f}"

    def _names_every(self, step: int) -> list[str]:
        return [short_token(t) if i % step == 0 else "" for i, t in enumerate(self._tokens)]

    def _refit(self) -> None:
        n = len(self._tokens)
        item = self.getPlotItem()
        left = item.getAxis("left")
        if n == 0:
            left.setTicks([[]])
            self._columns_axis.set_names([])
            self._left_names = []
            return
        font_size = 9.0 if n <= 40 else 8.0
        metrics = QFontMetrics(chart_font(font_size))
        cell = max(1.0, (min(self.width(), self.height()) - 200) / n)
        step = max(1, math.ceil((metrics.height() + 1) / cell))
        self._left_names = self._names_every(step)
        left.setTickFont(chart_font(font_size))
        left.setTicks([[(float(i), name) for i, name in enumerate(self._left_names) if name]])
        widest = max((metrics.horizontalAdvance(name) for name in self._left_names), default=0)
        left.setWidth(int(widest + 14 + left.label.boundingRect().height()))
        self._columns_axis.set_names(self._names_every(step))
        self._columns_axis.layout_for(cell * step, font_size)
        item.getViewBox().setRange(xRange=(-0.5, n - 0.5), yRange=(-0.5, n - 0.5), padding=0)

    def _hover(self, scene_pos: QPointF) -> None:
        n = len(self._tokens)
        view = self.getPlotItem().getViewBox()
        if n == 0 or not view.sceneBoundingRect().contains(scene_pos):
            return
        point = view.mapSceneToView(scene_pos)
        row, column = round(point.y()), round(point.x())
        if 0 <= row < n and 0 <= column < n:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), self.hover_text(row, column), self)


class AttentionView(QWidget):
    """The caution, the layer and head choosers, and the heatmap of one text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._maps: AttentionMaps | None = None
        self._caution = QLabel(
            f"<b>Read with care.</b> {ATTENTION_CAUTION} "
            "For why the model chose its category, look at the coloured words of the text."
        )
        self._caution.setWordWrap(True)
        self._caution.setTextFormat(Qt.TextFormat.RichText)
        self._caution.setStyleSheet(f"QLabel {{{CAUTION_STYLE}}}")
        self._caution.setToolTip(ATTENTION_TIP)
        self._layer = QComboBox()
        self._layer.setToolTip(f"{LAYER_TIP}\n{ROLLOUT_TIP}")
        self._head = QComboBox()
        self._head.setToolTip(HEAD_TIP)
        self._layer.currentIndexChanged.connect(self._redraw)
        self._head.currentIndexChanged.connect(self._redraw)
        self._message = QLabel()
        self._message.setWordWrap(True)
        self._message.setStyleSheet(theme.NOTE_STYLE)
        self._chart = AttentionHeatmap()
        choosers = QHBoxLayout()
        choosers.addWidget(QLabel("Layer:"))
        choosers.addWidget(self._layer)
        choosers.addSpacing(16)
        choosers.addWidget(QLabel("Heads:"))
        choosers.addWidget(self._head)
        choosers.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._caution)
        layout.addLayout(choosers)
        layout.addWidget(self._message)
        layout.addWidget(self._chart, 1)
        self.clear()

    # ----- public API -------------------------------------------------------------------------
    def show_maps(self, maps: AttentionMaps) -> None:
        """Show the attention of one text; starts on the rollout (a summary of all layers)."""
        self._maps = maps
        for box in (self._layer, self._head):
            box.blockSignals(True)
            box.clear()
        last = maps.n_layers
        self._layer.addItems([f"Layer {i + 1}" + (" (closest to the words)" if i == 0 else
                                                  " (last)" if i + 1 == last else "") for i in range(last)])
        self._layer.addItem(ROLLOUT)
        self._layer.setCurrentIndex(last)
        self._head.addItem(ALL_HEADS)
        self._head.addItems([f"Head {i + 1}" for i in range(maps.n_heads)])
        for box in (self._layer, self._head):
            box.setEnabled(True)
            box.blockSignals(False)
        self._redraw()

    def clear(self) -> None:
        self._maps = None
        for box in (self._layer, self._head):
            box.blockSignals(True)
            box.clear()
            box.setEnabled(False)
            box.blockSignals(False)
        self._message.setText("Attention is available for Transformer models only; choose a document "
                              "explained by a Transformer to see it.")
        self._chart.set_matrix([], np.zeros((0, 0)))

    def choose(self, layer: int | None, head: int | None = None) -> None:
        """Show one layer (0-based; None: the rollout) and head (None: all heads averaged)."""
        if self._maps is None:
            return
        self._layer.setCurrentIndex(self._maps.n_layers if layer is None else layer)
        self._head.setCurrentIndex(0 if head is None else head + 1)

    # ----- what the user sees -----------------------------------------------------------------
    def chart(self) -> AttentionHeatmap:
        return self._chart

    def caution(self) -> str:
        return self._caution.text()

    def message(self) -> str:
        return self._message.text()

    def layer_choices(self) -> list[str]:
        return [self._layer.itemText(i) for i in range(self._layer.count())]

    def head_choices(self) -> list[str]:
        return [self._head.itemText(i) for i in range(self._head.count())]

    def heads_enabled(self) -> bool:
        return self._head.isEnabled()

    # ----- drawing ----------------------------------------------------------------------------
    def _redraw(self) -> None:
        maps = self._maps
        if maps is None:
            return
        layer = self._layer.currentIndex()
        rollout = layer >= maps.n_layers or layer < 0
        self._head.setEnabled(not rollout)
        if rollout:
            matrix = maps.rollout
            what = "the attention of all layers combined (rollout)"
        else:
            head = self._head.currentIndex() - 1
            matrix = maps.attentions[layer].mean(axis=0) if head < 0 else maps.attentions[layer, head]
            heads = "all heads averaged" if head < 0 else f"head {head + 1}"
            what = f"layer {layer + 1}, {heads}"
        sentence = (f"{maps.model}, {what}. Each row is one word piece of the text; the darker a square, "
                    f"the more of that row's attention goes to the piece in its column (each row adds up to 1).")
        if maps.cut:
            sentence += " The text was longer than the model reads: only the pieces it read are shown."
        self._message.setText(sentence)
        self._message.setToolTip(ROLLOUT_TIP if rollout else ATTENTION_TIP)
        self._chart.set_matrix(maps.tokens, matrix)
