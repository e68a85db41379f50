"""The charts draw exactly the numbers they are given, stay readable, and save as PNG or SVG."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog, QToolTip

from guiapp.ui.theme import BAR_COLOR, FLAG_COLOR
from guiapp.ui.common.chart_base import SAVE_ACTION_TEXT, format_share
from guiapp.ui.steps.data.charts import CategoryBarChart, HistogramChart
from tests.ui.helpers import settle_chart

LABELS = ["Health", "Civil Rights, Minority Issues, and Civil Liberties", "Energy", "Foreign Trade"]
COUNTS = [1520, 830, 45, 3]
SHARES = [c / sum(COUNTS) for c in COUNTS]
FLAGGED = [False, False, False, True]


@pytest.fixture
def bar_chart(qtbot):
    chart = CategoryBarChart()
    qtbot.addWidget(chart)
    chart.resize(700, 300)
    chart.set_categories(LABELS, COUNTS, SHARES, FLAGGED)
    chart.show()
    qtbot.waitExposed(chart)
    return chart


@pytest.fixture
def histogram(qtbot):
    chart = HistogramChart()
    qtbot.addWidget(chart)
    chart.resize(700, 230)
    chart.set_histogram([0, 100, 200, 300, 400, 500, 600], [50, 120, 30, 8, 2, 1], limit=512,
                        unit_label="subword tokens")
    chart.show()
    qtbot.waitExposed(chart)
    return chart


def test_bars_are_the_counts_largest_at_the_top(bar_chart):
    bars = bar_chart.bar_item()
    assert list(bars.opts["width"]) == COUNTS
    assert list(bars.opts["y"]) == [0, 1, 2, 3]
    assert bar_chart.getPlotItem().getViewBox().yInverted()  # row 0 (the largest) at the top
    assert bar_chart.value_labels() == [
        "1,520 (63.4 %)", "830 (34.6 %)", "45 (1.9 %)", "3 (0.1 %) – too few",
    ]
    shown = bar_chart.axis_labels()
    assert shown[0] == "Health" and shown[2] == "Energy"
    assert shown[1].startswith("Civil Rights")


def test_too_small_categories_are_drawn_in_the_warning_colour(bar_chart):
    colours = [brush.color().name() for brush in bar_chart.bar_item().opts["brushes"]]
    assert colours == [BAR_COLOR, BAR_COLOR, BAR_COLOR, FLAG_COLOR]
    assert bar_chart.flagged() == FLAGGED


def test_every_bar_label_fits_inside_the_chart(bar_chart):
    # wide after narrow and back: the room for labels must not depend on the previous width
    for width in (700, 450, 1000, 450, 700):
        bar_chart.resize(width, bar_chart.height())
        settle_chart(bar_chart)
        assert bar_chart.width() == width
        view_right = bar_chart.getPlotItem().getViewBox().sceneBoundingRect().right()
        labels = [item for item in bar_chart.getPlotItem().items if isinstance(item, pg.TextItem)]
        assert [label.toPlainText() for label in labels] == bar_chart.value_labels()
        for label in labels:
            assert label.sceneBoundingRect().right() <= view_right + 1, (width, label.toPlainText())
        longest = max(label.sceneBoundingRect().right() for label in labels)
        assert longest > view_right - 0.2 * bar_chart.width(), width  # and the bars still use the room


def test_axis_words_are_plain(bar_chart, histogram):
    assert bar_chart.getPlotItem().getAxis("bottom").labelText == "Number of coded texts"
    assert histogram.getPlotItem().getAxis("left").labelText == "Number of texts"
    assert histogram.getPlotItem().getAxis("bottom").labelText == "Length of the text (subword tokens)"


def test_many_categories_get_room(qtbot):
    chart = CategoryBarChart()
    qtbot.addWidget(chart)
    labels = [f"Topic {i}" for i in range(50)]
    counts = list(range(500, 0, -10))
    chart.set_categories(labels, counts, [c / sum(counts) for c in counts], [False] * 50)
    assert chart.height() >= 50 * 20
    assert len(chart.axis_labels()) == 50


def test_empty_and_inconsistent_input(qtbot):
    chart = CategoryBarChart()
    qtbot.addWidget(chart)
    chart.set_categories([], [], [], [])
    assert chart.bar_item() is None and chart.message() == "No coded texts yet"
    with pytest.raises(ValueError):
        chart.set_categories(["a"], [1, 2], [1.0], [False])
    histogram = HistogramChart()
    qtbot.addWidget(histogram)
    assert histogram.message() == "No texts to measure"
    with pytest.raises(ValueError):
        histogram.set_histogram([0, 1], [1, 2])


def test_histogram_bars_and_limit_line(histogram):
    bars = histogram.bar_item()
    assert list(bars.opts["height"]) == [50, 120, 30, 8, 2, 1]
    assert list(bars.opts["x0"]) == [0, 100, 200, 300, 400, 500]
    assert histogram.limit_line().value() == 512
    assert histogram.limit_text() == "512-token limit"
    x_min, x_max = histogram.getPlotItem().getViewBox().viewRange()[0]
    assert x_min <= 0 and x_max >= 600


def test_limit_beyond_the_longest_text_is_still_visible(qtbot):
    chart = HistogramChart()
    qtbot.addWidget(chart)
    chart.set_histogram([1, 5, 10, 15], [10, 5, 1], limit=512, unit_label="subword tokens")
    assert chart.getPlotItem().getViewBox().viewRange()[0][1] > 512
    chart.set_histogram([1, 5, 10, 15], [10, 5, 1], unit_label="words")
    assert chart.limit_line() is None and chart.limit_text() is None
    assert HistogramChart.default_limit_label(200, "words") == "200-word limit"


def test_share_wording():
    assert format_share(0.234) == "23.4 %"
    assert format_share(0.0004) == "< 0.1 %"
    assert format_share(0) == "0.0 %"


@pytest.mark.parametrize("make", ["bar_chart", "histogram"])
def test_export_png_and_svg(make, request, tmp_path):
    chart = request.getfixturevalue(make)
    png = chart.export(tmp_path / "chart.png")
    image = QImage(str(png))
    assert not image.isNull() and image.width() >= chart.width()
    svg = chart.export(tmp_path / "chart.svg")
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and len(text) > 1000
    assert not list(tmp_path.glob(".*partial*"))  # no half-written files left


def test_export_works_before_the_chart_is_shown(qtbot, tmp_path):
    chart = CategoryBarChart()
    qtbot.addWidget(chart)
    chart.set_categories(LABELS, COUNTS, SHARES, FLAGGED)
    path = chart.export(tmp_path / "hidden")
    assert path.suffix == ".png" and path.stat().st_size > 1000


def test_right_click_menu_saves_the_chart(qtbot, bar_chart, tmp_path, monkeypatch):
    menu = bar_chart.context_menu()
    actions = [a for a in menu.actions() if a.text() == SAVE_ACTION_TEXT]
    assert len(actions) == 1
    target = tmp_path / "categories"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args, **kwargs: (str(target), "SVG drawing (*.svg)")))
    with qtbot.waitSignal(bar_chart.exported) as signal:
        actions[0].trigger()
    assert signal.args == [str(target) + ".svg"]
    assert (tmp_path / "categories.svg").stat().st_size > 1000
    menu.deleteLater()


def test_cancelled_save_dialog_writes_nothing(bar_chart, tmp_path, monkeypatch):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *args, **kwargs: ("", "")))
    assert bar_chart.save_with_dialog() is None


def test_hovering_a_bar_shows_the_full_category_name(qtbot, bar_chart):
    view = bar_chart.getPlotItem().getViewBox()
    scene_point = view.mapViewToScene(QPointF(100, 1))  # the bar of the second category
    widget_point = bar_chart.mapFromScene(scene_point)
    qtbot.mouseMove(bar_chart.viewport(), widget_point)
    qtbot.waitUntil(lambda: QToolTip.text() != "", timeout=10_000)
    assert QToolTip.text().startswith("Civil Rights, Minority Issues, and Civil Liberties: 830 coded texts")
    QToolTip.hideText()
