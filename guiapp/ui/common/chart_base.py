"""The base of TextLab's charts: a static pyqtgraph plot with a white look and PNG/SVG export.

Charts are pictures, not instruments: no panning or zooming (which only confuses), they scroll
with the page, and every chart can be saved through the right-click entry "Save chart as
image…" or :meth:`ChartWidget.export`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPicture, QResizeEvent
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QMenu, QToolTip

from guiapp.ui.theme import AXIS_COLOR, FAINT_TEXT, TEXT_COLOR, WHITE
from guiapp.ui.common.chart_numbers import format_count, format_share  # noqa: F401 — the charts' number words
from guiapp.ui.common.save_dialogs import EXPORT_FOLDER_KEY, ask_save_path, export_folder

GRID_ALPHA = 0.18
SAVE_ACTION_TEXT = "Save chart as image…"
PLOT_MARGINS = (6, 10, 16, 6)  # left, top, right, bottom (pixels around the axes)
EXPORT_SCALE = 2  # PNG exports at twice the screen size, crisp in reports
CHART_FOLDER_KEY = EXPORT_FOLDER_KEY  # QSettings key: where charts (and every other export) were last saved


def chart_folder() -> Path:
    """Where the "Save chart" dialog opens: the folder a file was last saved to, else the user's
    Documents folder (else the home folder)."""
    return export_folder()


def chart_font(point_size: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font


class CountAxis(pg.AxisItem):
    """An axis for counts: whole numbers only, with thousands separators."""

    def tickValues(self, minVal, maxVal, size):
        levels = super().tickValues(minVal, maxVal, size)
        result = []
        for spacing, values in levels:
            if spacing < 1:
                continue
            whole = [v for v in values if abs(v - round(v)) < 1e-9 and v >= 0]
            result.append((spacing, whole))
        return result or [(1.0, [v for v in range(int(np.ceil(minVal)), int(maxVal) + 1)])]

    def tickStrings(self, values, scale, spacing):
        return [format_count(v * scale) for v in values]


class ChartWidget(pg.PlotWidget):
    """Common look and behaviour: white background, dark readable axes, no mouse navigation,
    a right-click menu with "Save chart as image…", and :meth:`export`."""

    exported = Signal(str)  # path of a saved image
    _ready = False  # pyqtgraph calls resizeEvent while constructing, before our state exists

    def __init__(self, parent=None, *, left_axis: pg.AxisItem | None = None,
                 bottom_axis: pg.AxisItem | None = None) -> None:
        axis_items = {}
        if left_axis is not None:
            axis_items["left"] = left_axis
        if bottom_axis is not None:
            axis_items["bottom"] = bottom_axis
        super().__init__(parent, background=WHITE, axisItems=axis_items or None)
        item = self.getPlotItem()
        item.setMenuEnabled(False)
        item.hideButtons()
        item.setMouseEnabled(x=False, y=False)
        item.getViewBox().setMouseEnabled(x=False, y=False)
        item.layout.setContentsMargins(*PLOT_MARGINS)
        for name in ("left", "bottom"):
            axis = item.getAxis(name)
            axis.setPen(pg.mkPen(AXIS_COLOR))
            axis.setTextPen(pg.mkPen(TEXT_COLOR))
            axis.setTickFont(chart_font(9))
            axis.enableAutoSIPrefix(False)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._show_context_menu)
        self.setToolTip("Right-click to save this chart as an image.")
        self._default_name = "chart"

    # ----- saving -----------------------------------------------------------------------------
    def context_menu(self) -> QMenu:
        """The right-click menu (built fresh each time)."""
        menu = QMenu(self)
        action = menu.addAction(SAVE_ACTION_TEXT)
        action.setToolTip("Save this chart as a PNG picture or an SVG drawing, e.g. for a paper.")
        action.triggered.connect(self.save_with_dialog)
        return menu

    def _show_context_menu(self, pos) -> None:
        menu = self.context_menu()
        menu.exec(self.mapToGlobal(pos))
        menu.deleteLater()

    def save_with_dialog(self) -> Path | None:
        """Ask where to save (PNG or SVG) and save; returns the path, or None if cancelled.
        The dialog opens in the folder a chart was last saved to (remembered across sessions),
        at first in the user's Documents folder."""
        path, _ = ask_save_path(self, "Save chart as image", f"{self._default_name}.png",
                                "PNG image (*.png);;SVG drawing (*.svg)")
        return self.export(path) if path is not None else None

    def export(self, path: str | Path) -> Path:
        """Save the chart as ``.svg`` (vector drawing) or ``.png`` (picture; also for any
        other or missing extension). Returns the path written. The file appears complete or
        not at all (written to a temporary name, then renamed)."""
        target = Path(path)
        if target.suffix.lower() not in (".svg", ".png"):
            target = target.with_name(target.name + ".png")
        self._prepare_export()
        partial = target.with_name(f".{target.stem}.partial{target.suffix}")
        try:
            if target.suffix.lower() == ".svg":
                self._export_svg(partial)
            else:
                exporter = pg_exporters.ImageExporter(self.getPlotItem())
                width = self.getPlotItem().sceneBoundingRect().width()
                exporter.parameters()["width"] = int(max(1, width) * EXPORT_SCALE)
                exporter.parameters()["background"] = QColor(WHITE)
                exporter.export(str(partial))
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        self.exported.emit(str(target))
        return target

    def _export_svg(self, path: Path) -> None:
        """Draw the same scene as the PNG, through Qt's SVG generator. (pyqtgraph 0.14's
        SVGExporter fails on the closed paths newer Qt versions write, pyqtgraph issue #3495.)"""
        source = self.getPlotItem().sceneBoundingRect()
        size = QSize(int(source.width()), int(source.height()))
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(size)
        generator.setViewBox(QRect(0, 0, size.width(), size.height()))
        # pyqtgraph draws axes, whiskers and text through QPictures, which a painter replays scaled
        # by the ratio of the device's resolution to the picture's: the generator's default 72 dpi
        # against the screen's 96 shrank and shifted them. Same resolution, same drawing.
        generator.setResolution(QPicture().logicalDpiY())
        generator.setTitle(self._default_name)
        generator.setDescription("Chart made with TextLab")
        painter = QPainter(generator)
        try:
            painter.fillRect(QRectF(0, 0, size.width(), size.height()), QColor(WHITE))
            self.scene().render(painter, QRectF(0, 0, size.width(), size.height()), source)
        finally:
            painter.end()

    def _prepare_export(self) -> None:
        """Lay out a chart that is not on screen: a hidden widget gets no resize events, so its
        plot would keep pyqtgraph's default 640 × 480 layout."""
        if not self.isVisible():
            size = self.size().expandedTo(self.sizeHint()).expandedTo(self.minimumSize())
            self.resize(size)
            self.resizeEvent(QResizeEvent(size, size))  # lays out the plot, then _refit
            self.getPlotItem().layout.activate()

    def _refit(self) -> None:  # overridden: recompute ranges that depend on pixel sizes
        pass

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._ready and self.getPlotItem() is not None:  # None once pyqtgraph closed it
            self._refit()

    def wheelEvent(self, event) -> None:
        # Static chart: let the page scroll instead of zooming.
        event.ignore()

    # ----- helpers ----------------------------------------------------------------------------
    def _set_axis_label(self, name: str, text: str) -> None:
        self.getPlotItem().setLabel(name, text, **{"color": TEXT_COLOR, "font-size": "10pt"})

    def _message(self, text: str) -> pg.TextItem:
        """A grey message in the middle of an empty chart."""
        item = pg.TextItem(text, color=FAINT_TEXT, anchor=(0.5, 0.5))
        item.setFont(chart_font(10))
        item.setPos(0.5, 0.5)
        self.getPlotItem().addItem(item)
        self.getPlotItem().getViewBox().setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        return item


class LyingBarsChart(ChartWidget):
    """Bars lying down, one per row from the top: a name left of each (shortened to fit, whole in the
    tooltip), a label at its end, and a value axis that leaves room for the labels whatever the
    width. Subclasses draw the bars and say what a row's tooltip is."""

    NAME_FONT = 9.0  # points, of the names on the left
    NAME_SHARE = 0.34  # of the chart's width the names may take …
    MIN_LABEL_PIXELS = 110  # … within these bounds
    MAX_LABEL_PIXELS = 260
    EMPTY_TEXT = "Nothing to show"

    def __init__(self, parent=None, **axes: pg.AxisItem) -> None:  # noqa: ANN001 — a QWidget
        super().__init__(parent, **axes)
        item = self.getPlotItem()
        item.getViewBox().invertY(True)
        item.showGrid(x=True, y=False, alpha=GRID_ALPHA)
        left = item.getAxis("left")
        left.setStyle(tickLength=0, autoExpandTextSpace=False)
        left.setTickFont(chart_font(self.NAME_FONT))
        self._names: list[str] = []
        self._shown_names: list[str] = []
        self._label_pixels = 0
        self._axis_pixels = 0  # the width given to the left axis (its own width follows a layout pass later)
        self._bars: pg.BarGraphItem | None = None
        self._value_items: list[pg.TextItem] = []
        self._message_item: pg.TextItem | None = None
        self.scene().sigMouseMoved.connect(self._hover)

    # ----- what the user sees -------------------------------------------------------------------
    def axis_labels(self) -> list[str]:
        """The names on the left axis, top to bottom (long names elided)."""
        return list(self._shown_names)

    def value_labels(self) -> list[str]:
        """The texts drawn at the end of the bars, top to bottom."""
        return [item.toPlainText() for item in self._value_items]

    def bar_item(self) -> pg.BarGraphItem | None:
        """The pyqtgraph bars (their ``opts['width']`` are the values)."""
        return self._bars

    def message(self) -> str | None:
        """The message shown instead of bars (no data), if any."""
        return self._message_item.toPlainText() if self._message_item else None

    # ----- drawing ------------------------------------------------------------------------------
    def _clear(self) -> None:
        self.getPlotItem().clear()
        self._bars = None
        self._value_items = []
        self._message_item = None
        self._shown_names = []
        self._label_pixels = 0

    def _show_empty(self) -> None:
        left = self.getPlotItem().getAxis("left")
        left.setTicks([[]])
        left.setWidth(20)
        self._message_item = self._message(self.EMPTY_TEXT)
        self.setFixedHeight(150)

    def _place_names(self) -> None:
        """Write the names down the left axis, each shortened to the room the chart's width leaves."""
        room = int(min(self.MAX_LABEL_PIXELS, max(self.MIN_LABEL_PIXELS, self.width() * self.NAME_SHARE)))
        if room == self._label_pixels:
            return
        self._label_pixels = room
        metrics = QFontMetrics(chart_font(self.NAME_FONT))
        self._shown_names = [metrics.elidedText(name, Qt.TextElideMode.ElideRight, room) for name in self._names]
        left = self.getPlotItem().getAxis("left")
        left.setTicks([[(float(i), text) for i, text in enumerate(self._shown_names)]])
        self._axis_pixels = min(room, max(metrics.horizontalAdvance(s) for s in self._shown_names)) + 14
        left.setWidth(self._axis_pixels)

    def _value_end(self, ends: Sequence[float], labels: Sequence[str], font: QFont, least: float, gap: int,
                   crowded: float | None = None) -> float:
        """The right end of the value axis that leaves room for each bar's label (``gap`` pixels after
        the bar's end, then the text), at least ``least``. A label that cannot fit at all asks for
        ``crowded`` (default: three times its bar)."""
        # the view's own width lags behind while Qt lays out: derive it from the widget's and the axis's
        left_margin, _, right_margin, _ = PLOT_MARGINS
        width_px = max(120.0, self.width() - self._axis_pixels - left_margin - right_margin - 6)
        metrics = QFontMetrics(font)
        x_max = least
        for end, text in zip(ends, labels, strict=True):
            room = width_px - metrics.horizontalAdvance(text) - gap
            if room > 20:
                x_max = max(x_max, end * width_px / room)
            else:
                x_max = max(x_max, end * 3 if crowded is None else crowded)
        return x_max

    # ----- pointing -----------------------------------------------------------------------------
    def _row_at(self, scene_pos: QPointF) -> int | None:
        """The row under a point of the scene (on its bar or its name), or None."""
        if not self._names:
            return None
        item = self.getPlotItem()
        if not (item.getViewBox().sceneBoundingRect().contains(scene_pos)
                or item.getAxis("left").sceneBoundingRect().contains(scene_pos)):
            return None
        index = round(item.getViewBox().mapSceneToView(scene_pos).y())
        return index if 0 <= index < len(self._names) else None

    def _hover(self, scene_pos: QPointF) -> None:
        index = self._row_at(scene_pos)
        if index is not None:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), self._tip(index), self)

    def _tip(self, index: int) -> str:
        raise NotImplementedError
