"""Small, readable pyqtgraph charts for the Data step: category sizes and text-length histograms.

The charts only draw numbers computed by the core. They are static pictures (no panning or
zooming, which only confuses), scroll with the page, and can be saved as PNG or SVG through the
right-click entry "Save chart as image…" or :meth:`ChartWidget.export`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from guiapp.ui.theme import BAR_COLOR, FLAG_COLOR, LABEL_FILL_RGBA, LIMIT_COLOR, OVER_LIMIT_COLOR, TEXT_COLOR, WHITE
from guiapp.ui.common.chart_base import (
    GRID_ALPHA,
    ChartWidget,
    CountAxis,
    LyingBarsChart,
    chart_font,
    format_count,
    format_share,
)


class CategoryBarChart(LyingBarsChart):
    """Horizontal bars, one per category, largest at the top, labelled "count (share %)".

    Categories flagged as too small are drawn in amber and their label says so. The widget's
    height follows the number of categories so that each label stays readable.
    """

    ROW_PIXELS = 22
    EMPTY_TEXT = "No coded texts yet"

    def __init__(self, parent=None) -> None:
        super().__init__(parent, bottom_axis=CountAxis("bottom"))
        self._default_name = "categories"
        self.getPlotItem().getAxis("bottom").setStyle(maxTickLevel=0)  # no faint minor grid lines
        self._set_axis_label("bottom", "Number of coded texts")
        self._counts: list[int] = []
        self._shares: list[float] = []
        self._flagged: list[bool] = []
        self._ready = True
        self.set_categories([], [], [], [])

    # ----- public API -------------------------------------------------------------------------
    def set_categories(self, labels: Sequence[str], counts: Sequence[int],
                       shares: Sequence[float], flagged: Sequence[bool]) -> None:
        """Show one bar per category, in the given order (largest first, from the top)."""
        if not (len(labels) == len(counts) == len(shares) == len(flagged)):
            raise ValueError("labels, counts, shares and flagged must have the same length")
        self._names = [str(label) for label in labels]
        self._counts = [int(c) for c in counts]
        self._shares = [float(s) for s in shares]
        self._flagged = [bool(f) for f in flagged]
        self._clear()
        n = len(self._names)
        if n == 0:
            self._show_empty()
            return
        item = self.getPlotItem()
        brushes = [pg.mkBrush(FLAG_COLOR if f else BAR_COLOR) for f in self._flagged]
        self._bars = pg.BarGraphItem(
            x0=np.zeros(n), y=np.arange(n, dtype=float), height=0.68, width=np.asarray(self._counts, dtype=float),
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
        self.setFixedHeight(64 + max(n, 4) * self.ROW_PIXELS)  # room for every name; resizes -> _refit
        self._refit()

    def categories(self) -> list[str]:
        return list(self._names)

    def counts(self) -> list[int]:
        return list(self._counts)

    def flagged(self) -> list[bool]:
        return list(self._flagged)

    def value_label(self, index: int) -> str:
        """The text written at the end of a bar: "1,234 (12.3 %)" (plus "too few" if flagged)."""
        text = f"{format_count(self._counts[index])} ({format_share(self._shares[index])})"
        return text + " – too few" if self._flagged[index] else text

    # ----- layout -----------------------------------------------------------------------------
    def _refit(self) -> None:
        """Leave room right of every bar for its label, whatever the widget's width."""
        if not self._counts:
            return
        self._place_names()
        top = max(max(self._counts), 1)
        x_max = self._value_end(self._counts, [self.value_label(i) for i in range(len(self._counts))],
                                chart_font(8.5, bold=True), least=top * 1.05, gap=12, crowded=top * 3)
        self.getPlotItem().getViewBox().setRange(xRange=(0, x_max), yRange=(-0.6, len(self._counts) - 0.4), padding=0)

    def _tip(self, index: int) -> str:
        tip = (f"{self._names[index]}: {format_count(self._counts[index])} coded texts "
               f"({format_share(self._shares[index])} of all coded texts)")
        if self._flagged[index]:
            tip += "\nToo few examples for a fair test of the models."
        return tip


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
