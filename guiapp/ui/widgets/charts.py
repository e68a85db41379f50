"""Small, readable pyqtgraph charts for the Data step: category sizes and text-length histograms.

The charts only draw numbers computed by the core. They are static pictures (no panning or
zooming, which only confuses), scroll with the page, and can be saved as PNG or SVG through the
right-click entry "Save chart as image…" or :meth:`ChartWidget.export`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QToolTip

from guiapp.ui.theme import BAR_COLOR, FLAG_COLOR, LABEL_FILL_RGBA, LIMIT_COLOR, OVER_LIMIT_COLOR, TEXT_COLOR, WHITE
from guiapp.ui.widgets.chart_base import (
    GRID_ALPHA,
    PLOT_MARGINS,
    ChartWidget,
    CountAxis,
    chart_font,
    format_count,
    format_share,
)


class CategoryBarChart(ChartWidget):
    """Horizontal bars, one per category, largest at the top, labelled "count (share %)".

    Categories flagged as too small are drawn in amber and their label says so. The widget's
    height follows the number of categories so that each label stays readable.
    """

    ROW_PIXELS = 22
    MAX_LABEL_PIXELS = 260
    MIN_LABEL_PIXELS = 110
    EMPTY_TEXT = "No coded texts yet"

    def __init__(self, parent=None) -> None:
        super().__init__(parent, bottom_axis=CountAxis("bottom"))
        self._default_name = "categories"
        item = self.getPlotItem()
        item.getViewBox().invertY(True)
        item.showGrid(x=True, y=False, alpha=GRID_ALPHA)
        item.getAxis("bottom").setStyle(maxTickLevel=0)  # no faint minor grid lines
        left = item.getAxis("left")
        left.setStyle(tickLength=0, autoExpandTextSpace=False)
        left.setTickFont(chart_font(9))
        self._set_axis_label("bottom", "Number of coded texts")
        self._labels: list[str] = []
        self._counts: list[int] = []
        self._shares: list[float] = []
        self._flagged: list[bool] = []
        self._shown_labels: list[str] = []
        self._label_pixels = 0
        self._axis_pixels = 0  # the width given to the left axis (its geometry follows a layout pass later)
        self._bars: pg.BarGraphItem | None = None
        self._value_items: list[pg.TextItem] = []
        self._message_item: pg.TextItem | None = None
        self.scene().sigMouseMoved.connect(self._hover)
        self._ready = True
        self.set_categories([], [], [], [])

    # ----- public API -------------------------------------------------------------------------
    def set_categories(self, labels: Sequence[str], counts: Sequence[int],
                       shares: Sequence[float], flagged: Sequence[bool]) -> None:
        """Show one bar per category, in the given order (largest first, from the top)."""
        if not (len(labels) == len(counts) == len(shares) == len(flagged)):
            raise ValueError("labels, counts, shares and flagged must have the same length")
        self._labels = [str(label) for label in labels]
        self._counts = [int(c) for c in counts]
        self._shares = [float(s) for s in shares]
        self._flagged = [bool(f) for f in flagged]
        item = self.getPlotItem()
        item.clear()
        self._bars = None
        self._value_items = []
        self._message_item = None
        self._shown_labels = []
        n = len(self._labels)
        left = item.getAxis("left")
        if n == 0:
            left.setTicks([[]])
            left.setWidth(20)
            self._message_item = self._message(self.EMPTY_TEXT)
            self.setFixedHeight(150)
            return
        positions = np.arange(n, dtype=float)
        brushes = [pg.mkBrush(FLAG_COLOR if f else BAR_COLOR) for f in self._flagged]
        self._bars = pg.BarGraphItem(
            x0=np.zeros(n), y=positions, height=0.68, width=np.asarray(self._counts, dtype=float),
            brushes=brushes, pens=[pg.mkPen(None)] * n,
        )
        item.addItem(self._bars)
        for i in range(n):
            text = self.value_label(i)
            label = pg.TextItem(text, color=FLAG_COLOR if self._flagged[i] else TEXT_COLOR, anchor=(0, 0.5))
            label.setFont(chart_font(8.5, bold=self._flagged[i]))
            label.setPos(self._counts[i], i)
            item.addItem(label)
            self._value_items.append(label)
        self._label_pixels = 0
        self.setFixedHeight(64 + max(n, 4) * self.ROW_PIXELS)  # room for every name; resizes -> _refit
        self._refit()

    def categories(self) -> list[str]:
        return list(self._labels)

    def counts(self) -> list[int]:
        return list(self._counts)

    def flagged(self) -> list[bool]:
        return list(self._flagged)

    def value_label(self, index: int) -> str:
        """The text written at the end of a bar: "1,234 (12.3 %)" (plus "too few" if flagged)."""
        text = f"{format_count(self._counts[index])} ({format_share(self._shares[index])})"
        return text + " – too few" if self._flagged[index] else text

    def bar_item(self) -> pg.BarGraphItem | None:
        """The pyqtgraph bars (their ``opts['width']`` are the counts)."""
        return self._bars

    def value_labels(self) -> list[str]:
        """The texts drawn next to the bars, top to bottom."""
        return [item.toPlainText() for item in self._value_items]

    def axis_labels(self) -> list[str]:
        """The category names on the left axis, top to bottom (long names elided)."""
        return list(self._shown_labels)

    def message(self) -> str | None:
        """The message shown instead of bars (no data), if any."""
        return self._message_item.toPlainText() if self._message_item else None

    # ----- layout -----------------------------------------------------------------------------
    def _label_width(self) -> int:
        """Room for category names: about a third of the chart, within sensible bounds."""
        return int(min(self.MAX_LABEL_PIXELS, max(self.MIN_LABEL_PIXELS, self.width() * 0.34)))

    def _place_labels(self) -> None:
        room = self._label_width()
        if room == self._label_pixels:
            return
        self._label_pixels = room
        metrics = QFontMetrics(chart_font(9))
        shown = [metrics.elidedText(lbl, Qt.TextElideMode.ElideRight, room) for lbl in self._labels]
        self._shown_labels = shown
        left = self.getPlotItem().getAxis("left")
        left.setTicks([[(float(i), text) for i, text in enumerate(shown)]])
        self._axis_pixels = min(room, max(metrics.horizontalAdvance(s) for s in shown)) + 14
        left.setWidth(self._axis_pixels)

    def _refit(self) -> None:
        """Leave room right of every bar for its label, whatever the widget's width."""
        if not self._counts:
            return
        self._place_labels()
        view = self.getPlotItem().getViewBox()
        # The view's and the axis's own widths lag behind while Qt lays out (a layout pass comes
        # later); derive the view's from the widget's width and the axis width just chosen.
        left_margin, _, right_margin, _ = PLOT_MARGINS
        width_px = max(120.0, self.width() - self._axis_pixels - left_margin - right_margin - 6)
        metrics = QFontMetrics(chart_font(8.5, bold=True))
        top = max(max(self._counts), 1)
        x_max = top * 1.05
        for count, text in zip(self._counts, (self.value_label(i) for i in range(len(self._counts))), strict=True):
            room = width_px - metrics.horizontalAdvance(text) - 12
            if room > 20:
                x_max = max(x_max, count * width_px / room)
            else:
                x_max = max(x_max, top * 3)
        view.setRange(xRange=(0, x_max), yRange=(-0.6, len(self._counts) - 0.4), padding=0)

    def _hover(self, scene_pos: QPointF) -> None:
        if not self._counts:
            return
        view = self.getPlotItem().getViewBox()
        if not view.sceneBoundingRect().contains(scene_pos) and not self.getPlotItem().getAxis(
            "left"
        ).sceneBoundingRect().contains(scene_pos):
            return
        index = int(round(view.mapSceneToView(scene_pos).y()))
        if 0 <= index < len(self._labels):
            tip = (f"{self._labels[index]}: {format_count(self._counts[index])} coded texts "
                   f"({format_share(self._shares[index])} of all coded texts)")
            if self._flagged[index]:
                tip += "\nToo few examples for a fair test of the models."
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), tip, self)


class HistogramChart(ChartWidget):
    """How many texts have which length, with an optional dashed line at a length limit."""

    EMPTY_TEXT = "No texts to measure"

    def __init__(self, parent=None) -> None:
        super().__init__(parent, left_axis=CountAxis("left"))
        self._default_name = "text-lengths"
        item = self.getPlotItem()
        item.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        item.getAxis("left").setStyle(maxTickLevel=0)
        self.setFixedHeight(230)
        self._edges: list[float] = []
        self._counts: list[int] = []
        self._limit: float | None = None
        self._unit = "words"
        self._bars: pg.BarGraphItem | None = None
        self._limit_line: pg.InfiniteLine | None = None
        self._message_item: pg.TextItem | None = None
        self._ready = True
        self.set_histogram([], [])

    def set_histogram(self, edges: Sequence[float], counts: Sequence[int], limit: float | None = None,
                      unit_label: str = "words", limit_label: str | None = None) -> None:
        """Draw bars between consecutive ``edges`` (len(counts) + 1 of them). With ``limit``, a
        dashed line marks it, labelled e.g. "512-token limit"; bars beyond it are amber."""
        if counts and len(edges) != len(counts) + 1:
            raise ValueError("edges must have one more entry than counts")
        self._edges = [float(e) for e in edges]
        self._counts = [int(c) for c in counts]
        self._limit = float(limit) if limit is not None else None
        self._unit = unit_label
        item = self.getPlotItem()
        item.clear()
        self._bars = None
        self._limit_line = None
        self._message_item = None
        self._set_axis_label("bottom", f"Length of the text ({unit_label})")
        self._set_axis_label("left", "Number of texts")
        if not self._counts:
            self._message_item = self._message(self.EMPTY_TEXT)
            return
        x0 = np.asarray(self._edges[:-1])
        x1 = np.asarray(self._edges[1:])
        over = [self._limit is not None and left >= self._limit for left in x0]
        self._bars = pg.BarGraphItem(
            x0=x0, x1=x1, y0=np.zeros(len(x0)), height=np.asarray(self._counts, dtype=float),
            brushes=[pg.mkBrush(OVER_LIMIT_COLOR if o else BAR_COLOR) for o in over],
            pen=pg.mkPen(WHITE, width=0.5),
        )
        item.addItem(self._bars)
        if self._limit is not None:
            text = limit_label or self.default_limit_label(self._limit, unit_label)
            self._limit_line = pg.InfiniteLine(
                pos=self._limit, angle=90,
                pen=pg.mkPen(LIMIT_COLOR, width=2, style=Qt.PenStyle.DashLine),
                label=text,
                labelOpts={"position": 0.9, "color": LIMIT_COLOR, "fill": pg.mkBrush(*LABEL_FILL_RGBA),
                           "anchors": [(0, 0.5), (0, 0.5)]},
            )
            self._limit_line.label.setFont(chart_font(9, bold=True))
            item.addItem(self._limit_line)
        self._refit()

    @staticmethod
    def default_limit_label(limit: float, unit_label: str) -> str:
        unit = "token" if "token" in unit_label else unit_label.rstrip("s")
        return f"{int(limit):,}-{unit} limit"

    def bar_item(self) -> pg.BarGraphItem | None:
        """The pyqtgraph bars (their ``opts['height']`` are the counts)."""
        return self._bars

    def counts(self) -> list[int]:
        return list(self._counts)

    def edges(self) -> list[float]:
        return list(self._edges)

    def limit(self) -> float | None:
        return self._limit

    def limit_line(self) -> pg.InfiniteLine | None:
        return self._limit_line

    def limit_text(self) -> str | None:
        """The label written at the limit line, e.g. "512-token limit"."""
        return self._limit_line.label.toPlainText() if self._limit_line is not None else None

    def message(self) -> str | None:
        return self._message_item.toPlainText() if self._message_item else None

    def _refit(self) -> None:
        if not self._counts:
            return
        lo, hi = self._edges[0], self._edges[-1]
        if self._limit is not None:
            hi = max(hi, self._limit * 1.04)
            lo = min(lo, self._limit)
        span = max(hi - lo, 1.0)
        view = self.getPlotItem().getViewBox()
        view.setRange(xRange=(lo - span * 0.01, hi + span * 0.01),
                      yRange=(0, max(max(self._counts), 1) * 1.12), padding=0)
        if self._limit_line is not None:
            # Put the label on the side of the line with more room.
            right_side = (self._limit - lo) / span < 0.6
            anchor = (0, 0.5) if right_side else (1, 0.5)
            self._limit_line.label.anchors = [anchor, anchor]
            self._limit_line.label.updatePosition()
