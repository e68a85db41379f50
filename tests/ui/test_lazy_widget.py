"""A widget made on first use stands where its place holder stood, and the page lays out the same
before it is made (the holder asks of the layout what the widget will ask)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from guiapp.ui.common.lazy_widget import Footprint, LazyWidget


def _label() -> QLabel:
    return QLabel("made", objectName="made")


def footprint_of(widget: QWidget) -> Footprint:
    policy = widget.sizePolicy()
    assert policy.horizontalPolicy() == policy.verticalPolicy()
    return Footprint(widget.sizeHint(), widget.minimumSizeHint(), widget.minimumSize(), widget.maximumSize(),
                     policy.horizontalPolicy())


def test_a_holder_in_a_layout_gives_its_place_and_stretch_to_the_widget(qtbot):
    page = QWidget()
    qtbot.addWidget(page)
    layout = QVBoxLayout(page)
    layout.addWidget(QLabel("above"))
    holder = LazyWidget(_label)
    layout.addWidget(holder, 3)
    assert not holder.is_made()
    made = holder.widget()
    assert holder.widget() is made and holder.is_made()
    assert layout.indexOf(made) == 1 and layout.stretch(1) == 3
    assert layout.indexOf(holder) == -1 and holder.isHidden()


def test_a_holder_makes_its_widget_when_first_shown_and_not_before(qtbot):
    page = QWidget()
    qtbot.addWidget(page)
    layout = QVBoxLayout(page)
    shown, hidden = LazyWidget(_label), LazyWidget(_label)
    hidden.hide()
    layout.addWidget(shown)
    layout.addWidget(hidden)
    assert not shown.is_made()
    page.show()
    qtbot.waitExposed(page)
    assert shown.is_made() and shown.widget().isVisible()
    assert not hidden.is_made()


@pytest.mark.parametrize("kind", ["splitter", "tab", "scroll"])
def test_splitters_tabs_and_scroll_areas_hold_the_made_widget(qtbot, kind):
    holder = LazyWidget(_label)
    if kind == "splitter":
        outer = QSplitter()
        outer.addWidget(QLabel("left"))
        outer.addWidget(holder)
    elif kind == "tab":
        outer = QTabWidget()
        outer.addTab(holder, "Made later")
    else:
        outer = QScrollArea()
        outer.setWidget(holder)
    qtbot.addWidget(outer)
    outer.show()
    qtbot.waitExposed(outer)
    made = holder.widget()
    assert made.isVisible() and made.window() is outer  # in its place, never a window of its own
    if kind == "splitter":
        assert outer.indexOf(made) == 1


def test_the_footprint_is_what_the_holder_asks_of_the_layout(qtbot):
    footprint = Footprint(QLabel("x").sizeHint() * 3, QLabel("x").minimumSizeHint(), minimum=QLabel("x").sizeHint())
    holder = LazyWidget(_label, footprint=footprint)
    qtbot.addWidget(holder)
    assert footprint_of(holder) == footprint


@pytest.mark.parametrize("name", ["f1", "time", "heatmap", "attention", "words"])
def test_each_charts_holder_takes_up_what_its_empty_chart_takes_up(qtbot, name):
    """The footprints written next to the holders follow the charts (update them when a chart's size changes)."""
    from guiapp.ui.steps.results import results_tabs
    from guiapp.ui.steps.documents import attention_heatmap, corpus_words_view
    from guiapp.ui.steps.documents.attention_chart import AttentionHeatmap
    from guiapp.ui.common.confusion_heatmap import ConfusionHeatmap
    from guiapp.ui.steps.results.results_charts import F1BarChart, TimeBarChart
    from guiapp.ui.steps.documents.word_bar_chart import WordBarChart

    chart_class, footprint = {
        "f1": (F1BarChart, results_tabs.BARS_FOOTPRINT),
        "time": (TimeBarChart, results_tabs.BARS_FOOTPRINT),
        "heatmap": (ConfusionHeatmap, results_tabs.HEATMAP_FOOTPRINT),
        "attention": (AttentionHeatmap, attention_heatmap.HEATMAP_FOOTPRINT),
        "words": (WordBarChart, corpus_words_view.CHART_FOOTPRINT),
    }[name]
    chart = chart_class()
    qtbot.addWidget(chart)
    assert footprint_of(chart) == footprint
