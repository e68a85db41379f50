"""SVG exports are drawn like the PNG ones: same layout, same text sizes, whiskers in place.

Each chart is saved as PNG and as SVG; the SVG is drawn by Qt's own SVG renderer onto a picture
of the PNG's size, and the two are compared as small grayscale pictures (so that antialiasing
and font hinting do not count), then element by element: the whiskers' rows and columns, the
cell labels' boxes."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QSettings
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QFileDialog

from guiapp.ui.common.chart_base import CHART_FOLDER_KEY, chart_folder
from guiapp.ui.common.confusion_heatmap import ConfusionHeatmap
from guiapp.ui.steps.results.results_charts import F1BarChart
from tests.ui.helpers import settle_chart

SCORES = [("Bag of words + SVM", 0.75, 0.70, 0.80), ("Sentence embeddings", 0.62, 0.55, 0.68),
          ("Naive Bayes", 0.41, None, None)]
CATEGORIES = ["Economy", "Health", "Foreign affairs"]
MATRIX = [[300, 45, 12], [40, 260, 30], [15, 25, 180]]


def gray(image: QImage) -> np.ndarray:
    """The picture as a float array of gray levels 0 … 255 (rows × columns)."""
    image = image.convertToFormat(QImage.Format.Format_Grayscale8)
    stride = image.bytesPerLine()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=stride * image.height())
    return data.reshape(image.height(), stride)[:, : image.width()].astype(float)


def shrink(values: np.ndarray, factor: int = 8) -> np.ndarray:
    rows, columns = (values.shape[0] // factor) * factor, (values.shape[1] // factor) * factor
    return values[:rows, :columns].reshape(rows // factor, factor, columns // factor, factor).mean(axis=(1, 3))


def export_both(chart, tmp_path) -> tuple[QImage, QImage]:
    """(the PNG, the SVG drawn at the PNG's size)."""
    png = QImage(str(chart.export(tmp_path / "chart.png")))
    svg_path = chart.export(tmp_path / "chart.svg")
    renderer = QSvgRenderer(str(svg_path))
    assert renderer.isValid()
    drawn = QImage(png.size(), QImage.Format.Format_RGB32)
    drawn.fill(QColor("white"))
    painter = QPainter(drawn)
    renderer.render(painter)
    painter.end()
    return png, drawn


def ink_box(mask: np.ndarray) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) of the True pixels."""
    rows, columns = np.nonzero(mask)
    return int(rows.min()), int(rows.max()), int(columns.min()), int(columns.max())


def assert_alike(png: QImage, drawn: QImage) -> None:
    a, b = shrink(gray(png)), shrink(gray(drawn))
    assert a.shape == b.shape
    assert np.abs(a - b).mean() < 3.0  # gray levels of 255; a shifted or shrunk drawing gives 10+
    # glyphs may land a pixel or two apart (Qt's SVG renderer lays text out unhinted); whole
    # elements may not: few 8 × 8 blocks differ much
    assert (np.abs(a - b) > 40).mean() < 0.02


@pytest.fixture
def f1_chart(qtbot):
    chart = F1BarChart()
    qtbot.addWidget(chart)
    chart.resize(640, 260)
    chart.set_scores(SCORES)
    chart.show()
    qtbot.waitExposed(chart)
    settle_chart(chart)
    return chart


@pytest.fixture
def heatmap(qtbot):
    chart = ConfusionHeatmap()
    qtbot.addWidget(chart)
    chart.resize(560, 460)
    chart.set_matrix(CATEGORIES, MATRIX)
    chart.show()
    qtbot.waitExposed(chart)
    settle_chart(chart)
    return chart


def to_image(chart, image: QImage, x: float, y: float) -> tuple[int, int]:
    """Where the data point (x, y) lies in an exported picture of the chart (column, row)."""
    plot = chart.getPlotItem()
    scale = image.width() / plot.sceneBoundingRect().width()
    point = plot.getViewBox().mapViewToScene(QPointF(x, y)) - plot.sceneBoundingRect().topLeft()
    return round(point.x() * scale), round(point.y() * scale)


def dark_columns(image: QImage, row: int, left: int, right: int) -> np.ndarray:
    """Per column from left to right: is there a whisker-dark pixel within 4 rows of ``row``?"""
    band = gray(image)[row - 4: row + 5, left: right]
    return band.min(axis=0) < 85


def test_f1_chart_svg_looks_like_the_png(f1_chart, tmp_path):
    png, drawn = export_both(f1_chart, tmp_path)
    assert_alike(png, drawn)
    assert f1_chart.whiskers()[:2] == [pytest.approx((0.70, 0.80)), pytest.approx((0.55, 0.68))]
    for index, (low, high) in enumerate(f1_chart.whiskers()[:2]):
        for image in (png, drawn):
            # the whisker runs from low to high on the bar's middle line (0.70–0.80 stays there) ...
            left, row = to_image(f1_chart, image, low, index)
            right, _ = to_image(f1_chart, image, high, index)
            assert dark_columns(image, row, left + 3, right - 3).all()
            # ... and not beyond: just left of its low end there is only the bar
            before, _ = to_image(f1_chart, image, low - 0.04, index)
            assert not dark_columns(image, row, before, left - 4).any()


def label_box(image: QImage, heatmap: ConfusionHeatmap, row: int, column: int) -> tuple[int, int, int, int]:
    """The box of the ink inside one cell (its count and share), in the exported picture."""
    view = heatmap.getPlotItem().getViewBox()
    origin = heatmap.getPlotItem().sceneBoundingRect().topLeft()
    scale = image.width() / heatmap.getPlotItem().sceneBoundingRect().width()
    corner_a = view.mapViewToScene(QPointF(column - 0.42, row - 0.42)) - origin
    corner_b = view.mapViewToScene(QPointF(column + 0.42, row + 0.42)) - origin
    x0, x1 = sorted((int(corner_a.x() * scale), int(corner_b.x() * scale)))
    y0, y1 = sorted((int(corner_a.y() * scale), int(corner_b.y() * scale)))
    cell = gray(image)[y0:y1, x0:x1]
    background = np.median(cell)
    top, bottom, left, right = ink_box(np.abs(cell - background) > 90)
    return top + y0, bottom + y0, left + x0, right + x0


def test_confusion_matrix_svg_looks_like_the_png(heatmap, tmp_path):
    png, drawn = export_both(heatmap, tmp_path)
    assert_alike(png, drawn)
    for row, column in [(0, 0), (1, 2), (2, 1)]:
        expected = label_box(png, heatmap, row, column)
        got = label_box(drawn, heatmap, row, column)
        height_expected, height_got = expected[1] - expected[0], got[1] - got[0]
        assert abs(height_got - height_expected) <= 0.08 * height_expected  # not drawn at 75 %
        for a, b in zip(expected, got, strict=True):
            assert abs(a - b) <= 6


def test_svg_has_the_charts_size(f1_chart, tmp_path):
    renderer = QSvgRenderer(str(f1_chart.export(tmp_path / "chart.svg")))
    box = renderer.viewBoxF()
    plot = f1_chart.getPlotItem().sceneBoundingRect()
    assert abs(box.width() - plot.width()) <= 1 and abs(box.height() - plot.height()) <= 1


def test_save_dialog_starts_in_documents_then_remembers_the_folder(f1_chart, tmp_path, monkeypatch,
                                                                    isolated_settings):
    starts = []
    target = tmp_path / "charts" / "scores"
    target.parent.mkdir()

    def dialog(parent, caption, start, filters):
        starts.append(start)
        return str(target), "SVG drawing (*.svg)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    first_start = chart_folder()
    assert f1_chart.save_with_dialog() == target.with_suffix(".svg")
    assert starts[0].startswith(str(first_start)) and starts[0].endswith("agreement-per-model.png")
    assert str(first_start) != str(tmp_path / "charts")
    assert f1_chart.save_with_dialog() is not None
    assert starts[1].startswith(str(tmp_path / "charts"))
    assert QSettings().value(CHART_FOLDER_KEY) == str(tmp_path / "charts")  # kept for the next session
