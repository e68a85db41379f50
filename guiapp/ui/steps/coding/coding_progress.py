"""How far the coding has come: the progress toward a goal the researcher sets, the pace (codings per
hour), the coded texts per category, and whether coding more is still likely to change the results
(the stop signal's sentence above a small chart of the rounds).

The widget shows what it is given — counts, a pace, a :class:`~guiapp.core.coding.stopping.StopReading`
— and computes nothing scientific; the page reads them from the record of codings and the coding
loop. The goal is the researcher's own number, kept by the page (``goalChanged``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.coding.review import MIN_CODINGS
from guiapp.core.coding.stopping import STOP_THRESHOLD, StopReading
from guiapp.ui import theme
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.common.lazy_widget import LazyWidget
from guiapp.ui.common.section_title import section_title

if TYPE_CHECKING:  # the chart loads pyqtgraph: made when there are rounds to draw
    from guiapp.ui.steps.coding.coding_rounds_chart import CodingRoundsChart

DEFAULT_GOAL = 200
MOST_GOAL = 1_000_000
NO_PACE = "Your pace shows after a few codings."
NO_COUNTS = "No text is coded yet."
FEW_TIP = (f"Fewer than {MIN_CODINGS} texts are coded in this category: the quick model can hardly learn it yet, "
           "and its codings are not checked for doubts.")
STOP_TERMS = ["macro-F1", "out-of-fold"]
NAME_PIXELS = 150  # a longer category name is shortened with "…" (whole in its tooltip)
BAR_STYLE = (f"QProgressBar {{ border: none; background: {theme.BORDER}; border-radius: 4px; }}"
             f"QProgressBar::chunk {{ background: {theme.PRIMARY}; border-radius: 4px; }}")
GOAL_REACHED_BAR_STYLE = BAR_STYLE.replace(theme.PRIMARY, theme.GOOD)


class CountBar(QWidget):
    """A thin bar: ``share`` (0–1) of its width filled, on a pale track."""

    def __init__(self, share: float, colour: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.share = max(0.0, min(1.0, share))
        self.colour = colour
        self.setMinimumWidth(40)
        self.setFixedHeight(10)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(160, 10)

    def minimumSizeHint(self) -> QSize:  # a narrow window shortens the bars, not the names
        return QSize(40, 10)

    def paintEvent(self, event) -> None:  # Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        track = QRectF(self.rect()).adjusted(0, 1, 0, -1)
        painter.setBrush(QColor(theme.PAGE))
        painter.drawRoundedRect(track, 4, 4)
        if self.share > 0:
            filled = QRectF(track.left(), track.top(), max(track.height(), track.width() * self.share),
                            track.height())
            painter.setBrush(QColor(self.colour))
            painter.drawRoundedRect(filled, 4, 4)
        painter.end()


class CodingProgress(QWidget):
    """Progress toward the goal, pace, coded texts per category, and the stop signal with its chart."""

    goalChanged = Signal(int)  # Qt's naming of signals

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codingProgress")
        self._counts: dict[str, int] = {}
        self._coded = 0
        self._per_hour: float | None = None
        self._reading: StopReading | None = None

        # ----- the goal
        self.done_label = QLabel(objectName="codingDone")
        self.done_label.setStyleSheet(theme.heading_style(15))
        self.goal_spin = QSpinBox(objectName="codingGoal")
        self.goal_spin.setRange(1, MOST_GOAL)
        self.goal_spin.setSingleStep(10)
        self.goal_spin.setGroupSeparatorShown(True)
        self.goal_spin.setValue(DEFAULT_GOAL)
        self.goal_spin.setSuffix(" texts")
        self.goal_spin.setMaximumWidth(120)
        self.goal_spin.setToolTip("How many texts you mean to code in TextLab; the bar shows how far you are "
                                  "(texts coded in your file before do not count).")
        goal_caption = QLabel("Goal:")
        goal_caption.setStyleSheet(theme.MUTED_STYLE)
        goal_caption.setBuddy(self.goal_spin)
        self.bar = QProgressBar(objectName="codingGoalBar")
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(8)
        self.bar.setStyleSheet(BAR_STYLE)
        self.pace_label = QLabel(objectName="codingPace")
        self.pace_label.setStyleSheet(theme.SOFT_STYLE)
        self.pace_label.setWordWrap(True)
        self.pace_label.setToolTip("Codings per hour of coding; breaks of more than half an hour are not counted.")
        top = QHBoxLayout()  # the goal under the count, so a narrow column keeps both whole
        top.addWidget(goal_caption)
        top.addWidget(self.goal_spin)
        top.addStretch(1)

        # ----- the counts per category
        self.counts_frame = QWidget(objectName="codingCounts")
        self.counts_grid = QGridLayout(self.counts_frame)
        self.counts_grid.setContentsMargins(0, 0, 0, 0)
        self.counts_grid.setHorizontalSpacing(10)
        self.counts_grid.setVerticalSpacing(5)
        self.counts_grid.setColumnStretch(1, 1)
        self._count_cells: list[tuple[str, CountBar, QLabel]] = []

        # ----- when to stop
        self.stop_label = GlossaryLabel(terms=STOP_TERMS, objectName="codingStopSentence")
        self.stop_label.setMargin(2)
        self._chart = LazyWidget(self._make_chart)  # made with the first rounds to draw
        self._threshold = STOP_THRESHOLD

        card = QFrame(objectName="codingProgressCard")
        card.setStyleSheet(theme.card_style("codingProgressCard"))
        column = QVBoxLayout(card)
        column.setContentsMargins(14, 12, 14, 14)
        column.setSpacing(8)
        column.addWidget(section_title("Progress"))
        column.addWidget(self.done_label)
        column.addLayout(top)
        column.addWidget(self.bar)
        column.addWidget(self.pace_label)
        column.addSpacing(6)
        column.addWidget(_small_heading("Coded texts per category"))
        column.addWidget(self.counts_frame)
        column.addSpacing(6)
        column.addWidget(_small_heading("When to stop"))
        column.addWidget(self.stop_label)
        column.addWidget(self._chart, 1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(card)
        outer.addStretch(1)  # the card as tall as its content; a taller panel leaves room below

        self.goal_spin.valueChanged.connect(self._goal_changed)
        self.set_counts({}, None)
        self.set_rounds(None)

    # ----- the page gives -------------------------------------------------------------------------
    def set_counts(self, counts: Mapping[str, int], per_hour: float | None, *, coded: int | None = None) -> None:
        """Coded texts per category (shown in the order given), codings per hour (None: not known yet),
        and ``coded``, the texts that count toward the goal (by default all the counts together)."""
        self._counts = {str(name): int(n) for name, n in counts.items()}
        self._coded = int(coded) if coded is not None else sum(self._counts.values())
        self._per_hour = per_hour if per_hour is not None and math.isfinite(per_hour) and per_hour > 0 else None
        self._show_counts()
        self._show_goal()

    def set_rounds(self, reading: StopReading | None, *, threshold: float = STOP_THRESHOLD) -> None:
        """The stop signal's reading of the rounds so far (None: the model has not been trained yet);
        ``threshold``: the share of changed answers it was asked for (the chart's dashed line)."""
        self._reading, self._threshold = reading, threshold
        if reading is None:
            sentence = ("Too early to say when to stop: the model has not been trained yet. TextLab retrains it "
                        "while you code and compares each new model with the one before.")
        else:
            sentence = reading.sentence
        emphasised = reading is not None and reading.should_stop
        self.stop_label.set_plain_text(sentence)
        self.stop_label.setProperty("emphasised", emphasised)
        if emphasised:
            self.stop_label.setStyleSheet(f"QLabel {{ {theme.notice_style('done', '8px 10px')}"
                                          f" color: {theme.GOOD_TEXT}; font-weight: 600; }}")
        elif reading is not None and reading.state in ("changing", "rising"):
            self.stop_label.setStyleSheet(f"QLabel {{ {theme.notice_style('news', '8px 10px')}"
                                          f" color: {theme.INFO_TEXT}; }}")
        else:
            self.stop_label.setStyleSheet(f"QLabel {{ {theme.MUTED_STYLE} padding: 2px 0; }}")
        if self._chart.is_made():
            self.chart.show_reading(reading, threshold)
            self.chart.setVisible(self._has_rounds())  # the sentence says why there is none
        elif self._has_rounds():
            self._chart.widget()  # made and drawn now
        else:
            self._chart.hide()  # nothing to draw yet: showing the page does not make the chart

    @property
    def chart(self) -> CodingRoundsChart:
        return self._chart.widget()

    def _make_chart(self) -> CodingRoundsChart:
        from guiapp.ui.steps.coding.coding_rounds_chart import CodingRoundsChart

        chart = CodingRoundsChart()
        chart.show_reading(self._reading, self._threshold)
        if not self._has_rounds():
            chart.hide()  # shown (in its place, not as a window of its own) once there are rounds
        return chart

    def _has_rounds(self) -> bool:
        return self._reading is not None and bool(self._reading.n_coded)

    def set_goal(self, goal: int) -> None:
        self.goal_spin.setValue(int(goal))

    def goal(self) -> int:
        return self.goal_spin.value()

    # ----- what the researcher sees (for tests and the page) --------------------------------------
    def done_text(self) -> str:
        """E.g. "112 of 200 coded"."""
        return self.done_label.text()

    def pace_text(self) -> str:
        return self.pace_label.text()

    def count_rows(self) -> list[tuple[str, str]]:
        """(category, what its row says) top to bottom, e.g. ("Health", "42 · 21 %")."""
        return [(category, number.text()) for category, _, number in self._count_cells]

    def few_categories(self) -> list[str]:
        """The categories shown as having too few codings to learn from (fewer than ``MIN_CODINGS``)."""
        return [category for category, bar, _ in self._count_cells if bar.colour == theme.WEAK]

    def stop_sentence(self) -> str:
        return self.stop_label.plain_text()

    def stop_emphasised(self) -> bool:
        """Whether the stop sentence stands out (it says coding more is unlikely to change much)."""
        return bool(self.stop_label.property("emphasised"))

    # ----- drawing ----------------------------------------------------------------------------------
    def _goal_changed(self, value: int) -> None:
        self._show_goal()
        self.goalChanged.emit(int(value))

    def _show_goal(self) -> None:
        goal, coded = self.goal(), self._coded
        reached = coded >= goal
        self.done_label.setText(f"{coded:,} of {goal:,} coded here")
        self.done_label.setToolTip("Goal reached." if reached else f"{goal - coded:,} texts to go.")
        self.bar.setRange(0, goal)
        self.bar.setValue(min(coded, goal))
        self.bar.setStyleSheet(GOAL_REACHED_BAR_STYLE if reached else BAR_STYLE)
        if self._per_hour is None:
            self.pace_label.setText(NO_PACE)
            return
        pace = f"About {_rounded_pace(self._per_hour)} codings per hour"
        if reached:
            self.pace_label.setText(f"{pace}. Goal reached.")
        else:
            hours = (goal - coded) / self._per_hour
            self.pace_label.setText(f"{pace}; at this pace the goal is about {_duration(hours)} away.")

    def _show_counts(self) -> None:
        while self.counts_grid.count():
            taken = self.counts_grid.takeAt(0)
            if taken.widget() is not None:  # hidden at once: deleted later, it must not show meanwhile
                taken.widget().hide()
                taken.widget().deleteLater()
        self._count_cells = []
        if not self._counts:
            empty = QLabel(NO_COUNTS, objectName="codingNoCounts")
            empty.setStyleSheet(theme.MUTED_STYLE)
            self.counts_grid.addWidget(empty, 0, 0, 1, 3)
            return
        total = sum(self._counts.values())
        most = max(self._counts.values()) or 1
        for row, (category, n) in enumerate(self._counts.items()):
            few = n < MIN_CODINGS
            name = QLabel()
            name.setText(name.fontMetrics().elidedText(category, Qt.TextElideMode.ElideRight, NAME_PIXELS))
            name.setToolTip(category + (f"\n{FEW_TIP}" if few else ""))
            bar = CountBar(n / most, theme.WEAK if few else theme.BAR_COLOR)
            share = f"{round(100 * n / total)} %" if total else "0 %"
            number = QLabel(f"{n:,} · {share}")
            number.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            number.setStyleSheet(theme.text_style(theme.WEAK) if few else theme.SOFT_STYLE)
            number.setToolTip(FEW_TIP if few else f"{n:,} coded texts, {share} of all coded texts.")
            self.counts_grid.addWidget(name, row, 0)
            self.counts_grid.addWidget(bar, row, 1, Qt.AlignmentFlag.AlignVCenter)
            self.counts_grid.addWidget(number, row, 2)
            self._count_cells.append((category, bar, number))


def _small_heading(text: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet(f"{theme.BOLD_STYLE} {theme.text_style(theme.HEADING_INK)}")
    return label


def _rounded_pace(per_hour: float) -> str:
    """85.3 → "85", 123.7 → "120", 1.4 → "1.4"."""
    if per_hour < 10:
        return f"{per_hour:.1f}".rstrip("0").rstrip(".")
    if per_hour < 100:
        return f"{round(per_hour):,}"
    return f"{int(round(per_hour, -1)):,}"


def _duration(hours: float) -> str:
    """0.3 → "20 minutes", 1.75 → "1 h 45 min", 30 → "30 hours"."""
    minutes = max(1, round(hours * 60))
    if minutes < 60:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    if hours < 10:
        whole, rest = divmod(minutes, 60)
        return f"{whole} h {rest} min" if rest else f"{whole} hour{'s' if whole != 1 else ''}"
    return f"{round(hours):,} hours"
