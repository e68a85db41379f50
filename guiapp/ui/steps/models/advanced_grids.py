"""The "Settings to try" tab of the Advanced dialog: the tuning grid of each classifier.

For every parameter the user edits a list of values ("0.1, 1, 10"), or ticks the choices for a
parameter with named values (the SVM kernel). Each entry is checked with the core's
``normalise_grid`` as it is typed; a wrong value is explained in red below the field. The number
of settings and model fits is shown per classifier, and each one can go back to the paper's grid.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QGroupBox, QLabel, QLineEdit, QWidget

from guiapp.core.errors import UserError
from guiapp.core.models.conventional import (
    CLASSIFIERS,
    ParameterInfo,
    expand_grid,
    normalise_grid,
)
from guiapp.ui import theme
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.steps.models import advanced_form_parts as parts


def format_value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def format_values(values: list[Any]) -> str:
    return ", ".join(format_value(value) for value in values)


def count_text(n_settings: int, folds: int) -> str:
    setting = "setting" if n_settings == 1 else "settings"
    return (f"{n_settings} {setting} × {folds} folds = {n_settings * folds} fits, "
            "then one final fit with the best setting")


class ParameterField(QWidget):
    """One parameter: a line of values, or one checkbox per named value."""

    edited = Signal()

    def __init__(self, classifier: str, name: str, info: ParameterInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.classifier, self.name, self.info = classifier, name, info
        self.error = parts.error_label(f"gridError_{classifier}_{name}")
        self.edit: QLineEdit | None = None
        self.choices: dict[str, QCheckBox] = {}
        if info.choices:
            for choice in info.choices:
                box = QCheckBox(_choice_label(choice), objectName=f"gridChoice_{classifier}_{name}_{choice}")
                box.toggled.connect(self.edited)
                self.choices[choice] = box
            row = hbox(None, *self.choices.values(), STRETCH, margins=(0, 0, 0, 0))
        else:
            self.edit = QLineEdit(objectName=f"grid_{classifier}_{name}")
            kind = "whole numbers" if info.kind is int else "numbers"
            self.edit.setPlaceholderText(f"one or more {kind}, separated by commas")
            self.edit.setToolTip(f"{info.help}\nSeparate values with commas; use a point for decimals (0.1).")
            self.edit.textChanged.connect(self.edited)
            row = hbox(None, self.edit, margins=(0, 0, 0, 0))
        vbox(self, row, self.error, margins=(0, 0, 0, 0), spacing=2)

    def set_values(self, values: list[Any]) -> None:
        if self.edit is not None:
            self.edit.setText(format_values(values))
        else:
            for choice, box in self.choices.items():
                box.setChecked(choice in values)

    def raw_values(self) -> list[str]:
        if self.edit is not None:
            return parts.parse_values(self.edit.text())
        return [choice for choice, box in self.choices.items() if box.isChecked()]

    def values(self) -> list[Any]:
        """The checked values; raises UserError (shown inline by :meth:`check`)."""
        raw = self.raw_values()
        if not raw:
            what = "tick at least one" if self.choices else "give at least one value"
            raise UserError(f"“{self.info.label}” needs at least one value: {what}.")
        return normalise_grid(self.classifier, {self.name: raw})[self.name]

    def check(self) -> bool:
        fine = parts.show_problem(self.error, self.values)
        if self.edit is not None:
            self.edit.setStyleSheet("" if fine else theme.FIELD_ERROR_STYLE)
        return fine


class ClassifierGridBox(QGroupBox):
    """The grid of one classifier: its parameters, the count of fits and a restore button."""

    changed = Signal()

    def __init__(self, classifier: str, parent: QWidget | None = None) -> None:
        info = CLASSIFIERS[classifier]
        super().__init__(info.label, parent)
        self.setObjectName(f"gridBox_{classifier}")
        self.classifier = classifier
        self.folds = 5
        self.fields: dict[str, ParameterField] = {}
        form = parts.form(labels_right=False)
        for name, parameter in info.parameters.items():
            field = ParameterField(classifier, name, parameter)
            field.edited.connect(self._edited)
            label = QLabel(parameter.label + ":")
            label.setToolTip(parameter.help)
            field.setToolTip(parameter.help)
            form.addRow(label, field)
            self.fields[name] = field
        self.count = muted_note("", f"gridCount_{classifier}")
        self.restore = parts.restore_button(
            "Restore the paper's defaults", f"gridRestore_{classifier}", lambda: self.set_grid(info.default_grid),
            "Put back the values: " + "; ".join(
                f"{info.parameters[name].label} {format_values(values)}" for name, values in info.default_grid.items()))
        vbox(self, form, hbox(None, (self.count, 1), self.restore))

    def set_grid(self, grid: dict[str, list[Any]]) -> None:
        full = normalise_grid(self.classifier, grid)
        for name, field in self.fields.items():
            field.blockSignals(True)
            field.set_values(full[name])
            field.blockSignals(False)
        self._edited()

    def set_folds(self, folds: int) -> None:
        self.folds = folds
        self._update_count()

    def is_valid(self) -> bool:
        return all(field.check() for field in list(self.fields.values()))

    def grid(self) -> dict[str, list[Any]]:
        """The full checked grid (raises UserError while a field is wrong)."""
        return normalise_grid(self.classifier, {name: field.values() for name, field in self.fields.items()})

    def _edited(self) -> None:
        valid = [field.check() for field in self.fields.values()]
        self._update_count(all(valid))
        self.changed.emit()

    def _update_count(self, valid: bool | None = None) -> None:
        if valid is None:
            valid = self.is_valid()
        if not valid:
            self.count.setText("Correct the values marked in red to see how many settings are tried.")
            return
        self.count.setText(count_text(len(expand_grid(self.classifier, self.grid())), self.folds))


class GridsTab(parts.AdvancedTab):
    """All classifiers' grids; ``changed`` after every edit."""

    boxes: dict[str, ClassifierGridBox]

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            "Each model is trained with every combination of the values below; cross-validation "
            "picks the combination that agrees best with your coding. More values take longer.",
            {classifier: ClassifierGridBox(classifier) for classifier in CLASSIFIERS}, parent)

    def set_grids(self, grids: dict[str, dict[str, list[Any]]]) -> None:
        for classifier, box in self.boxes.items():
            box.set_grid(grids.get(classifier, {}))

    def set_folds(self, folds: int) -> None:
        for box in self.boxes.values():
            box.set_folds(folds)

    def grids(self) -> dict[str, dict[str, list[Any]]]:
        return {classifier: box.grid() for classifier, box in self.boxes.items()}


def _choice_label(choice: str) -> str:
    return {"linear": "linear", "rbf": "RBF"}.get(choice, choice)
