"""What the Models step's two model choices (the grid of families × classifiers, and the models that
need few or no coded texts) share: one checkbox per (representation, classifier) pair, read and set
the same way."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QCheckBox

Pair = tuple[str, str]  # (representation, classifier)


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

    def _ticks_set(self) -> None:
        """After :meth:`set_checked` ticked its pairs, before ``changed`` (nothing by default)."""
