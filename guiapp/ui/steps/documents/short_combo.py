"""Drop-downs that do not grow with their longest choice (a long category or model name would
otherwise widen a whole panel), while their opened list still shows every choice whole."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox


def short_combo(name: str, characters: int) -> QComboBox:
    """A drop-down about ``characters`` letters wide, whatever its choices; call :func:`fit_list`
    after filling it."""
    combo = QComboBox(objectName=name)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(characters)
    return combo


def fit_list(combo: QComboBox) -> None:
    """Let the opened list show the longest choice whole (it may be wider than the drop-down)."""
    view = combo.view()
    view.setMinimumWidth(view.sizeHintForColumn(0) + view.verticalScrollBar().sizeHint().width() + 8)
