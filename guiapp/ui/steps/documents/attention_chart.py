"""The attention heatmap of one text: rows are the word pieces that pay attention, columns the pieces
they pay it to, in a white-to-purple ramp (deliberately unlike the red/blue of the word colours).
:class:`~guiapp.ui.steps.documents.attention_heatmap.AttentionView` shows it with its choosers."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSize
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QToolTip, QWidget

from guiapp.ui import theme
from guiapp.ui.common.chart_base import ChartWidget, chart_font
from guiapp.ui.common.confusion_heatmap import ColumnNamesAxis
from guiapp.ui.steps.documents.explanation_terms import ATTENTION_TIP

COLOUR_MAP = pg.ColorMap([0.0, 0.5, 1.0], list(theme.ATTENTION_RGB))
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
