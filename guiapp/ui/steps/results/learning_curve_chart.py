"""The learning-curve chart: test macro-F1 against the number of coded training texts, or — for a
language model with your codebook — against the examples per category shown in its prompt.

Two views of one :class:`~guiapp.core.experiment.curves.learning_curve_results.LearningCurveResult`:

- :meth:`LearningCurveChart.show_models`: per model a line through the mean over the draws, with a
  marker at each size, and a translucent band from the lowest to the highest draw (the paper's
  Figure 14);
- :meth:`LearningCurveChart.show_categories`: for one model, one line per category (its mean F1),
  the legend ordered by the F1 with all training texts, so it reads top to bottom like the lines.

The x axis is logarithmic (each doubling of the coded texts is the same step) with ticks at the
sizes drawn, labelled "500", "1,000", "2,000" …; the legend sits right of the plot and the title
says what line and band mean, so a saved picture explains itself.

A curve over examples (:attr:`ModelCurve.over_examples`: a language model with your codebook learns
nothing from the coded texts, only the number of examples per category in its prompt changes) is
never put on that axis: ``show_models(result, over_examples=True)`` draws only such curves, on a
linear axis of its own that starts at 0 (no examples, zero-shot); ``show_categories`` picks the
model's own axis. Like every TextLab chart it is
a static picture of the numbers it is given, saved through the right-click entry or :meth:`export`.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QSizePolicy, QToolTip

from guiapp.core.experiment.curves.learning_curve_results import LearningCurveResult, ModelCurve
from guiapp.ui.theme import HINT_TEXT, PALETTE, TEXT_COLOR, WHITE
from guiapp.ui.common.chart_base import GRID_ALPHA, ChartWidget, chart_font, format_count

BAND_ALPHA = 55  # of 255: the min–max band behind the mean line
EMPTY_TEXT = "The learning curve appears here when it has been drawn."
MODELS_TITLE = "Test macro-F1 with more coded training texts"
MODELS_SUBTITLE = "line: mean of {draws} · shaded band: lowest to highest draw"
CATEGORIES_TITLE = "F1 of each category: {model}"
CATEGORIES_SUBTITLE = "mean of {draws}; the legend lists the categories best first"
X_LABEL = "coded training texts the model learned from"
EXAMPLES_TITLE = "Test macro-F1 with more examples per category in the prompt"
EXAMPLES_SUBTITLE = "line: mean of {draws} of examples · shaded band: lowest to highest draw"
EXAMPLES_X_LABEL = "Examples per category shown to the model (0 = none, zero-shot)"
HOVER_PIXELS = 14
CHART_TIP = ("Left to right: more coded training texts; each step is about twice as many (a logarithmic axis).\n"
             "Hover over a point to see its score. Right-click to save this chart as an image.")
EXAMPLES_TIP = ("Left to right: more coded examples per category in the language model's prompt, from 0 (none, "
                "zero-shot).\nThe model learns nothing else from your coded texts. Hover over a point to see its "
                "score. Right-click to save this chart as an image.")
LEGEND_ROW_PIXELS = 17
LEGEND_MARGIN_PIXELS = 140  # title, axis and its label: what the plot's height has besides the legend
TITLE_PIXELS = 42


def draws_text(repeats: int) -> str:
    return f"{repeats} random draw{'s' if repeats != 1 else ''}"


@dataclass
class DrawnLine:
    """One line as drawn: its name, colour, and per size the mean (and band, if any)."""

    name: str
    colour: str
    sizes: list[int]
    means: list[float]
    lows: list[float] | None = None
    highs: list[float] | None = None


class SizeAxis(pg.AxisItem):
    """The x axis: log10 positions (or, over examples per category, the numbers themselves, from 0),
    labelled with the sizes of the curve only (thousands separated). Labels that would overlap the
    next one are left out (the last, all training texts, always stays)."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self._sizes: list[int] = []
        self._shown: list[int] = []
        self.linear = False  # True: a curve over examples per category (0 allowed), not over training texts

    def position(self, size: float) -> float:
        """Where ``size`` sits on the axis."""
        return float(size) if self.linear else math.log10(size)

    def set_sizes(self, sizes: list[int]) -> None:
        self._sizes = sorted(sizes)
        self._shown = list(self._sizes)
        self.picture = None
        self.update()

    def shown_labels(self) -> list[str]:
        return [format_count(size) for size in self._shown]

    def choose_labels(self, pixels_per_unit: float) -> None:
        """Keep the labels that fit, from the right (largest size) to the left."""
        metrics = QFontMetrics(chart_font(9))
        kept: list[int] = []
        for size in reversed(self._sizes):
            if kept:
                gap = (self.position(kept[-1]) - self.position(size)) * pixels_per_unit
                widths = [metrics.horizontalAdvance(format_count(value)) for value in (size, kept[-1])]
                need = sum(widths) / 2 + 8
                if gap < need:
                    continue
            kept.append(size)
        shown = sorted(kept)
        if shown != self._shown:
            self._shown = shown
            self.picture = None
            self.update()

    def tickValues(self, minVal, maxVal, size):
        major = [self.position(s) for s in self._sizes if minVal <= self.position(s) <= maxVal]
        return [(1.0, major)]

    def tickStrings(self, values, scale, spacing):
        shown = {round(self.position(s), 9): s for s in self._shown}
        return [format_count(shown[round(v, 9)]) if round(v, 9) in shown else "" for v in values]


class LearningCurveChart(ChartWidget):
    """Learning curves: every model's mean macro-F1 with its min–max band, or one model's categories."""

    def __init__(self, parent=None) -> None:
        self._axis = SizeAxis()
        super().__init__(parent, bottom_axis=self._axis)
        self._default_name = "learning-curve"
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=GRID_ALPHA)
        self._set_axis_label("bottom", X_LABEL)
        self._set_axis_label("left", "test macro-F1")
        self.legend: pg.LegendItem | None = None
        self.setMinimumSize(480, 300)
        self.base_height = 300  # the least height; more when a long legend needs it (one column stays readable)
        self.setToolTip(CHART_TIP)
        self._mode = "empty"
        self._model = ""
        self._lines: list[DrawnLine] = []
        self._items: list[pg.GraphicsObject] = []
        self._empty_item: pg.TextItem | None = None
        self._repeats = 0
        self.scene().sigMouseMoved.connect(self._hover)
        self._ready = True
        self.clear_curve()

    def sizeHint(self) -> QSize:
        return QSize(760, 420)

    # -- drawing --------------------------------------------------------------------------------
    def clear_curve(self) -> None:
        self._reset()
        self._axis.set_sizes([])
        self.getPlotItem().setTitle(None)
        self._empty_item = self._message(EMPTY_TEXT)

    def show_models(self, result: LearningCurveResult, *, over_examples: bool = False) -> None:
        """Every finished model: the mean test macro-F1 per size, a marker at each size, and a
        translucent band from the lowest to the highest draw. Only the curves over training texts, or
        (``over_examples``) only those over the examples per category in a language model's prompt."""
        self._reset()
        self._mode, self._repeats = "models", result.repeats
        self._set_scale(over_examples)
        drawn = [model for model in result.models if model.ok and model.points]
        for index, model in enumerate(drawn):  # a model keeps its colour whichever chart it is on
            if model.over_examples != over_examples:
                continue
            rows = model.summary()
            self._lines.append(DrawnLine(model.name, PALETTE[index % len(PALETTE)], [r.size for r in rows],
                                         [r.mean for r in rows], [r.low for r in rows], [r.high for r in rows]))
        subtitle = MODELS_SUBTITLE if result.repeats > 1 else "line: one random draw per size"
        if over_examples:
            subtitle = EXAMPLES_SUBTITLE if result.repeats > 1 else "line: one random draw of examples per number"
        self._draw(EXAMPLES_TITLE if over_examples else MODELS_TITLE, subtitle.format(draws=draws_text(result.repeats)),
                   "test macro-F1 (agreement with your coding)", bands=result.repeats > 1)

    def show_categories(self, result: LearningCurveResult, model_name: str) -> None:
        """One line per category: its mean F1 over the draws, for the model ``model_name``."""
        self._reset()
        self._mode, self._model, self._repeats = "categories", model_name, result.repeats
        model = _find(result, model_name)
        self._set_scale(model is not None and model.over_examples)
        if model is not None and model.ok and model.points:
            rows = model.summary()
            last = rows[-1].category_means
            order = sorted(range(len(result.categories)), key=lambda i: -last[i])
            for place, index in enumerate(order):
                self._lines.append(DrawnLine(result.categories[index], PALETTE[place % len(PALETTE)],
                                             [r.size for r in rows], [r.category_means[index] for r in rows]))
        self._draw(CATEGORIES_TITLE.format(model=model_name),
                   CATEGORIES_SUBTITLE.format(draws=draws_text(result.repeats)),
                   "F1 of the category on the test texts", bands=False)

    def _set_scale(self, over_examples: bool) -> None:
        """The x axis for training texts (logarithmic) or for examples per category (linear, from 0)."""
        self._axis.linear = over_examples
        self._set_axis_label("bottom", EXAMPLES_X_LABEL if over_examples else X_LABEL)
        self.setToolTip(EXAMPLES_TIP if over_examples else CHART_TIP)

    def over_examples(self) -> bool:
        """Whether the chart shows curves over the examples per category (a linear axis from 0)."""
        return self._axis.linear

    def _reset(self) -> None:
        self.setMinimumHeight(self.base_height)
        item = self.getPlotItem()
        for graphic in self._items:
            item.removeItem(graphic)
        if self._empty_item is not None:
            item.removeItem(self._empty_item)
            self._empty_item = None
        self._remove_legend()
        self._items, self._lines = [], []
        self._mode, self._model = "empty", ""

    def _draw(self, title: str, subtitle: str, y_label: str, *, bands: bool) -> None:
        item = self.getPlotItem()
        if not self._lines:
            self.getPlotItem().setTitle(None)
            self._axis.set_sizes([])
            self._empty_item = self._message("No model finished, so there is no curve to show.")
            return
        self._set_axis_label("left", y_label)
        item.setTitle(f'<span style="color:{TEXT_COLOR}; font-size:10pt;">{html.escape(title)}</span><br>'
                      f'<span style="color:{HINT_TEXT}; font-size:8.5pt;">{html.escape(subtitle)}</span>')
        item.titleLabel.setMinimumWidth(0)  # a long title is cut, never widens the plot beyond the widget
        item.titleLabel.setMaximumHeight(TITLE_PIXELS)  # two lines: what is shown, and how to read it
        item.layout.setRowFixedHeight(0, TITLE_PIXELS)
        sizes = sorted({size for line in self._lines for size in line.sizes})
        self._axis.set_sizes(sizes)
        many = len(self._lines) > len(PALETTE)
        self.setMinimumHeight(max(self.base_height, len(self._lines) * LEGEND_ROW_PIXELS + LEGEND_MARGIN_PIXELS))
        for place, line in enumerate(self._lines):
            x = np.array([self._axis.position(size) for size in line.sizes], dtype=float)
            colour = QColor(line.colour)
            if bands and line.lows is not None and line.highs is not None:
                low = pg.PlotDataItem(x, line.lows, pen=pg.mkPen(None))
                high = pg.PlotDataItem(x, line.highs, pen=pg.mkPen(None))
                fill = QColor(colour)
                fill.setAlpha(BAND_ALPHA)
                band = pg.FillBetweenItem(low, high, brush=pg.mkBrush(fill))
                band.setZValue(1)
                for graphic in (low, high, band):
                    item.addItem(graphic)
                    self._items.append(graphic)
            style = Qt.PenStyle.DashLine if many and place >= len(PALETTE) else Qt.PenStyle.SolidLine
            width = 2.6 if self._mode == "models" else 1.8
            mean = pg.PlotDataItem(
                x, line.means, pen=pg.mkPen(colour, width=width, style=style), antialias=True,
                symbol="o", symbolSize=8 if self._mode == "models" else 6, symbolBrush=pg.mkBrush(colour),
                symbolPen=pg.mkPen(WHITE, width=1), name=line.name,
            )
            mean.setZValue(10)
            item.addItem(mean)
            self._items.append(mean)
        self._build_legend(self._legend_columns())
        self._fit_ranges()

    def _legend_columns(self) -> int:
        """One column while the entries fit beside the plot, else two."""
        return 1 if len(self._lines) * LEGEND_ROW_PIXELS + LEGEND_MARGIN_PIXELS <= max(self.height(), 300) else 2

    def _remove_legend(self) -> None:
        if self.legend is not None:  # a fresh legend each time: a cleared one keeps its old rows
            self.getPlotItem().layout.removeItem(self.legend)
            self.scene().removeItem(self.legend)
            self.legend = None

    def _build_legend(self, columns: int) -> None:
        """A legend right of the plot (never over a line), at the top, only as tall as its entries,
        read top to bottom (then the second column) in the order of the lines."""
        self._remove_legend()
        legend = pg.LegendItem(offset=None, verSpacing=-5, colCount=columns, labelTextColor=TEXT_COLOR,
                               labelTextSize="9pt" if columns == 1 else "8.5pt", pen=pg.mkPen(None))
        legend.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        # pyqtgraph keeps a floating legend at screen size; in the layout it must scale like the rest,
        # or a saved (twice as large) picture gets a tiny legend
        legend.setFlag(legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        layout = self.getPlotItem().layout
        layout.addItem(legend, 2, 3)
        layout.setAlignment(legend, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        means = self.mean_items()
        rows = math.ceil(len(means) / columns)
        order = [column * rows + row for row in range(rows) for column in range(columns)]  # filled row by row
        for index in order:
            if index < len(means):
                legend.addItem(means[index], self._lines[index].name)
        self.legend = legend

    def _fit_ranges(self) -> None:
        sizes = sorted({size for line in self._lines for size in line.sizes})
        lows = [v for line in self._lines for v in (line.lows or line.means)]
        highs = [v for line in self._lines for v in (line.highs or line.means)]
        bottom = max(0.0, math.floor(min(lows) * 10 - 0.25) / 10)
        top = min(1.0, math.ceil(max(highs) * 10 + 0.25) / 10)
        if top - bottom < 0.2:
            bottom = max(0.0, top - 0.2)
        left, right = self._axis.position(sizes[0]), self._axis.position(sizes[-1])
        smallest = 0.4 if self._axis.linear else 0.05
        pad = max(smallest, (right - left) * 0.07)  # room for the first and the last tick label
        self.getPlotItem().getViewBox().setRange(xRange=(left - pad, right + pad), yRange=(bottom, top), padding=0)
        self._refit()

    def _refit(self) -> None:
        if not self._lines:
            return
        view = self.getPlotItem().getViewBox()
        (left, right), _ = view.viewRange()
        width = max(view.width(), self.width() * 0.6)
        if right > left:
            self._axis.choose_labels(width / (right - left))
        if self.legend is not None and self.legend.columnCount != self._legend_columns():
            self._build_legend(self._legend_columns())

    # -- what it shows (for tests and captions) ------------------------------------------------
    def mode(self) -> str:
        """"models", "categories" or "empty"."""
        return self._mode

    def model_name(self) -> str:
        """The model whose categories are shown ("" in the models view)."""
        return self._model

    def lines(self) -> list[DrawnLine]:
        return list(self._lines)

    def line_names(self) -> list[str]:
        return [line.name for line in self._lines]

    def mean_items(self) -> list[pg.PlotDataItem]:
        """The drawn mean lines (with markers), one per model or category."""
        return [g for g in self._items if isinstance(g, pg.PlotDataItem) and g.opts.get("symbol") is not None]

    def band_items(self) -> list[pg.FillBetweenItem]:
        return [g for g in self._items if isinstance(g, pg.FillBetweenItem)]

    def legend_names(self) -> list[str]:
        """The legend's entries in reading order (down the first column, then the second)."""
        if self.legend is None:
            return []
        entries = {id(sample.item): label.text for sample, label in self.legend.items}
        return [entries[id(item)] for item in self.mean_items() if id(item) in entries]

    def x_labels(self) -> list[str]:
        return self._axis.shown_labels()

    def title_text(self) -> str:
        return self.getPlotItem().titleLabel.text or ""

    def message(self) -> str | None:
        return self._empty_item.toPlainText() if self._empty_item is not None else None

    # -- hover -----------------------------------------------------------------------------------
    def _hover(self, scene_pos: QPointF) -> None:
        view = self.getPlotItem().getViewBox()
        if not self._lines or not view.sceneBoundingRect().contains(scene_pos):
            return
        best: tuple[float, str] | None = None
        for line in self._lines:
            for i, size in enumerate(line.sizes):
                point = view.mapViewToScene(QPointF(self._axis.position(size), line.means[i]))
                distance = math.hypot(point.x() - scene_pos.x(), point.y() - scene_pos.y())
                if distance <= HOVER_PIXELS and (best is None or distance < best[0]):
                    best = (distance, self.point_tip(line, i))
        if best is not None:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), best[1], self)

    def point_tip(self, line: DrawnLine, index: int) -> str:
        """"SVM · Basic BOW with 1,000 coded texts: macro-F1 0.572 (0.564 to 0.579 over 3 random draws)"."""
        what = "macro-F1" if self._mode == "models" else "F1"
        size = line.sizes[index]
        if not self._axis.linear:
            amount = f"{format_count(size)} coded texts"
        elif size == 0:
            amount = "no examples (zero-shot)"
        else:
            amount = f"{format_count(size)} example{'s' if size != 1 else ''} per category"
        text = f"{line.name} with {amount}: {what} {line.means[index]:.3f}"
        if line.lows is not None and line.highs is not None and self._repeats > 1:
            text += f" ({line.lows[index]:.3f} to {line.highs[index]:.3f} over {draws_text(self._repeats)})"
        elif self._repeats > 1:
            text += f" (mean of {draws_text(self._repeats)})"
        return text


def _find(result: LearningCurveResult, name: str) -> ModelCurve | None:
    return next((model for model in result.models if model.name == name), None)
