"""The small chart of the rounds while a researcher codes: after every retraining of the quick model,
how many of the watched uncoded texts changed their answer since the round before (right axis, %),
and how well the model agrees with the coding on texts it did not learn from (out-of-fold
macro-F1, left axis), both against the number of coded texts.

Each series is drawn in its own colour and its axis is labelled in that colour, so the picture
explains itself when saved. A dashed line marks the share of changed answers below which the
stop signal counts a round as settled. Like every TextLab chart it draws the numbers it is given
(a :class:`~guiapp.core.coding.stopping.StopReading`) and computes nothing.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtWidgets import QToolTip

from guiapp.core.coding.stopping import STOP_THRESHOLD, StopReading
from guiapp.ui.theme import AXIS_COLOR, BAR_COLOR, FLAG_COLOR, LIMIT_COLOR, WHITE
from guiapp.ui.common.chart_base import GRID_ALPHA, ChartWidget, CountAxis, chart_font, format_count

F1_COLOR = BAR_COLOR  # agreement with the coding: the calm blue of TextLab's scores
CHANGED_COLOR = FLAG_COLOR  # answers that changed: amber, "look at this"
F1_LABEL = "macro-F1"
CHANGED_LABEL = "answers changed"
X_LABEL = "coded texts"
EMPTY_TEXT = "The chart appears once the model has been trained."
DEFAULT_THRESHOLD = STOP_THRESHOLD  # the stop signal's usual share of changed answers
HOVER_PIXELS = 16
CHART_TIP = ("Blue, left axis: how well the model agrees with your coding on texts it did not learn from "
             "(out-of-fold macro-F1), measured on the texts that stand for your corpus: your file's codings and "
             "those TextLab chose at random (the texts chosen where the model was unsure are harder than "
             "most).\nAmber, right axis: the share of the watched uncoded texts whose answer "
             "changed since the model before.\nHover over a point to read it. Right-click to save the chart.")


class PercentAxis(pg.AxisItem):
    """The right axis: shares of changed answers, in percent ("0 %", "2.5 %")."""

    def tickStrings(self, values, scale, spacing):
        return [f"{v * scale:g} %" for v in values]


class CodingRoundsChart(ChartWidget):
    """Out-of-fold macro-F1 (left axis) and the share of changed answers (right axis) per round."""

    def __init__(self, parent=None) -> None:  # a QWidget
        super().__init__(parent, bottom_axis=CountAxis("bottom"))
        self._default_name = "coding-rounds"
        item = self.getPlotItem()
        item.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        self._set_axis_label("bottom", X_LABEL)
        self.getPlotItem().setLabel("left", F1_LABEL, **{"color": F1_COLOR, "font-size": "9pt"})
        # the changed shares live in a second view whose y axis is the plot's right axis
        self._right = PercentAxis("right")
        item.setAxisItems({"right": self._right})
        item.showAxis("right")
        self._right.setPen(pg.mkPen(AXIS_COLOR))
        self._right.setTextPen(pg.mkPen(CHANGED_COLOR))
        self._right.setTickFont(chart_font(9))
        self._right.enableAutoSIPrefix(False)
        self._right.setLabel(CHANGED_LABEL, **{"color": CHANGED_COLOR, "font-size": "9pt"})
        self._shares = pg.ViewBox(enableMouse=False, enableMenu=False)
        self._shares.setMouseEnabled(x=False, y=False)
        self.scene().addItem(self._shares)
        self._right.linkToView(self._shares)
        self._shares.setXLink(item.getViewBox())
        item.getViewBox().sigResized.connect(self._follow_plot)
        item.getAxis("left").setTextPen(pg.mkPen(F1_COLOR))
        self._n_coded: tuple[int, ...] = ()
        self._f1: list[tuple[int, float]] = []
        self._changed: list[tuple[int, float]] = []
        self._threshold = DEFAULT_THRESHOLD
        self._items: list[pg.GraphicsObject] = []
        self._share_items: list[pg.GraphicsObject] = []
        self._message_item: pg.TextItem | None = None
        self._reading: StopReading | None = None
        self.setMinimumSize(240, 230)
        self.setToolTip(CHART_TIP)
        self.scene().sigMouseMoved.connect(self._hover)
        self._ready = True
        self.show_reading(None)

    def sizeHint(self) -> QSize:
        return QSize(460, 250)

    # ----- what it shows (for tests and captions) ----------------------------------------------
    def f1_points(self) -> list[tuple[int, float]]:
        """(coded texts, out-of-fold macro-F1) of each round whose macro-F1 is known."""
        return list(self._f1)

    def changed_points(self) -> list[tuple[int, float]]:
        """(coded texts, share of changed answers, 0–1) of each round compared with the one before."""
        return list(self._changed)

    def drawn_counts(self) -> tuple[int, int]:
        """How many points the two series draw: (macro-F1, changed answers)."""
        counts = []
        for series in self._items + self._share_items:
            if isinstance(series, pg.PlotDataItem) and series.opts.get("symbol") is not None:
                x, _ = series.getData()
                counts.append(0 if x is None else len(x))
        return tuple(counts) if len(counts) == 2 else (0, 0)  # type: ignore[return-value]

    def message(self) -> str | None:
        return self._message_item.toPlainText() if self._message_item is not None else None

    # ----- drawing --------------------------------------------------------------------------------
    def show_reading(self, reading: StopReading | None, threshold: float = DEFAULT_THRESHOLD) -> None:
        """Draw the rounds of ``reading`` (None: the empty chart); ``threshold`` is the share of changed
        answers the stop signal was asked for (the dashed line)."""
        self._clear()
        self._reading, self._threshold = reading, threshold
        rounds = reading.n_coded if reading is not None else ()
        self._n_coded = tuple(int(n) for n in rounds)
        if reading is not None:
            self._f1 = [(n, float(v)) for n, v in zip(rounds, reading.oof_macro_f1, strict=False)
                        if v is not None and math.isfinite(v)]
            self._changed = [(n, float(v)) for n, v in zip(rounds, reading.changed_share, strict=False)
                             if v is not None and math.isfinite(v)]
        if not self._n_coded:
            self._right.setStyle(showValues=False)
            self._message_item = self._message(EMPTY_TEXT)
            self._shares.setYRange(0, 1, padding=0)
            return
        self._right.setStyle(showValues=True)
        self._draw()

    def _clear(self) -> None:
        item = self.getPlotItem()
        for graphic in self._items:
            item.removeItem(graphic)
        for graphic in self._share_items:
            self._shares.removeItem(graphic)
        if self._message_item is not None:
            item.removeItem(self._message_item)
            self._message_item = None
        self._items, self._share_items, self._f1, self._changed = [], [], [], []

    def _draw(self) -> None:
        item = self.getPlotItem()
        limit = pg.InfiniteLine(pos=self._threshold * 100, angle=0,
                                pen=pg.mkPen(LIMIT_COLOR, width=1, style=Qt.PenStyle.DashLine),
                                label=f"{self._threshold * 100:g} %", labelOpts={
                                    "position": 0.99, "color": LIMIT_COLOR, "anchors": [(1, 1), (1, 1)]})
        limit.label.setFont(chart_font(8))
        changed = pg.PlotDataItem(
            [n for n, _ in self._changed], [v * 100 for _, v in self._changed],
            pen=pg.mkPen(CHANGED_COLOR, width=2), antialias=True, symbol="s", symbolSize=7,
            symbolBrush=pg.mkBrush(CHANGED_COLOR), symbolPen=pg.mkPen(WHITE, width=1))
        for graphic in (limit, changed):
            self._shares.addItem(graphic)
            self._share_items.append(graphic)
        f1 = pg.PlotDataItem(
            [n for n, _ in self._f1], [v for _, v in self._f1], pen=pg.mkPen(F1_COLOR, width=2.4),
            antialias=True, symbol="o", symbolSize=8, symbolBrush=pg.mkBrush(F1_COLOR),
            symbolPen=pg.mkPen(WHITE, width=1))
        f1.setZValue(10)
        item.addItem(f1)
        self._items.append(f1)
        self._fit_ranges()

    def _fit_ranges(self) -> None:
        left, right = min(self._n_coded), max(self._n_coded)
        pad = max(5.0, (right - left) * 0.06)
        f1_values = [v for _, v in self._f1]
        bottom = 0.0 if not f1_values else max(0.0, math.floor(min(f1_values) * 10 - 0.5) / 10)
        top = 1.0 if not f1_values else min(1.0, math.ceil(max(f1_values) * 10 + 0.5) / 10)  # the rise shows
        self.getPlotItem().getViewBox().setRange(xRange=(left - pad, right + pad), yRange=(bottom, top), padding=0)
        shares = [v * 100 for _, v in self._changed]
        top = max([self._threshold * 100 * 3, *shares]) * 1.12
        self._shares.setYRange(0, top, padding=0)
        self._follow_plot()

    def _follow_plot(self) -> None:
        self._shares.setGeometry(self.getPlotItem().getViewBox().sceneBoundingRect())
        self._shares.linkedViewChanged(self.getPlotItem().getViewBox(), self._shares.XAxis)

    def _refit(self) -> None:
        self._follow_plot()

    # ----- hover ------------------------------------------------------------------------------------
    def _hover(self, scene_pos: QPointF) -> None:
        view = self.getPlotItem().getViewBox()
        if not self._n_coded or not view.sceneBoundingRect().contains(scene_pos):
            return
        x_pixels = np.array([view.mapViewToScene(QPointF(n, 0)).x() for n in self._n_coded])
        nearest = int(np.argmin(np.abs(x_pixels - scene_pos.x())))
        if abs(x_pixels[nearest] - scene_pos.x()) <= HOVER_PIXELS:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), self.round_tip(nearest), self)

    def round_tip(self, index: int) -> str:
        """What the chart says about round ``index`` (0 is the first), in words."""
        reading = self._reading
        if reading is None or not 0 <= index < len(self._n_coded):
            return ""
        lines = [f"Round {index + 1}: the model learned from {format_count(self._n_coded[index])} coded texts."]
        f1 = _at(reading.oof_macro_f1, index)
        gain = _at(reading.f1_gain, index)
        if f1 is not None:
            change = f" ({gain * 100:+.1f} points since the round before)" if gain is not None else ""
            lines.append(f"Agreement with your coding (out-of-fold macro-F1): {f1:.2f}{change}.")
        share = _at(reading.changed_share, index)
        if share is not None:
            lines.append(f"Answers changed since the round before: {_percent(share)} of the watched uncoded texts.")
        elif index == 0:
            lines.append("The first round has no round before it to compare with.")
        return "\n".join(lines)


def _at(values: tuple, index: int) -> float | None:
    value = values[index] if index < len(values) else None
    return float(value) if value is not None and math.isfinite(value) else None


def _percent(share: float) -> str:
    value = share * 100
    return "0 %" if value == 0 else ("< 0.1 %" if value < 0.1 else f"{value:.1f} %")
