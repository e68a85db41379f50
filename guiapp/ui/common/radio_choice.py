"""A choice between a few radio buttons, each with a line saying what it does: the buttons in one
group (one of them chosen at a time), the first chosen to begin with."""

from __future__ import annotations

from PySide6.QtWidgets import QButtonGroup, QRadioButton, QWidget


def radio_choice(owner: QWidget, *choices: tuple[str, str, str]) -> tuple[QButtonGroup, list[QRadioButton]]:
    """The group (kept by ``owner``) and its buttons, one per ``(text, object name, tooltip)``."""
    group = QButtonGroup(owner)
    buttons = [QRadioButton(text, objectName=name, toolTip=tip) for text, name, tip in choices]
    for button in buttons:
        group.addButton(button)
    buttons[0].setChecked(True)
    return group, buttons
