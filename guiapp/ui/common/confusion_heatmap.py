"""The confusion matrix of one model as a heatmap: counts and row percentages per cell, the
human coding down the side, the model's predictions along the bottom (names turn sideways when
they don't fit). Saved as PNG or SVG like every TextLab chart."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QTextOption
from PySide6.QtWidgets import QToolTip

from guiapp.ui.theme import AGREE_RGB, AXIS_COLOR, DISAGREE_RGB, EMPTY_CELL_RGB, TEXT_COLOR, WHITE
from guiapp.ui.common.chart_base import PLOT_MARGINS, ChartWidget, chart_font
from guiapp.ui.common.chart_numbers import format_count, format_row_share


class ColumnNamesAxis(pg.AxisItem):
    """A bottom axis that writes category names under the columns, upright when they fit and
    turned on their side when they do not; long names are shortened with "…"."""

    MAX_NAME_PIXELS = 150

    def __init__(self) -> None:
        super().__init__("bottom")
        self._names: list[str] = []
        self._shown: list[str] = []
        self._vertical = False
        self._font = chart_font(9)

    def set_names(self, names: Sequence[str]) -> None:
        self._names = [str(name) for name in names]
        self.setTicks([[(float(i), "") for i in range(len(self._names))]])
        self.picture = None
        self.update()

    def layout_for(self, cell_pixels: float, font_size: float) -> None:
        """Choose upright or sideways names for columns ``cell_pixels`` wide; set the height."""
        self._font = chart_font(font_size)
        metrics = QFontMetrics(self._font)
        widest = max((metrics.horizontalAdvance(name) for name in self._names), default=0)
        self._vertical = widest > cell_pixels - 6
        room = self.MAX_NAME_PIXELS if self._vertical else int(max(cell_pixels - 6, 10))
        self._shown = [metrics.elidedText(name, Qt.TextElideMode.ElideRight, room) for name in self._names]
        longest = max((metrics.horizontalAdvance(s) for s in self._shown), default=0)
        label_height = self.label.boundingRect().height() if self.label.isVisible() else 0
        ticks = (longest + 10) if self._vertical else (metrics.height() + 6)
        self.setHeight(int(ticks + label_height + 2))
        self.picture = None
        self.update()

    def shown_names(self) -> list[str]:
        return list(self._shown or self._names)

    def is_vertical(self) -> bool:
        return self._vertical

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):
        super().drawPicture(p, axisSpec, tickSpecs, [])
        view = self.linkedView()
        if view is None or not self._names:
            return
        p.setFont(self._font)
        p.setPen(self.textPen())
        metrics = QFontMetrics(self._font)
        top = 6.0
        for i, text in enumerate(self.shown_names()):
            x = self.mapFromItem(view, view.mapFromView(QPointF(i, 0))).x()
            width = metrics.horizontalAdvance(text)
            if self._vertical:
                p.save()
                p.translate(x + metrics.ascent() / 2 - 1, top)
                p.rotate(-90)
                p.drawText(QRectF(-width - 2, -metrics.ascent(), width + 2, metrics.height()),
                           int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop), text)
                p.restore()
            else:
                p.drawText(QRectF(x - width / 2 - 2, top, width + 4, metrics.height()),
                           int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop), text)


class ConfusionHeatmap(ChartWidget):
    """Rows: your coding; columns: the model's prediction. Each cell says how many test texts
    and which share of the row (of the texts you coded that way) it holds. Blue cells are
    agreements, orange cells mistakes; the stronger the colour, the larger the share.

    A left click on a cell emits ``cellClicked(row, column)``: your coding's index, the prediction's."""

    cellClicked = Signal(int, int)
    MIN_CELL = 28  # counts and shares still fit (in a smaller font); 20 categories fit a 1024-pixel window
    MAX_NAME_PIXELS = 220
    MIN_NAME_PIXELS = 100  # the row names when room is short (shortened with "…"; whole in the tooltip)
    FRAME_PIXELS = 60  # the axis title and margins around the cells
    EMPTY_TEXT = "No confusion matrix to show"
    click_hint = ""  # added to every cell's tooltip by pages that act on cellClicked

    def __init__(self, parent=None) -> None:
        self._columns_axis = ColumnNamesAxis()
        super().__init__(parent, bottom_axis=self._columns_axis)
        self._default_name = "confusion-matrix"
        item = self.getPlotItem()
        item.getViewBox().invertY(True)
        left = item.getAxis("left")
        left.setStyle(tickLength=0, autoExpandTextSpace=False)
        self._columns_axis.setStyle(tickLength=4)
        self._set_axis_label("left", "Your coding")
        self._set_axis_label("bottom", "Model's prediction")
        self._categories: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=int)
        self._shares = np.zeros((0, 0))
        self._image: pg.ImageItem | None = None
        self._cell_items: dict[tuple[int, int], pg.TextItem] = {}
        self._message_item: pg.TextItem | None = None
        self._font_size = 9.0
        self._row_names: list[str] = []
        self.scene().sigMouseMoved.connect(self._hover)
        self.scene().sigMouseClicked.connect(self._clicked)
        self._ready = True
        self.set_matrix([], [])

    def sizeHint(self) -> QSize:
        return self.minimumSize().expandedTo(QSize(640, 480))

    # ----- public API -------------------------------------------------------------------------
    def set_matrix(self, categories: Sequence[str], matrix: Sequence[Sequence[int]]) -> None:
        """Draw ``matrix[row][column]`` = texts coded ``row`` and predicted ``column``."""
        counts = np.asarray(matrix, dtype=int).reshape(len(categories), len(categories))
        self._categories = [str(c) for c in categories]
        self._matrix = counts
        totals = counts.sum(axis=1, keepdims=True)
        self._shares = np.divide(counts, totals, out=np.zeros(counts.shape), where=totals > 0)
        item = self.getPlotItem()
        item.clear()
        self._cell_items = {}
        self._image = None
        self._message_item = None
        n = len(self._categories)
        self._columns_axis.set_names(self._categories)
        if n == 0:
            item.getAxis("left").setTicks([[]])
            self._message_item = self._message(self.EMPTY_TEXT)
            self.setMinimumSize(200, 150)
            return
        self._image = pg.ImageItem(self._colours(), axisOrder="row-major")
        self._image.setRect(QRectF(-0.5, -0.5, n, n))
        item.addItem(self._image)
        edges = np.arange(n + 1) - 0.5
        xs = np.concatenate([[e, e] for e in edges] + [[-0.5, n - 0.5] for _ in edges])
        ys = np.concatenate([[-0.5, n - 0.5] for _ in edges] + [[e, e] for e in edges])
        item.addItem(pg.PlotDataItem(xs, ys, connect="pairs", pen=pg.mkPen(WHITE, width=1.5)))
        for r in range(n):
            for c in range(n):
                if counts[r, c] == 0:
                    continue
                label = pg.TextItem("", anchor=(0.5, 0.5))
                item.addItem(label)
                label.setPos(c, r)
                self._cell_items[(r, c)] = label
        names_room = min(self._name_room(), self.MIN_NAME_PIXELS)
        self.setMinimumSize(names_room + self.FRAME_PIXELS + n * self.MIN_CELL, 110 + n * self.MIN_CELL)
        self._refit()

    def categories(self) -> list[str]:
        return list(self._categories)

    def matrix(self) -> list[list[int]]:
        return self._matrix.tolist()

    def cell_text(self, row: int, column: int) -> str:
        """"count\\nrow %" for a cell; empty cells (no texts) show nothing."""
        count = int(self._matrix[row, column])
        if count == 0:
            return ""
        return f"{format_count(count)}\n{format_row_share(self._shares[row, column])}"

    def cell_texts(self) -> list[list[str]]:
        """What is written in every cell, row by row (taken from the drawn items)."""
        n = len(self._categories)
        return [[self._cell_items[(r, c)].toPlainText() if (r, c) in self._cell_items else "" for c in range(n)]
                for r in range(n)]

    def cell_colour(self, row: int, column: int) -> QColor:
        red, green, blue = self._colours()[row, column][:3]
        return QColor(int(red), int(green), int(blue))

    def row_labels(self) -> list[str]:
        """The category names on the left (your coding), top to bottom."""
        return list(self._row_names)

    def column_labels(self) -> list[str]:
        """The category names under the columns (the model's prediction), left to right."""
        return self._columns_axis.shown_names()

    def columns_turned(self) -> bool:
        """True when the column names are written sideways to fit."""
        return self._columns_axis.is_vertical()

    def message(self) -> str | None:
        return self._message_item.toPlainText() if self._message_item else None

    # ----- drawing ----------------------------------------------------------------------------------
    def _colours(self) -> np.ndarray:
        n = len(self._categories)
        strength = np.clip(self._shares, 0, 1) ** 0.7
        base = np.where(np.eye(n, dtype=bool)[..., None], np.array(AGREE_RGB), np.array(DISAGREE_RGB))
        white = np.array([255, 255, 255])
        rgb = white + (base - white) * strength[..., None] * 0.92
        rgb[self._matrix == 0] = EMPTY_CELL_RGB  # a faint grey: the white grid lines stay visible
        alpha = np.full((n, n, 1), 255)
        return np.concatenate([rgb, alpha], axis=2).astype(np.ubyte)

    def _name_room(self) -> int:
        metrics = QFontMetrics(chart_font(9))
        widest = max((metrics.horizontalAdvance(name) for name in self._categories), default=0)
        return min(self.MAX_NAME_PIXELS, widest + 14)

    def _refit(self) -> None:
        n = len(self._categories)
        if n == 0:
            return
        item = self.getPlotItem()
        left_margin, top_margin, right_margin, bottom_margin = PLOT_MARGINS
        left = item.getAxis("left")
        # names on the left: shortened to a room that leaves the cells most of the width
        room = int(min(self.MAX_NAME_PIXELS, self.width() * 0.26, self.width() - self.FRAME_PIXELS - n * self.MIN_CELL))
        room = max(room, 90)  # the cells keep at least MIN_CELL while the names can give way
        font_size = 9.0 if n <= 12 else 8.0
        metrics = QFontMetrics(chart_font(font_size))
        self._row_names = [metrics.elidedText(name, Qt.TextElideMode.ElideRight, room) for name in self._categories]
        left.setTickFont(chart_font(font_size))
        left.setTicks([[(float(i), text) for i, text in enumerate(self._row_names)]])
        label_width = left.label.boundingRect().height() if left.label.isVisible() else 0
        left.setWidth(int(min(room, max(metrics.horizontalAdvance(s) for s in self._row_names)) + 12 + label_width))
        cell_w = (self.width() - left.width() - left_margin - right_margin - 4) / n
        self._columns_axis.layout_for(cell_w, font_size)
        cell_h = (self.height() - self._columns_axis.height() - top_margin - bottom_margin - 4) / n
        cell = max(min(cell_w, cell_h), 8.0)
        self._font_size = float(np.clip(cell / 3.6, 6.5, 10.0))
        option = QTextOption(Qt.AlignmentFlag.AlignHCenter)
        for (r, c), label in self._cell_items.items():
            strong = self._shares[r, c] ** 0.7 > 0.55
            label.setColor(QColor(WHITE if strong else TEXT_COLOR))
            label.setFont(chart_font(self._font_size, bold=(r == c)))
            label.setText(self.cell_text(r, c))
            label.textItem.document().setDefaultTextOption(option)
            label.setTextWidth(-1)
            label.setTextWidth(label.textItem.document().idealWidth() + 1)
            label.updateTextPos()
        item.getViewBox().setRange(xRange=(-0.5, n - 0.5), yRange=(-0.5, n - 0.5), padding=0)
        item.getAxis("left").setPen(pg.mkPen(AXIS_COLOR))

    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        """(row, column) of the cell under a point of the scene, or None outside the cells."""
        n = len(self._categories)
        view = self.getPlotItem().getViewBox()
        if n == 0 or not view.sceneBoundingRect().contains(scene_pos):
            return None
        point = view.mapSceneToView(scene_pos)
        r, c = round(point.y()), round(point.x())
        return (r, c) if 0 <= r < n and 0 <= c < n else None

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        cell = self.cell_at(event.scenePos())
        if cell is not None:
            self.cellClicked.emit(*cell)

    def _hover(self, scene_pos: QPointF) -> None:
        cell = self.cell_at(scene_pos)
        if cell is None:
            return
        r, c = cell
        total = int(self._matrix[r].sum())
        count = int(self._matrix[r, c])
        coded, predicted = self._categories[r], self._categories[c]
        if r == c:
            tip = (f"Of the {format_count(total)} test texts you coded “{coded}”, the model agreed on "
                   f"{format_count(count)} ({format_row_share(self._shares[r, c])}).")
        else:
            tip = (f"Of the {format_count(total)} test texts you coded “{coded}”, the model put "
                   f"{format_count(count)} ({format_row_share(self._shares[r, c])}) in “{predicted}”.")
        if self.click_hint:
            tip += "\n" + self.click_hint
        QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), tip, self)
