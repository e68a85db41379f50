"""One row per model of a running study: its state, its own progress bar, stage and result.

:class:`ModelProgressRow` shows one model; :class:`ModelProgressList` holds the rows of a study
and routes the engine's events (``Progress.task`` / ``TaskUpdate.task`` = the model's position)
to the right row. A fine-tuned Transformer's row grows a live loss chart (``loss_chart.py``) when
the first :class:`~guiapp.core.events.Metric` arrives (``Metric.task`` = the model's position).
Rows only display what they are told; they never compute scores.
"""

from __future__ import annotations

import html
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QWidget,
)

from guiapp.core.events import Metric, Progress, TaskUpdate
from guiapp.core.progress_clock import TimeLeftClock, describe_time_left
from guiapp.ui import theme
from guiapp.ui.common.chart_numbers import format_seconds
from guiapp.ui.common.glossary import explain
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.scroll_area import ScrollArea

if TYPE_CHECKING:
    from guiapp.ui.steps.run.loss_chart import LossPanel

# state -> (symbol, words on screen); its colour is the theme's STATE_COLORS
STATES: dict[str, tuple[str, str]] = {
    "waiting": ("○", "Waiting"),
    "running": ("▶", "Running"),
    "done": ("✔", "Done"),
    "failed": ("✖", "Failed"),
    "cancelled": ("■", "Cancelled"),
    "skipped": ("–", "Not run"),
}
FINAL_STATES = ("done", "failed", "cancelled", "skipped")


def stage_of(message: str, name: str = "") -> str:
    """The stage part of an engine message: "SVM · Basic BOW — fold 2 of 5" -> "fold 2 of 5"."""
    if name and message.startswith(name):
        message = message[len(name):].lstrip(" —–-:")
    elif " — " in message:
        message = message.split(" — ", 1)[1]
    return message.strip()


def score_text(macro_f1: float) -> str:
    return f"{macro_f1:.2f} agreement (macro-F1)"


class ModelProgressRow(QFrame):
    """A card for one model: "✔ Done  SVM · Basic BOW  ……  0.71 agreement (macro-F1)"."""

    def __init__(self, index: int, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelRow")
        self.index = index
        self.name = name
        self._state = "waiting"
        self._started: float | None = None
        self._clock = TimeLeftClock()
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            theme.card_style("modelRow", border=theme.ROW_BORDER)
            + f'QFrame#modelRow[state="running"] {{ border: 1px solid {theme.RUNNING_BORDER};'
            f' background: {theme.RUNNING_BACKGROUND}; }}'
            + f'QFrame#modelRow[state="failed"] {{ border: 1px solid {theme.FAILED_BORDER};'
            f' background: {theme.FAILED_BACKGROUND}; }}'
        )
        self.state_label = QLabel(objectName="modelState")
        self.state_label.setMinimumWidth(110)
        self.name_label = QLabel(name, objectName="modelName")
        self.name_label.setStyleSheet(theme.heading_style(14))
        self.name_label.setToolTip(name)
        self.result_label = QLabel("", objectName="modelResult")
        self.result_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.result_label.setTextFormat(Qt.TextFormat.PlainText)
        self.bar = QProgressBar(objectName="modelBar")
        self.bar.setRange(0, 1000)
        self.bar.setValue(0)
        self.bar.setTextVisible(False)
        self.bar.setFixedSize(200, 10)
        self.stage_label = QLabel("", objectName="modelStage")
        self.stage_label.setStyleSheet(theme.SOFT_STYLE)
        self.stage_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.time_label = QLabel("", objectName="modelTimeLeft")
        self.time_label.setStyleSheet(theme.NOTE_STYLE)
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.message_label = QLabel("", objectName="modelMessage")
        self.message_label.setWordWrap(True)
        self.message_label.setTextFormat(Qt.TextFormat.PlainText)
        self.message_label.setStyleSheet(theme.ERROR_STYLE)
        self.message_label.hide()

        stage_row = hbox(None, self.bar, (self.stage_label, 1), spacing=10)
        stage_row.setAlignment(self.bar, Qt.AlignmentFlag.AlignVCenter)
        grid = QGridLayout(self)
        grid.setContentsMargins(12, 8, 12, 8)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(4)
        grid.addWidget(self.state_label, 0, 0)
        grid.addWidget(self.name_label, 0, 1)
        grid.addWidget(self.result_label, 0, 2)
        grid.addLayout(stage_row, 1, 1)
        grid.addWidget(self.time_label, 1, 2)
        grid.addWidget(self.message_label, 2, 1, 1, 2)
        grid.setColumnStretch(1, 1)
        self._grid = grid
        self.loss_panel: LossPanel | None = None
        self._show_state()

    # ----- what the row shows (for tests and the page) --------------------------------------------
    def state(self) -> str:
        return self._state

    def state_text(self) -> str:
        return STATES[self._state][1]

    def stage_text(self) -> str:
        return self.stage_label.text()

    def result_text(self) -> str:
        """The test score of a finished model, e.g. "0.71 agreement (macro-F1)"."""
        return self.result_label.text()

    def message_text(self) -> str:
        """Why the model failed (shown in red under its name), or "" ."""
        return self.message_label.text() if not self.message_label.isHidden() else ""

    def time_left_text(self) -> str:
        return self.time_label.text()

    def fraction(self) -> float:
        return self.bar.value() / 1000 if self.bar.maximum() else 0.0

    # ----- updates ----------------------------------------------------------------------------------
    def set_state(self, state: str, message: str = "") -> None:
        """Move to ``state``; a failed or cancelled row shows ``message`` in its result slot."""
        if state not in STATES:
            raise ValueError(f"unknown state {state!r}")
        if state == "running" and self._started is None:
            self._started = time.monotonic()
            self._clock.reset(self._started)
        self._state = state
        if state in FINAL_STATES:
            self.time_label.setText("")
            self.bar.setRange(0, 1000)
        if state == "done":
            self.bar.setValue(1000)
            self.stage_label.setText("finished")
        elif state == "failed":
            self._show_message(message or "This model could not be run.")
            self.stage_label.setText("stopped")
        elif state in ("cancelled", "skipped"):
            self.stage_label.setText("stopped before the end" if state == "cancelled" else "")
        self._show_state()

    def set_progress(self, fraction: float | None, stage: str = "") -> None:
        """The model's own progress (``task_fraction``) and its current stage in words."""
        if self._state in FINAL_STATES:
            return  # a late progress report after the model ended changes nothing
        if self._state == "waiting":
            self.set_state("running")
        if stage:
            self.stage_label.setText(stage)
            self.stage_label.setToolTip(stage)
        if fraction is None:
            return
        fraction = min(max(float(fraction), 0.0), 1.0)
        self.bar.setValue(round(fraction * 1000))
        # recent speed, climbing only when a slow-down lasts (core/progress_clock.py)
        seconds = self._clock.update(time.monotonic(), fraction)
        if fraction >= 0.999:
            self.time_label.setText("almost done")
        elif seconds is not None:
            self.time_label.setText(describe_time_left(seconds))
        else:
            self.time_label.setText("estimating…")

    def show_metric(self, event: Metric) -> bool:
        """Draw a training-loss point in the row's chart (made on the first one); True when the
        chart was just made (the row grew)."""
        if event.name != "loss":
            return False
        created = self.loss_panel is None
        if created:
            from guiapp.ui.steps.run.loss_chart import LossPanel  # pyqtgraph loads with the first chart

            self.loss_panel = LossPanel(self)
            self._grid.addWidget(self.loss_panel, 3, 1, 1, 2)
        self.loss_panel.add_metric(event)
        return created

    @property
    def loss_chart(self):
        """The row's loss chart (a LossChart), or None for a model that reports no loss."""
        return self.loss_panel.chart if self.loss_panel is not None else None

    def set_result(self, result) -> None:
        """Show a finished ``ModelResult``: its test macro-F1, or why it failed."""
        if result is None:
            return
        if getattr(result, "ok", False):
            self.set_state("done")
            test = result.test
            self.result_label.setText(score_text(test.macro_f1))
            self.result_label.setStyleSheet(f"{theme.text_style(theme.GOOD_STRONG)} {theme.heading_style(14)}")
            tip = f"Test macro-F1 {test.macro_f1:.3f}"
            if test.macro_f1_ci:
                low, high = test.macro_f1_ci
                tip += f" ({test.ci_level:.0%} interval {low:.2f}–{high:.2f})"
            self.result_label.setToolTip(tip + ".\n" + explain(["macro-F1"]))
            total = result.total_seconds
            if total is not None:
                self.stage_label.setText(f"finished in {format_seconds(total)}")
        elif getattr(result, "status", "") == "failed":
            self.set_state("failed", result.message)
        elif getattr(result, "status", "") == "cancelled":
            self.set_state("cancelled")

    # ----- look -----------------------------------------------------------------------------------------
    def _show_message(self, message: str) -> None:
        self.message_label.setText(message.strip())
        self.message_label.setToolTip(message.strip())
        self.message_label.show()

    def _show_state(self) -> None:
        symbol, words = STATES[self._state]
        colour = theme.STATE_COLORS[self._state]
        self.state_label.setText(
            f'<span style="color:{colour}; font-size:15px;">{symbol}</span>'
            f'&nbsp;<span style="color:{colour}; font-weight:600;">{html.escape(words)}</span>'
        )
        self.setProperty("state", self._state)
        self.style().unpolish(self)
        self.style().polish(self)
        self.bar.setVisible(self._state not in ("skipped",))


class ModelProgressList(ScrollArea):
    """The rows of a study's models, one under the other, scrolling when there are many."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent)
        self._content = QWidget()
        self._content.setObjectName("modelRows")
        self._layout = vbox(self._content, STRETCH, margins=(0, 0, 4, 0), spacing=6)
        self.setWidget(self._content)
        self._rows: list[ModelProgressRow] = []

    def set_models(self, names: list[str]) -> None:
        for row in self._rows:
            self._layout.removeWidget(row)
            row.hide()  # gone at once, not only when Qt deletes it
            row.deleteLater()
        self._rows = []
        for index, name in enumerate(names):
            row = ModelProgressRow(index, name, self._content)
            self._layout.insertWidget(index, row)
            row.show()  # counted in the list's size at once (the page sizes the list from it), not later
            self._rows.append(row)

    def rows(self) -> list[ModelProgressRow]:
        return list(self._rows)

    def row(self, index: int | None) -> ModelProgressRow | None:
        if index is None or not 0 <= index < len(self._rows):
            return None
        return self._rows[index]

    def show_progress(self, event: Progress) -> None:
        row = self.row(event.task)
        if row is not None:
            row.set_progress(event.task_fraction, stage_of(event.message, row.name))

    def show_update(self, event: TaskUpdate) -> None:
        row = self.row(event.task)
        if row is None:
            return
        if event.state == "done" and event.payload is not None:
            row.set_result(event.payload)  # the payload may also say that the model failed
        elif event.state == "failed":
            payload_message = getattr(event.payload, "message", "")
            row.set_state("failed", payload_message or event.message)
        elif event.state == "running":
            if row.state() not in FINAL_STATES:
                row.set_state("running")
                if event.message:
                    row.set_progress(None, stage_of(event.message, row.name))
        else:
            row.set_state(event.state)

    def show_metric(self, event: Metric) -> ModelProgressRow | None:
        """Route a Metric to its model's row; returns the row when its chart was just made."""
        row = self.row(event.task)
        if row is not None and row.show_metric(event):
            return row
        return None

    def stop_unfinished(self) -> None:
        """After a cancel or an error: running rows become "Cancelled", waiting ones "Not run"."""
        for row in self._rows:
            if row.state() == "running":
                row.set_state("cancelled")
            elif row.state() == "waiting":
                row.set_state("skipped")
