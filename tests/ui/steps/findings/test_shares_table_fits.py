"""The Findings table of shares per group fits a small window: it never scrolls sideways."""

from __future__ import annotations

import numpy as np

from guiapp.core.findings import CodedSample, RandomSample, estimate_findings
from guiapp.ui.steps.findings.shares_table import CATEGORY, SharesTable


def _findings():
    rng = np.random.default_rng(0)
    cats = ("Agriculture and fisheries policy", "Macroeconomics", "Civil rights and liberties", "other")
    n = 1500
    label = rng.choice(4, size=n, p=[0.05, 0.3, 0.15, 0.5])
    seen = np.full((n, 4), 0.05)
    seen[np.arange(n), label] = 0.85
    year = rng.integers(1995, 2006, n)
    positions = np.sort(rng.choice(n, 300, replace=False))
    coded = CodedSample([cats[k] for k in label[positions]], seen[positions], positions)
    return estimate_findings(seen, cats, coded, RandomSample(), groups=year.tolist(), group_name="year")


def test_shares_per_group_fit_a_1024_wide_window_without_scrolling_sideways(qtbot):
    table = SharesTable()
    qtbot.addWidget(table)
    table.resize(1024 - 260, 500)  # the Findings page's share of a 1024 × 700 window
    table.set_shares(_findings().shares)
    table.show()
    qtbot.waitExposed(table)
    used = sum(table.columnWidth(c) for c in range(table.columnCount()) if not table.isColumnHidden(c))
    assert used <= table.viewport().width()
    assert table.horizontalScrollBar().maximum() == 0
    assert table.cell_text(0, CATEGORY)  # the full name stays readable in the tooltip
    assert table.item(0, CATEGORY).toolTip()
    table.grab().save("/tmp/team/shots/findings_table_1024.png")
