"""The Findings step's "Compared with:" choice on the Differences tab: each group compared with the
largest group (the default), with a group the researcher names, or every pair of groups."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QComboBox, QWidget

TIP = ("Which group each group's shares are compared with. The largest group is the usual reference; every pair of "
       "groups gives many rows (11 years: 55 comparisons per category instead of 10).")


class ComparisonChoice(QComboBox):
    """Holds "" (the largest group), a group's name, or ``ALL_PAIRS``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="findingsCompareWith")
        self.setToolTip(TIP)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setMaximumWidth(360)  # a long group name is shortened; the list shows it whole

    def set_groups(self, groups: Sequence[str], largest: str, chosen: str) -> None:
        """Offer the largest group, each group, and every pair; show ``chosen`` (without a signal)."""
        from guiapp.core.findings.records import ALL_PAIRS  # with the findings: the window opens without pandas

        self.blockSignals(True)
        self.clear()
        self.addItem(f"the largest group ({largest})", "")
        for group in groups:
            self.addItem(str(group), str(group))
        self.addItem("every other group (all pairs)", ALL_PAIRS)
        self.setCurrentIndex(max(self.findData(chosen), 0))
        self.blockSignals(False)

    def choice(self) -> str:
        return str(self.currentData() or "")
