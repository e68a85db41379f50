"""The "Save chart…" button beside a chart (the Run step's loss chart, the Results step's charts): it
saves the chart as a PNG picture or an SVG drawing, asking where."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QPushButton

SAVE_CHART_TIP = "Save this chart as a PNG picture or an SVG drawing, e.g. for a paper."


def save_chart_button(chart: Callable[[], Any], name: str) -> QPushButton:
    """"Save chart…" (object name ``name``) for the chart ``chart()`` gives when clicked, so that a chart
    made only when first shown (a ``LazyWidget``'s) is made then if it was not yet."""
    button = QPushButton("Save chart…", objectName=name)
    button.setToolTip(SAVE_CHART_TIP)
    button.clicked.connect(lambda: chart().save_with_dialog())
    return button
