"""The parts the Advanced dialog's tabs build their forms from, each written once.

A tab's column under the sentence that says what it is for, and a tab of one box per representation
or classifier; values typed in one line (commas, semicolons or spaces between them) and why they are wrong, in
plain words; labels of one width, so that the fields of every group line up; a note under a
group's fields; a line of values to try with its problem in red underneath; the count of settings
beside the button that puts the defaults back; a restore button; the red line under a group's options beside its
restore button; where a model computes and the text lengths offered; a drop-down list that shows a
value a study file holds even when the list lacks it; and what a tab of one model's settings (the
Transformer's, SetFit's) does after every edit.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.common.layouts import STRETCH, hbox, vbox

LABEL_WIDTH = 190  # the same for every group, so that the fields line up
LENGTHS = (64, 128, 256, 384, 512, 1024, 2048, 4096)  # the longest texts offered, in tokens
_SEPARATORS = re.compile(r"[,;\s]+")


def parse_values(text: str) -> list[str]:
    """``"0.1, 1;10"`` → ``["0.1", "1", "10"]`` (commas, semicolons or spaces separate)."""
    return [part for part in _SEPARATORS.split(text.strip()) if part]


def format_rate(value: float) -> str:
    """2e-05 -> "2e-5", 0.0001 -> "0.0001"."""
    return f"{value:g}".replace("e-0", "e-").replace("e+0", "e+")


def format_grid_values(name: str, values: list[Any]) -> str:
    """Learning rates as "2e-5", every other setting to try as a whole number."""
    return ", ".join(format_rate(float(v)) if name == "learning_rate" else str(int(v)) for v in values)


def length_words(length: int) -> str:
    """128 -> "128 tokens (about 100 words)"."""
    return f"{length:,} tokens (about {round(length * 0.75, -1):,.0f} words)"


def typed_problem(raw: list[str], what: str, number_problem: Callable[[str, float], str]) -> str:
    """Why values typed in a line are wrong ("" when they are fine): none given, one that is not a
    number, or the first that ``number_problem(text, number)`` refuses. ``what``: one value in words."""
    if not raw:
        return f"Give at least one {what}."
    for text in raw:
        try:
            number = float(text)
        except ValueError:
            return (f"“{text}” is not a number. Separate values with commas and write decimals with a point "
                    "(2e-5 or 0.00002).")
        problem = number_problem(text, number)
        if problem:
            return problem
    return ""


def rate_problem(text: str, number: float, low: float, high: float) -> str:
    """Why ``number`` cannot be a learning rate ("" when it lies between ``low`` and ``high``)."""
    if not low < number < high:
        return f"{text} cannot be a learning rate: learning rates lie between 0 and 1, such as 2e-5 (= 0.00002)."
    return ""


def refused_problem(name: str, shown_name: str, normalise: Callable[[], object]) -> str:
    """What the core refuses in ``normalise()``, the setting ``name`` called ``shown_name`` ("" when
    it accepts); for anything that the checks of :func:`typed_problem` missed."""
    try:
        normalise()
    except UserError as error:
        return f"{error.message} {error.hint}".replace(f"'{name}'", shown_name).strip()
    return ""


def tab_column(tab: QWidget, intro: str, *items: QWidget | QLayout, intro_name: str = "") -> None:
    """A tab's column: the wrapped sentence ``intro`` that says what the tab is for (named
    ``intro_name``), then ``items`` (its groups and rows) top to bottom, then the free space."""
    label = QLabel(intro, objectName=intro_name)
    label.setWordWrap(True)
    vbox(tab, label, *items, STRETCH)


class AdvancedTab(QWidget):
    """A tab of one box per representation or classifier, under a sentence that says what the tab
    is for; ``changed`` after every edit in any box.

    ``boxes``: name -> a box with a ``changed`` signal and ``is_valid()``, shown in this order.
    """

    changed = Signal()

    def __init__(self, intro: str, boxes: dict, parent: QWidget | None = None) -> None:  # noqa: ANN001 — boxes
        super().__init__(parent)
        self.boxes = boxes
        for box in boxes.values():
            box.changed.connect(self.changed)
        tab_column(self, intro, *boxes.values())

    def is_valid(self) -> bool:
        return all([box.is_valid() for box in self.boxes.values()])  # noqa: C419 - check (and mark) every box


def form(*, labels_right: bool = True) -> QFormLayout:
    """A form whose fields take the width and whose labels stand right, level with their field
    (where they stand otherwise follows the style when ``labels_right`` is off)."""
    layout = QFormLayout()
    layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
    if labels_right:
        layout.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return layout


def label(text: str, tip: str, buddy: QWidget) -> QLabel:
    """A field's label, as wide as every other, with the field's tooltip."""
    widget = QLabel(text)
    widget.setMinimumWidth(LABEL_WIDTH)
    widget.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    widget.setToolTip(tip)
    widget.setBuddy(buddy)
    return widget


def spacer_label() -> QLabel:
    """An empty label as wide as the others, for a field that names itself (a checkbox)."""
    widget = QLabel("")
    widget.setMinimumWidth(LABEL_WIDTH)
    return widget


def form_with_note(box: QGroupBox, layout: QFormLayout, note: QLabel) -> None:
    """The group's form, then a note under its fields (outside the form, which would clip a
    wrapped label's height)."""
    note.setContentsMargins(LABEL_WIDTH + max(layout.horizontalSpacing(), 6), 0, 0, 0)
    vbox(box, layout, note)


def error_label(object_name: str) -> QLabel:
    """A red, wrapped line for a problem, hidden until there is one."""
    widget = QLabel("", objectName=object_name)
    widget.setStyleSheet(theme.ERROR_STYLE)
    widget.setWordWrap(True)
    widget.hide()
    return widget


def restore_button(text: str, object_name: str, restore: Callable[[], object], tip: str = "") -> QPushButton:
    """A button that puts defaults back by calling ``restore``; ``tip`` says which values."""
    button = QPushButton(text, objectName=object_name)
    button.setToolTip(tip)
    button.clicked.connect(restore)
    return button


def settings_to_try(box: QGroupBox, layout: QFormLayout, count: QLabel, restore: QPushButton) -> None:
    """The "Settings to try" group: its fields, then the count of settings beside the button that
    puts the defaults back."""
    bottom = hbox(None, (count, 1), restore)
    bottom.setAlignment(restore, Qt.AlignmentFlag.AlignTop)
    vbox(box, layout, bottom)


def problem_row(error: QLabel, restore: QPushButton) -> QLayout:
    """The line under a group's options: its problem in red on the left, its restore button on the right."""
    row = hbox(None, (error, 1), (STRETCH, 0), restore)
    row.setAlignment(restore, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignRight)
    return row


def show_problem(error: QLabel, check: Callable[[], object]) -> bool:
    """Run ``check``; show what it refuses (message and hint) in ``error``, or hide ``error``."""
    try:
        check()
    except UserError as problem:
        error.setText(f"{problem.message} {problem.hint}".strip())
        error.show()
        return False
    error.hide()
    return True


def add_devices(combo: QComboBox) -> None:
    """Where a model computes: automatic, the processor, an NVIDIA GPU and, on a Mac, Apple's GPU."""
    combo.addItem("Automatic: the GPU when there is one, else the processor", "auto")
    combo.addItem("This computer's processor (CPU)", "cpu")
    combo.addItem("NVIDIA GPU (CUDA)", "cuda")
    if sys.platform == "darwin":
        combo.addItem("Apple GPU (MPS)", "mps")


def select(combo: QComboBox, value: Any, shown: Callable[[Any], str]) -> None:
    """Choose ``value`` in ``combo``, adding it when a study file holds a value the list lacks."""
    index = combo.findData(value)
    if index < 0:
        combo.addItem(shown(value), value)
        index = combo.count() - 1
    combo.setCurrentIndex(index)


class ValuesField(QWidget):
    """A line of values to try (learning rates, epochs …) with its problem in red underneath.

    ``object_prefix`` names the widgets ("transformer" -> transformerGrid_epochs and
    transformerGridError_epochs); a tab's field says in :meth:`problem` what is wrong with the values.
    """

    edited = Signal()

    def __init__(self, name: str, object_prefix: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.edit = QLineEdit(objectName=f"{object_prefix}Grid_{name}")
        kind = "numbers such as 2e-5" if name == "learning_rate" else "whole numbers"
        self.edit.setPlaceholderText(f"one or more {kind}, separated by commas")
        self.edit.textChanged.connect(self.edited)
        self.error = error_label(f"{object_prefix}GridError_{name}")
        vbox(self, self.edit, self.error, margins=(0, 0, 0, 0), spacing=2)

    def set_values(self, values: list[Any]) -> None:
        self.edit.setText(format_grid_values(self.name, values))

    def raw_values(self) -> list[str]:
        return parse_values(self.edit.text())

    def problem(self, raw: list[str]) -> str:
        """Why ``raw`` is wrong, in plain words ("" when it is fine)."""
        raise NotImplementedError(f"{type(self).__name__} says what is wrong with its values")

    def check(self) -> bool:
        problem = self.problem(self.raw_values())
        self.error.setText(problem)
        self.error.setVisible(bool(problem))
        self.edit.setStyleSheet(theme.FIELD_ERROR_STYLE if problem else "")
        return not problem


class ModelSettingsTab(QWidget):
    """A tab of one model's settings: the values to try (``fields``, and in ``count`` how many
    settings they make) and its options (their problem in ``options_error``).

    After an edit the tab checks the options and counts the settings, then says ``changed``; what it
    fills in itself (inside :meth:`_filling`) is checked once afterwards. Each tab says how its core
    checks the options, what the count reads and, in ``CORRECT_FIRST``, what shows while a value is wrong.
    """

    changed = Signal()
    CORRECT_FIRST = "Correct the values marked in red to see how many settings are tried."
    fields: dict[str, ValuesField]
    count: QLabel
    options_error: QLabel

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loading = False

    def is_valid(self) -> bool:
        fields_ok = self._fields_ok()
        return fields_ok and self._check_options()

    @contextmanager
    def _filling(self) -> Iterator[None]:
        """While the tab fills in its own fields: their edits are not checked one by one."""
        self._loading = True
        try:
            yield
        finally:
            self._loading = False

    def _fields_ok(self) -> bool:
        """Check every field (each marks its own problem); whether all are fine."""
        return all([field.check() for field in self.fields.values()])  # noqa: C419 - mark every field

    def _check_options(self) -> bool:
        return show_problem(self.options_error, self._core_check_options)

    def _edited(self) -> None:
        if self._loading:
            return
        self._follow_options()
        self._check_options()
        self._update_count()
        self.changed.emit()

    def _update_count(self) -> None:
        self.count.setText(self._count_text() if self._fields_ok() else self.CORRECT_FIRST)

    def _follow_options(self) -> None:
        """Update what shows the options' effect, before they are checked (nothing, unless a tab has some)."""

    def _core_check_options(self) -> None:
        """Raise the core's UserError when the options as shown are wrong."""
        raise NotImplementedError(f"{type(self).__name__} says how its options are checked")

    def _count_text(self) -> str:
        """How many settings the values to try make (called only while every field is fine)."""
        raise NotImplementedError(f"{type(self).__name__} says how its settings are counted")
