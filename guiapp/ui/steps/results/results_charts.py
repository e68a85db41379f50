"""Charts of a study's results: macro-F1 per model with its interval, the confusion matrix of one
model (``confusion_heatmap.py``), and the time each model took.

Like every TextLab chart they are static pictures that draw exactly the numbers they are given,
and they save as PNG or SVG through the right-click entry or :meth:`ChartWidget.export`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal

from guiapp.ui.theme import BAR_COLOR, BEST_COLOR, CHOSEN_COLOR, TEXT_COLOR, WHISKER_COLOR
from guiapp.ui.common.chart_base import LyingBarsChart, chart_font
from guiapp.ui.common.chart_numbers import format_seconds


class _NamedBars(LyingBarsChart):
    """Horizontal bars, one per model, first at the top, names on the left, a label at each end."""

    ROW_PIXELS = 32
    NAME_FONT = 9.5
    NAME_SHARE = 0.32
    MAX_LABEL_PIXELS = 300
    MIN_LABEL_PIXELS = 120
    LABEL_FONT = 9
    X_START = 0.0  # left end of the value axis, as a share of its right end

    modelClicked = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.scene().sigMouseClicked.connect(self._clicked)

    def sizeHint(self) -> QSize:
        return QSize(700, self.height())

    # drawn by subclasses -----------------------------------------------------------------------
    def _ends(self) -> list[float]:
        """Where each bar's label starts (the bar's end, or its whisker's)."""
        raise NotImplementedError

    def _x_limit(self) -> float:
        return max(self._ends(), default=1.0) * 1.02

    # shared -----------------------------------------------------------------------------------------
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

    def names(self) -> list[str]:
        return list(self._names)

    def _refit(self) -> None:
        """Leave room right of every bar for its label, whatever the widget's width."""
        if not self._names or len(self._value_items) != len(self._names):
            return  # still being drawn
        self._place_names()
        x_max = self._value_end(self._ends(), [item.toPlainText() for item in self._value_items],
                                chart_font(self.LABEL_FONT, bold=True), least=self._x_limit(), gap=14)
        self.getPlotItem().getViewBox().setRange(
            xRange=(self.X_START * x_max, x_max), yRange=(-0.6, len(self._names) - 0.4), padding=0)

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        index = self._row_at(event.scenePos())
        if index is not None:
            self.modelClicked.emit(self._names[index])


class F1BarChart(_NamedBars):
    """Test macro-F1 per model, highest first, the recommended model in green, with the 95 % interval
    as whiskers.

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
        self._green = 0  # which bar is the recommended model's
        self._whiskers: pg.ErrorBarItem | None = None
        self._ready = True
        self.set_scores([])

    def set_scores(self, entries: Sequence[tuple[str, float, float | None, float | None]],
                   recommended: str | None = None) -> None:
        """One bar per ``(name, macro-F1, low, high)``, highest first; the ``recommended`` model's bar
        in green (chosen on the training texts, it need not score highest on the test texts), or the
        highest when none is named."""
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
        green = self._names.index(recommended) if recommended in self._names else 0
        self._draw_bars(self._values, [BEST_COLOR if i == green else BAR_COLOR for i in range(n)])
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
        self._add_labels([self.value_label(i) for i in range(n)], [i == green for i in range(n)])
        self._green = green
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
        """The green bar's model: the recommended one (the highest when none was named)."""
        return self._names[self._green] if self._names else None

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

