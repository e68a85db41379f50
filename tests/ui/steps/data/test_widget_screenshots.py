"""Renders the Data-step widgets with realistic hand-made data to PNG under screenshots/
(gitignored), so anyone can look at them after a run."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtWidgets import QTableView

from guiapp.ui.common.frame_model import DataFrameModel
from guiapp.ui.steps.data.health_view import HealthReportView
from tests.ui.helpers import save_screenshot
from tests.ui.sample_reports import policy_report, ready_report


def test_health_report_screenshots(qtbot):
    view = HealthReportView()
    qtbot.addWidget(view)
    view.resize(1100, 1400)
    view.set_report(policy_report())
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(50)
    save_screenshot(view, "widget_health_report_1100")
    save_screenshot(view.content_widget(), "widget_health_report_full_1100")

    view.resize(700, 1400)  # as a panel next to the column mapping
    qtbot.wait(50)
    save_screenshot(view.content_widget(), "widget_health_report_full_700")
    assert view.figures()["rows"] == "4,449"

    # A clean data set measured without the Transformer's tokenizer.
    view.set_report(ready_report(tokens=None, tokenizer_name=None))
    qtbot.wait(50)
    save_screenshot(view.content_widget(), "widget_health_report_ready_700")
    assert view.figures()["rows"] == "600"


def test_table_screenshot(qtbot):
    rng = np.random.default_rng(3)
    n = 300
    frame = pd.DataFrame({
        "Bill ID": [f"HR{1000 + i}" for i in range(n)],
        "Title": [("A bill to amend the Internal Revenue Code of 1986 to provide a credit for "
                   "renewable electricity production, and for other purposes. " * (1 + i % 3)).strip()
                  for i in range(n)],
        "Topic": rng.choice(["Health", "Energy", "Defense", None], size=n),
        "Year": rng.integers(1995, 2015, size=n),
        "Cost (million $)": np.round(rng.lognormal(3, 1, size=n), 2),
        "Introduced": pd.date_range("2003-01-07", periods=n, freq="D"),
    })
    frame.loc[4, "Cost (million $)"] = np.nan
    model = DataFrameModel(frame)
    model.set_column_roles({"Title": "text", "Topic": "category", "Bill ID": "ID"})
    model.highlight_rows([3, 5])
    table = QTableView()
    qtbot.addWidget(table)
    table.setModel(model)
    table.setWordWrap(False)
    table.horizontalHeader().setDefaultSectionSize(150)
    table.setColumnWidth(1, 380)
    table.resize(1100, 500)
    table.show()
    qtbot.waitExposed(table)
    save_screenshot(table, "widget_table")
