"""The line under the Results step's headline in a study where a text can have several categories:
micro-F1, how often all categories of a text are right (subset accuracy) and the Hamming loss of the
recommended model, each part with its own one-line explanation as a tooltip. The parts wrap onto a
second line in a narrow window."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from guiapp.core.experiment.results.experiment_result import TestResult
from guiapp.ui import theme
from guiapp.ui.common.chart_numbers import format_row_share, format_share
from guiapp.ui.common.flow_layout import FlowRow
from guiapp.ui.common.glossary import TERMS

LINE_TIP = ("A text can have several categories in this study, so beside macro-F1 three more measures say how "
            "the model does. Hover over each for what it means.")


class MeasuresLine(FlowRow):
    """Three labels: micro-F1, exact match, Hamming loss (:meth:`set_test`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, spacing=18, line_spacing=2)
        self.setObjectName("multiLabelMeasures")
        self.setToolTip(LINE_TIP)
        self.micro = self._part("microF1")
        self.exact = self._part("exactMatch")
        self.hamming = self._part("hammingLoss")

    def _part(self, name: str) -> QLabel:
        label = QLabel("", objectName=name)
        label.setStyleSheet(theme.SOFT_STYLE + " font-size: 13px;")
        self.add_widget(label)
        return label

    def set_test(self, test: TestResult, n_test: int) -> None:
        """The measures of ``test`` (a multi-label model's test result) on ``n_test`` test texts."""
        texts = f"the {n_test:,} test texts" if n_test else "the test texts"
        micro = test.micro_f1 if test.micro_f1 is not None else float("nan")
        self.micro.setText(f"Micro-F1 <b>{micro:.2f}</b>")
        self.micro.setToolTip(f"Micro-F1: {TERMS['micro-F1']}")
        exact = format_row_share(test.accuracy)
        self.exact.setText(f"All categories of a text right: <b>{exact}</b> of {texts}")
        self.exact.setToolTip(f"Subset accuracy (exact match): {TERMS['subset accuracy']}")
        loss = test.hamming_loss if test.hamming_loss is not None else float("nan")
        self.hamming.setText(f"Hamming loss <b>{loss:.3f}</b> ({format_share(loss)} of the yes/no decisions wrong)")
        self.hamming.setToolTip(f"Hamming loss: {TERMS['Hamming loss']}")

    def texts(self) -> list[str]:
        """The three parts as the user reads them (without markup)."""
        return [label.text().replace("<b>", "").replace("</b>", "") for label in (self.micro, self.exact, self.hamming)]
