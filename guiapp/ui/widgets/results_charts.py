"""Charts of a study's results: macro-F1 per model with its interval, the confusion matrix of one
model, and the time each model took.

Like every TextLab chart they are static pictures that draw exactly the numbers they are given,
and they save as PNG or SVG through the right-click entry or :meth:`ChartWidget.export`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QTextOption
from PySide6.QtWidgets import QToolTip

from guiapp.ui.widgets.chart_base import (
    AXIS_COLOR,
    BAR_COLOR,
    GRID_ALPHA,
    PLOT_MARGINS,
    TEXT_COLOR,
    ChartWidget,
    chart_font,
    format_count,
)

BEST_COLOR = "#2e7d32"  # green: the model that agrees best with the coding
AGREE_COLOR = (31, 95, 168)  # blue cells: model and coder agree
DISAGREE_COLOR = (217, 110, 30)  # orange cells: a mistake
WHISKER_COLOR = "#333333"
CHOSEN_COLOR = "#1b3a66"  # dark blue: the model whose details are shown
EMPTY_CELL_COLOR = (246, 247, 249)


def format_seconds(seconds: float) -> str:
    """A duration in words: "0.4 s", "12 s", "2 min 05 s", "1 h 02 min"."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def format_row_share(share: float) -> str:
    """A cell's share of its row: "45 %", "<1 %" for tiny non-zero shares."""
    percent = share * 100
    if 0 < percent < 0.5:
        return "<1 %"
    return f"{percent:.0f} %"


class _NamedBars(ChartWidget):
    """Horizontal bars, one per model, first at the top, names on the left, a label at each end."""

    ROW_PIXELS = 32
    MAX_LABEL_PIXELS = 300
    MIN_LABEL_PIXELS = 120
    EMPTY_TEXT = "Nothing to show"
    LABEL_FONT = 9
    X_START = 0.0  # left end of the value axis, as a share of its right end

    modelClicked = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        item = self.getPlotItem()
        item.getViewBox().invertY(True)
        item.showGrid(x=True, y=False, alpha=GRID_ALPHA)
        left = item.getAxis("left")
        left.setStyle(tickLength=0, autoExpandTextSpace=False)
        left.setTickFont(chart_font(9.5))
        self._names: list[str] = []
        self._shown_names: list[str] = []
        self._label_pixels = 0
        self._bars: pg.BarGraphItem | None = None
        self._value_items: list[pg.TextItem] = []
        self._message_item: pg.TextItem | None = None
        self.scene().sigMouseMoved.connect(self._hover)
        self.scene().sigMouseClicked.connect(self._clicked)

    def sizeHint(self) -> QSize:
        return QSize(700, self.height())

    # drawn by subclasses -----------------------------------------------------------------------
    def _ends(self) -> list[float]:
        """Where each bar's label starts (the bar's end, or its whisker's)."""
        raise NotImplementedError

    def _x_limit(self) -> float:
        return max(self._ends(), default=1.0) * 1.02

    def _tip(self, index: int) -> str:
        raise NotImplementedError

    # shared -----------------------------------------------------------------------------------------
    def _clear(self) -> None:
        item = self.getPlotItem()
        item.clear()
        self._bars = None
        self._value_items = []
        self._message_item = None
        self._shown_names = []
        self._label_pixels = 0

    def _draw_bars(self, values: Sequence[float], colours: Sequence[str]) -> None:
        n = len(values)
        self._bars = pg.BarGraphItem(
            x0=np.zeros(n), y=np.arange(n, dtype=float), height=0.62, width=np.asarray(values, dtype=float),
            brushes=[pg.mkBrush(c) for c in colours], pens=[pg.mkPen(None)] * n,
        )
        self.getPlotItem().addItem(self._bars)

    def _add_labels(self, texts: Sequence[str], bold: Sequence[bool]) -> None:
        for i, (text, strong) in enumerate(zip(texts, bold, strict=True)):
            label = pg.TextItem(text, color=TEXT_COLOR, anchor=(0, 0.5))
            label.setFont(chart_font(self.LABEL_FONT, bold=strong))
            self.getPlotItem().addItem(label)
            self._value_items.append(label)
            label.setPos(self._ends()[i], i)
        self.setFixedHeight(72 + max(len(texts), 2) * self.ROW_PIXELS)  # resizes -> _refit

    def _show_empty(self) -> None:
        left = self.getPlotItem().getAxis("left")
        left.setTicks([[]])
        left.setWidth(20)
        self._message_item = self._message(self.EMPTY_TEXT)
        self.setFixedHeight(150)

    def names(self) -> list[str]:
        return list(self._names)

    def axis_labels(self) -> list[str]:
        """The model names on the left axis, top to bottom (long names elided)."""
        return list(self._shown_names)

    def value_labels(self) -> list[str]:
        return [item.toPlainText() for item in self._value_items]

    def bar_item(self) -> pg.BarGraphItem | None:
        return self._bars

    def message(self) -> str | None:
        return self._message_item.toPlainText() if self._message_item else None

    def _place_names(self) -> None:
        room = int(min(self.MAX_LABEL_PIXELS, max(self.MIN_LABEL_PIXELS, self.width() * 0.32)))
        if room == self._label_pixels:
            return
        self._label_pixels = room
        metrics = QFontMetrics(chart_font(9.5))
        shown = [metrics.elidedText(name, Qt.TextElideMode.ElideRight, room) for name in self._names]
        self._shown_names = shown
        left = self.getPlotItem().getAxis("left")
        left.setTicks([[(float(i), text) for i, text in enumerate(shown)]])
        left.setWidth(min(room, max(metrics.horizontalAdvance(s) for s in shown)) + 14)

    def _refit(self) -> None:
        """Leave room right of every bar for its label, whatever the widget's width."""
        if not self._names or len(self._value_items) != len(self._names):
            return  # still being drawn
        self._place_names()
        left_margin, _, right_margin, _ = PLOT_MARGINS
        width_px = max(120.0, self.width() - self.getPlotItem().getAxis("left").width()
                       - left_margin - right_margin - 6)
        metrics = QFontMetrics(chart_font(self.LABEL_FONT, bold=True))
        x_max = self._x_limit()
        for end, item in zip(self._ends(), self._value_items, strict=True):
            room = width_px - metrics.horizontalAdvance(item.toPlainText()) - 14
            x_max = max(x_max, end * width_px / room if room > 20 else end * 3)
        self.getPlotItem().getViewBox().setRange(
            xRange=(self.X_START * x_max, x_max), yRange=(-0.6, len(self._names) - 0.4), padding=0)

    def _index_at(self, scene_pos: QPointF) -> int | None:
        if not self._names:
            return None
        item = self.getPlotItem()
        if not (item.getViewBox().sceneBoundingRect().contains(scene_pos)
                or item.getAxis("left").sceneBoundingRect().contains(scene_pos)):
            return None
        index = round(item.getViewBox().mapSceneToView(scene_pos).y())
        return index if 0 <= index < len(self._names) else None

    def _hover(self, scene_pos: QPointF) -> None:
        index = self._index_at(scene_pos)
        if index is not None:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), self._tip(index), self)

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        index = self._index_at(event.scenePos())
        if index is not None:
            self.modelClicked.emit(self._names[index])


class F1BarChart(_NamedBars):
    """Test macro-F1 per model, best first and in green, with the 95 % interval as whiskers.

    Clicking a bar emits ``modelClicked(name)``.
    """

    EMPTY_TEXT = "No model finished"
    X_START = -0.03  # a little room left of 0, so that the "0.0" tick label is drawn

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._default_name = "agreement-per-model"
        bottom = self.getPlotItem().getAxis("bottom")
        major = [(v / 10, f"{v / 10:.1f}") for v in range(0, 11, 2)]
        minor = [(v / 10, "") for v in range(1, 10, 2)]
        bottom.setTicks([major, minor])
        self._set_axis_label("bottom", "macro-F1 (agreement with your coding)")
        self._values: list[float] = []
        self._intervals: list[tuple[float, float] | None] = []
        self._whiskers: pg.ErrorBarItem | None = None
        self._ready = True
        self.set_scores([])

    def set_scores(self, entries: Sequence[tuple[str, float, float | None, float | None]]) -> None:
        """One bar per ``(name, macro-F1, low, high)``; they are shown best first."""
        ordered = sorted(entries, key=lambda entry: entry[1], reverse=True)
        self._clear()
        self._whiskers = None
        self._names = [str(name) for name, *_ in ordered]
        self._values = [float(value) for _, value, _, _ in ordered]
        self._intervals = [
            (float(low), float(high)) if low is not None and high is not None else None
            for _, _, low, high in ordered
        ]
        if not ordered:
            self._show_empty()
            return
        n = len(ordered)
        self._draw_bars(self._values, [BEST_COLOR if i == 0 else BAR_COLOR for i in range(n)])
        with_ci = [i for i in range(n) if self._intervals[i] is not None]
        if with_ci:
            x = np.array([self._values[i] for i in with_ci])
            low = np.array([self._intervals[i][0] for i in with_ci])
            high = np.array([self._intervals[i][1] for i in with_ci])
            self._whiskers = pg.ErrorBarItem(
                x=x, y=np.array(with_ci, dtype=float), left=np.maximum(x - low, 0), right=np.maximum(high - x, 0),
                beam=0.22, pen=pg.mkPen(WHISKER_COLOR, width=1.6),
            )
            self.getPlotItem().addItem(self._whiskers)
        self._add_labels([self.value_label(i) for i in range(n)], [i == 0 for i in range(n)])
        self._refit()

    def value_label(self, index: int) -> str:
        """"0.71 (0.66–0.75)": the score and its interval."""
        text = f"{self._values[index]:.2f}"
        interval = self._intervals[index]
        return f"{text}  ({interval[0]:.2f}–{interval[1]:.2f})" if interval else text

    def bar_values(self) -> list[tuple[str, float, float | None, float | None]]:
        """(name, macro-F1, low, high) in the order shown, top to bottom."""
        return [
            (name, value, *(interval if interval else (None, None)))
            for name, value, interval in zip(self._names, self._values, self._intervals, strict=True)
        ]

    def best_name(self) -> str | None:
        return self._names[0] if self._names else None

    def bar_colours(self) -> list[str]:
        return [brush.color().name() for brush in self._bars.opts["brushes"]] if self._bars else []

    def whisker_item(self) -> pg.ErrorBarItem | None:
        return self._whiskers

    def whiskers(self) -> list[tuple[float, float] | None]:
        """The drawn whisker ends per bar (top to bottom), None where a bar has none."""
        if self._whiskers is None:
            return [None] * len(self._names)
        opts = self._whiskers.opts
        ends = {
            int(y): (float(x - left), float(x + right))
            for x, y, left, right in zip(opts["x"], opts["y"], opts["left"], opts["right"], strict=True)
        }
        return [ends.get(i) for i in range(len(self._names))]

    def _ends(self) -> list[float]:
        return [interval[1] if interval else value for value, interval in zip(self._values, self._intervals, strict=True)]

    def _x_limit(self) -> float:
        return 1.02

    def _tip(self, index: int) -> str:
        tip = f"{self._names[index]}: macro-F1 {self._values[index]:.3f}"
        if self._intervals[index]:
            low, high = self._intervals[index]
            tip += f"\n95 % interval {low:.2f} to {high:.2f}: with other test texts the score would likely fall in this range."
        return tip + "\nClick to see this model's details."


class TimeBarChart(_NamedBars):
    """How long each model took from start to end, with the duration written at each bar."""

    EMPTY_TEXT = "No times recorded"
    ROW_PIXELS = 28

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._default_name = "time-per-model"
        self.getPlotItem().getAxis("bottom").setStyle(maxTickLevel=0)
        self._set_axis_label("bottom", "Time taken (seconds)")
        self._seconds: list[float] = []
        self._ready = True
        self.set_times([])

    def set_times(self, entries: Sequence[tuple[str, float]], highlight: str | None = None) -> None:
        """One bar per ``(name, seconds)`` in the given order; ``highlight`` is drawn in dark blue."""
        self._clear()
        self._names = [str(name) for name, _ in entries]
        self._seconds = [max(float(seconds), 0.0) for _, seconds in entries]
        if not entries:
            self._show_empty()
            return
        colours = [CHOSEN_COLOR if name == highlight else BAR_COLOR for name in self._names]
        self._draw_bars(self._seconds, colours)
        self._add_labels([format_seconds(s) for s in self._seconds], [name == highlight for name in self._names])
        self._refit()

    def seconds(self) -> list[float]:
        return list(self._seconds)

    def _ends(self) -> list[float]:
        return list(self._seconds)

    def _x_limit(self) -> float:
        return max(max(self._seconds, default=1.0), 1.0) * 1.02

    def _tip(self, index: int) -> str:
        return f"{self._names[index]} took {format_seconds(self._seconds[index])} in all."


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
    agreements, orange cells mistakes; the stronger the colour, the larger the share."""

    MIN_CELL = 34
    MAX_NAME_PIXELS = 220
    EMPTY_TEXT = "No confusion matrix to show"

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
        item.addItem(pg.PlotDataItem(xs, ys, connect="pairs", pen=pg.mkPen("w", width=1.5)))
        for r in range(n):
            for c in range(n):
                if counts[r, c] == 0:
                    continue
                label = pg.TextItem("", anchor=(0.5, 0.5))
                item.addItem(label)
                label.setPos(c, r)
                self._cell_items[(r, c)] = label
        names_room = self._name_room()
        self.setMinimumSize(names_room + 60 + n * self.MIN_CELL, 110 + n * self.MIN_CELL)
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
        base = np.where(np.eye(n, dtype=bool)[..., None], np.array(AGREE_COLOR), np.array(DISAGREE_COLOR))
        white = np.array([255, 255, 255])
        rgb = white + (base - white) * strength[..., None] * 0.92
        rgb[self._matrix == 0] = EMPTY_CELL_COLOR  # a faint grey: the white grid lines stay visible
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
        room = int(min(self.MAX_NAME_PIXELS, max(90, self.width() * 0.26)))
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
            label.setColor(QColor("white") if strong else QColor(TEXT_COLOR))
            label.setFont(chart_font(self._font_size, bold=(r == c)))
            label.setText(self.cell_text(r, c))
            label.textItem.document().setDefaultTextOption(option)
            label.setTextWidth(-1)
            label.setTextWidth(label.textItem.document().idealWidth() + 1)
            label.updateTextPos()
        item.getViewBox().setRange(xRange=(-0.5, n - 0.5), yRange=(-0.5, n - 0.5), padding=0)
        item.getAxis("left").setPen(pg.mkPen(AXIS_COLOR))

    def _hover(self, scene_pos: QPointF) -> None:
        n = len(self._categories)
        view = self.getPlotItem().getViewBox()
        if n == 0 or not view.sceneBoundingRect().contains(scene_pos):
            return
        point = view.mapSceneToView(scene_pos)
        r, c = round(point.y()), round(point.x())
        if not (0 <= r < n and 0 <= c < n):
            return
        total = int(self._matrix[r].sum())
        count = int(self._matrix[r, c])
        coded, predicted = self._categories[r], self._categories[c]
        if r == c:
            tip = (f"Of the {format_count(total)} test texts you coded “{coded}”, the model agreed on "
                   f"{format_count(count)} ({format_row_share(self._shares[r, c])}).")
        else:
            tip = (f"Of the {format_count(total)} test texts you coded “{coded}”, the model put "
                   f"{format_count(count)} ({format_row_share(self._shares[r, c])}) in “{predicted}”.")
        QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), tip, self)
