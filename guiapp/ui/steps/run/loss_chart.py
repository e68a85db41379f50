"""The live training-loss chart of a fine-tuned Transformer on the Run step.

:class:`LossChart` draws the loss after each training step, one line per training run (each
setting on each tuning split, then the final model); the run in progress is drawn bold in blue,
earlier runs thin and grey, and its name is the chart's title so a saved picture explains
itself. :class:`LossPanel` adds a caption with the speed (steps per second) and the time left for
the current run, and a "Save chart…" button. Both only show the engine's
:class:`~guiapp.core.events.Metric` events; they compute nothing about the model.
"""

from __future__ import annotations

import html
import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from guiapp.core.events import Metric
from guiapp.ui import theme
from guiapp.ui.common.chart_base import ChartWidget, CountAxis
from guiapp.ui.common.glossary import GlossaryLabel, explain
from guiapp.ui.common.job_progress import format_time_left
from guiapp.ui.common.save_chart_button import save_chart_button

EMPTY_TEXT = "The loss appears here after the first training step."
CHART_TIP = (
    explain(["loss"]) + "\nEach line is one training run: every setting that is tried, then the "
    "final model. The run in progress is drawn in blue, earlier runs in grey.\n"
    "Right-click to save this chart as an image."
)


class LossChart(ChartWidget):
    """Loss per training step, one curve per run; the current run is highlighted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, bottom_axis=CountAxis("bottom"))
        self._default_name = "training_loss"
        self._steps: dict[str, list[int]] = {}
        self._values: dict[str, list[float]] = {}
        self._totals: dict[str, int | None] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._current = ""
        self._set_axis_label("bottom", "training step")
        self._set_axis_label("left", "loss (lower is better)")
        self.getPlotItem().showGrid(x=False, y=True, alpha=0.18)
        self.getPlotItem().getViewBox().enableAutoRange(enable=False)
        self.setToolTip(CHART_TIP)
        self.setMinimumHeight(190)
        self.setMaximumHeight(250)  # a model row, not the whole page
        self._empty = self._message(EMPTY_TEXT)
        self._ready = True

    # -- data -----------------------------------------------------------------------------------
    def add_metric(self, event: Metric) -> bool:
        """Add a ``"loss"`` event (other measures are ignored); True when it was drawn."""
        if event.name != "loss":
            return False
        self.add_point(event.run or "training", event.step, event.value, event.total)
        return True

    def add_point(self, run: str, step: int, value: float, total: int | None = None) -> None:
        if not np.isfinite(value):
            return
        if run not in self._curves:
            if self._empty is not None:
                self.getPlotItem().removeItem(self._empty)
                self._empty = None
            self._steps[run], self._values[run] = [], []
            curve = pg.PlotDataItem(antialias=True)
            self.getPlotItem().addItem(curve)
            self._curves[run] = curve
        steps, values = self._steps[run], self._values[run]
        if steps and step <= steps[-1]:  # a repeated or late point: keep the series in order
            return
        steps.append(int(step))
        values.append(float(value))
        if total:
            self._totals[run] = int(total)
        if run != self._current:
            self._current = run
            self._restyle()
        self._curves[run].setData(np.asarray(steps, dtype=float), np.asarray(values, dtype=float))
        self._refit()

    def clear_runs(self) -> None:
        for curve in self._curves.values():
            self.getPlotItem().removeItem(curve)
        self._steps.clear()
        self._values.clear()
        self._totals.clear()
        self._curves.clear()
        self._current = ""
        self.getPlotItem().setTitle(None)
        if self._empty is None:
            self._empty = self._message(EMPTY_TEXT)

    # -- what it shows (for tests and captions) -------------------------------------------------------
    def runs(self) -> list[str]:
        """The runs drawn, in the order they started (one curve each)."""
        return list(self._curves)

    def current_run(self) -> str:
        return self._current

    def series(self, run: str) -> tuple[list[int], list[float]]:
        """(steps, losses) drawn for ``run``."""
        return list(self._steps.get(run, [])), list(self._values.get(run, []))

    def curve(self, run: str) -> pg.PlotDataItem | None:
        return self._curves.get(run)

    def total(self, run: str) -> int | None:
        return self._totals.get(run)

    def title_text(self) -> str:
        return self.getPlotItem().titleLabel.text or ""

    # -- look ------------------------------------------------------------------------------------------
    def _restyle(self) -> None:
        for run, curve in self._curves.items():
            now = run == self._current
            curve.setPen(pg.mkPen(theme.BAR_COLOR if now else theme.EARLIER_COLOR, width=2.4 if now else 1.2))
            curve.setZValue(10 if now else 1)
        earlier = len(self._curves) - 1
        title = (f'<span style="color:{theme.BAR_COLOR};">━ now: {html.escape(self._current)}</span>')
        if earlier:
            title += (f'&nbsp;&nbsp;&nbsp;<span style="color:{theme.EARLIER_TEXT};">━ {earlier} earlier run'
                      f'{"s" if earlier != 1 else ""}</span>')
        self.getPlotItem().setTitle(title, size="9pt")

    def _refit(self) -> None:
        if not self._curves:
            return
        top = max((max(values) for values in self._values.values() if values), default=1.0)
        last = max((steps[-1] for steps in self._steps.values() if steps), default=1)
        right = max([last, *(total for total in self._totals.values() if total)])
        view = self.getPlotItem().getViewBox()
        view.setRange(xRange=(0, max(right, 1)), yRange=(0, max(top * 1.08, 1e-3)), padding=0)


class LossPanel(QWidget):
    """The loss chart with a caption (current run, speed, time left) and "Save chart…"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lossPanel")
        self.chart = LossChart()
        self.chart.setObjectName("lossChart")
        self.caption = GlossaryLabel("", terms=["loss", "learning rate", "epoch", "fold", "validation split"])
        self.caption.setObjectName("lossCaption")
        self.caption.setStyleSheet(theme.SOFT_STYLE)
        self.save_button = save_chart_button(lambda: self.chart, "saveLossChart")
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.caption, 1)
        top.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 4, 0, 0)
        column.setSpacing(2)
        column.addLayout(top)
        column.addWidget(self.chart)
        self._started: dict[str, tuple[float, int]] = {}  # run -> (time, step) of its first point
        self.caption.set_plain_text("Training loss (lower is better): waiting for the first training step…")

    def add_metric(self, event: Metric, now: float | None = None) -> bool:
        """Draw ``event`` and update the caption; ``now`` (seconds) is for tests."""
        if not self.chart.add_metric(event):
            return False
        now = time.monotonic() if now is None else now
        run = event.run or "training"
        first = self._started.setdefault(run, (now, event.step))
        self.caption.set_plain_text(self.caption_for(run, event.step, event.total, event.value, now - first[0],
                                                     event.step - first[1]))
        return True

    @staticmethod
    def caption_for(run: str, step: int, total: int | None, loss: float, seconds: float, steps_done: int) -> str:
        """"Training loss (lower is better) — setting 2 of 6 (…): step 37 of 164 · loss 0.41 ·
        2.1 steps per second · about 1 min left for this run"."""
        parts = [f"step {step:,} of {total:,}" if total else f"step {step:,}", f"loss {loss:.2f}"]
        if seconds >= 1.0 and steps_done > 0:
            rate = steps_done / seconds
            parts.append(f"{rate:.1f} steps per second" if rate >= 0.95 else f"{1 / rate:.1f} seconds per step")
            if total and step < total:
                parts.append(format_time_left((total - step) / rate) + " for this run")
        return f"Training loss (lower is better) — {run}: " + " · ".join(parts)

    def caption_text(self) -> str:
        return self.caption.plain_text()

