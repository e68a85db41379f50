"""What the Models step's choices of models share: one checkbox per (representation, classifier) pair,
read and set the same way (the grid of families × classifiers, and the models that need few or no coded
texts); a section's column under its title and intro; the look of a ticked model's cell or card
(the fine-tuned Transformer's section too); and a card that a click on its empty part ticks."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QCheckBox, QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

Pair = tuple[str, str]  # (representation, classifier)


def section_column(section: QWidget, title: QLabel, intro: QLabel, spacing: int) -> QVBoxLayout:
    """The column of a section of models (the Transformer, the models for few coded texts): its title
    and intro on top, the rest added by the section."""
    column = QVBoxLayout(section)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(spacing)
    column.addWidget(title)
    column.addWidget(intro)
    column.addSpacing(2)
    return column


def show_ticked(widget: QWidget, ticked: bool) -> None:
    """Draw ``widget`` (a model's cell or card) as its style sheet's ``[ticked="true"]`` rules say."""
    widget.setProperty("ticked", ticked)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


class TickedModels:
    """Mixed into a choice widget that fills ``_boxes`` (in the order shown), restyles a pair with
    ``_restyle(pair)`` and has a ``changed`` signal."""

    _boxes: dict[Pair, QCheckBox]

    def checkbox(self, representation: str, classifier: str) -> QCheckBox | None:
        """The checkbox of a pair, or None for a pair this choice does not offer."""
        return self._boxes.get((representation, classifier))

    def checked(self) -> list[Pair]:
        """The ticked pairs, in the order shown."""
        return [pair for pair, box in self._boxes.items() if box.isChecked()]

    def set_checked(self, pairs: Sequence[Pair]) -> None:
        """Tick exactly ``pairs``; ``changed`` once, after all of them."""
        wanted = {tuple(pair) for pair in pairs}
        for pair, box in self._boxes.items():
            box.blockSignals(True)
            box.setChecked(pair in wanted)
            box.blockSignals(False)
            self._restyle(pair)
        self._ticks_set()
        self.changed.emit()

    def _toggled(self, pair: Pair) -> None:
        """A click ticked or unticked ``pair``."""
        self._restyle(pair)
        self._ticks_set()
        self.changed.emit()

    def _ticks_set(self) -> None:
        """After a click or :meth:`set_checked` changed the ticks, before ``changed`` (nothing by default)."""


class ToggleCard(QFrame):
    """A model's card: a click on its empty part, its sentence or its time toggles its checkbox
    ``box`` (not one on a field, a button or a field's label)."""

    box: QCheckBox

    def lay_out(self, box: QCheckBox, estimate: QLabel) -> QVBoxLayout:
        """Lay the card out: ``box`` and ``estimate`` (its time) on top, and below them, indented, the
        column returned, which the card fills with its sentence and settings."""
        top = QHBoxLayout()
        top.addWidget(box, 1)
        top.addWidget(estimate)
        inner = QVBoxLayout(self)
        inner.setContentsMargins(12, 10, 12, 10)
        inner.setSpacing(6)
        inner.addLayout(top)
        body = QVBoxLayout()
        body.setContentsMargins(28, 0, 0, 0)
        body.setSpacing(6)
        inner.addLayout(body)
        return body

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        child = self.childAt(event.position().toPoint())
        toggles = child is None or child.objectName().startswith(("sentence_", "estimate_"))
        if event.button() == Qt.MouseButton.LeftButton and toggles:
            self.box.toggle()
            event.accept()
            return
        super().mouseReleaseEvent(event)
