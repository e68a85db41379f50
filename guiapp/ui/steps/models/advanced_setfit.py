"""The "SetFit" tab of the Advanced dialog: how SetFit learns from few coded texts.

The settings to try (epochs × pairs per text × learning rates, checked with the core's
``normalise_setfit_grid`` as they are typed, each problem in red under its field) and training
(the most pairs per epoch, the longest text, pairs per step, the device). The defaults and the
limits come from the core's ``SETFIT_OPTIONS``, ``SETFIT_GRID`` and ``SETFIT_LIMITS``; tooltips
from its ``OPTION_HELP`` and ``GRID_HELP``. A study stores only what differs from the defaults.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGroupBox, QSpinBox, QWidget

from guiapp.core.errors import UserError
from guiapp.core.models.few_shot_options import (
    GRID_HELP,
    MAX_PAIRS_LIMITS,
    OPTION_HELP,
    SETFIT_GRID,
    SETFIT_LIMITS,
    SETFIT_OPTIONS,
    check_setfit,
    expand_setfit_grid,
    normalise_setfit_grid,
)
from guiapp.ui.common.glossary import explain
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.steps.models import advanced_form_parts as parts

GRID_NAMES = ("epochs", "pairs_per_text", "learning_rate")
GRID_LABELS = {"epochs": "Epochs", "pairs_per_text": "Pairs per text", "learning_rate": "Learning rates"}
GRID_WORDS = {"epochs": "number of epochs", "pairs_per_text": "number of pairs per text",
              "learning_rate": "learning rate"}
# the options this tab edits, as the Models step names them in "Changed from the defaults: …"
OPTION_NAMES = {
    "max_pairs": "most pairs per epoch",
    "max_length": "longest text",
    "batch_size": "pairs per step",
    "device": "where it computes",
}
LONGEST_READ = 512  # the bundled sentence model reads at most this many tokens
INTRO = (
    "SetFit fine-tunes the small language model that comes with TextLab on pairs of your coded texts "
    "(same category or not), then learns your categories from it; these settings are used only when "
    "“Few coded texts (SetFit)” is ticked on the Models step. Every combination of the values to try "
    "is trained, so each extra value multiplies SetFit's training time."
)
BATCH_HELP = (
    "How many pairs of coded texts SetFit learns from in one step. Larger is faster on a GPU but needs "
    "more memory: lower it if the GPU runs out of memory. SetFit's default: "
    f"{SETFIT_OPTIONS['batch_size']} pairs."
)
PAIRS_NOTE = (
    "Pairs per text × coded texts gives the pairs of an epoch; beyond this number they are drawn at random. "
    "The categories are still learnt from every coded text."
)
TUNING_NOTE = (
    "Each is trained on every tuning split (chosen on the Transformer tab), then the best once more on all "
    "training texts."
)


def grid_problem(name: str, raw: list[str]) -> str:
    """Why the values of one grid field are wrong, in plain words ("" when they are fine)."""
    return (parts.typed_problem(raw, GRID_WORDS[name], partial(_number_problem, name))
            or parts.refused_problem(name, GRID_LABELS[name], lambda: normalise_setfit_grid({name: raw})))


def _number_problem(name: str, text: str, number: float) -> str:
    kind, low, high, words = SETFIT_LIMITS[name]
    if not math.isfinite(number):
        return f"“{text}” is not a number SetFit can use: write {words}."
    if name == "learning_rate":
        return parts.rate_problem(text, number, low, high)
    if kind is int and number != int(number):
        return f"{text} is not a whole number: write {words}."
    if kind is int and not low <= number <= high:
        return f"{text} is out of range: the {GRID_WORDS[name]} must be {words}."
    return ""


def changed_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options of a SetFit model that this tab edits and that differ from the defaults."""
    return {name: value for name, value in options.items()
            if name in OPTION_NAMES and value is not None and value != SETFIT_OPTIONS[name]}


def changed_grid(grid: dict[str, Any]) -> dict[str, list[Any]]:
    """The settings of a SetFit grid that differ from the defaults (all of it when it is unreadable)."""
    try:
        full = normalise_setfit_grid(grid)
    except UserError:
        return {name: list(values) if isinstance(values, list | tuple) else [values] for name, values in grid.items()}
    return {name: values for name, values in full.items() if values != SETFIT_GRID[name]}


class GridField(parts.ValuesField):
    """A line of values (epochs, pairs per text or learning rates) with its error underneath."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(name, "setfit", parent)
        terms = {"epochs": ["epoch"], "pairs_per_text": [], "learning_rate": ["learning rate"]}[name]
        tip = "\n".join(part for part in (GRID_HELP[name], explain(terms)) if part)
        self.edit.setToolTip(f"{tip}\nAllowed: {SETFIT_LIMITS[name][3]}. Separate values with commas.")
        self.edit.setAccessibleName(GRID_LABELS[name])

    def set_text(self, values: list[Any]) -> None:
        """Values as a study file wrote them, even wrong ones (they are then marked in red)."""
        self.edit.setText(", ".join(str(value) for value in values))

    def problem(self, raw: list[str]) -> str:
        return grid_problem(self.name, raw)


class SetFitTab(parts.ModelSettingsTab):
    """SetFit's grid and options; ``changed`` after every edit."""

    CORRECT_FIRST = "Correct the values marked in red to see how many settings SetFit tries."

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)

        # -- settings to try
        self.fields = {name: GridField(name) for name in GRID_NAMES}
        grid_box = QGroupBox("Settings to try", objectName="setfitGridBox")
        grid_form = parts.form()
        grid_form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        for name, field in self.fields.items():
            field.edited.connect(self._edited)
            label = parts.label(GRID_LABELS[name] + ":", field.edit.toolTip(), field.edit)
            label.setFixedHeight(field.edit.sizeHint().height())  # level with its field when an error shows below
            grid_form.addRow(label, field)
        self.count = muted_note("", "setfitGridCount")
        shown = {name: parts.format_grid_values(name, SETFIT_GRID[name]) for name in GRID_NAMES}
        self.restore_grid = parts.restore_button(
            "Restore the defaults", "setfitGridRestore", lambda: self.set_grid({}),
            f"Put back SetFit's defaults: {shown['epochs']} epoch, {shown['pairs_per_text']} pairs per text, "
            f"learning rate {shown['learning_rate']}.")
        parts.settings_to_try(grid_box, grid_form, self.count, self.restore_grid)

        # -- training
        self.max_pairs = QSpinBox(objectName="setfitMaxPairs")
        self.max_pairs.setRange(*MAX_PAIRS_LIMITS)
        self.max_pairs.setSingleStep(1000)
        self.max_pairs.setGroupSeparatorShown(True)
        self.max_pairs.setSuffix(" pairs")
        self.max_length = QComboBox(objectName="setfitMaxLength")
        default_length = SETFIT_OPTIONS["max_length"]
        for length in parts.LENGTHS:
            if length <= LONGEST_READ:
                words = parts.length_words(length) + (", the default" if length == default_length else "")
                self.max_length.addItem(words, length)
        self.batch_size = QSpinBox(objectName="setfitBatchSize")
        self.batch_size.setRange(1, 4096)
        self.batch_size.setSuffix(" pairs")
        self.device = QComboBox(objectName="setfitDevice")
        parts.add_devices(self.device)
        self.pairs_note = muted_note(PAIRS_NOTE, "setfitPairsNote")
        pairs_tip = f"{OPTION_HELP['max_pairs']}\nThe default: {SETFIT_OPTIONS['max_pairs']:,} pairs."
        length_tip = (f"{OPTION_HELP['max_length']} The default: {default_length} tokens.\n"
                      + explain(["token"]))
        device_tip = OPTION_HELP["device"] + "\n" + explain(["GPU"])
        training_box = QGroupBox("Training", objectName="setfitTrainingBox")
        pairs_form = parts.form()
        pairs_form.addRow(parts.label("Most pairs per epoch:", pairs_tip, self.max_pairs), self.max_pairs)
        training_form = parts.form()
        training_form.addRow(parts.label("Longest text:", length_tip, self.max_length), self.max_length)
        training_form.addRow(parts.label("Pairs per step:", BATCH_HELP, self.batch_size), self.batch_size)
        training_form.addRow(parts.label("Compute on:", device_tip, self.device), self.device)
        parts.form_with_note(training_box, pairs_form, self.pairs_note)
        training_box.layout().addLayout(training_form)
        self.max_pairs.setToolTip(pairs_tip)
        self.max_length.setToolTip(length_tip)
        self.batch_size.setToolTip(BATCH_HELP)
        self.device.setToolTip(device_tip)

        self.options_error = parts.error_label("setfitOptionsError")
        self.restore_options = parts.restore_button(
            "Restore the training defaults", "setfitOptionsRestore", self._restore_options,
            f"At most {SETFIT_OPTIONS['max_pairs']:,} pairs per epoch, texts up to {default_length} tokens, "
            f"{SETFIT_OPTIONS['batch_size']} pairs per step, automatic device.")
        bottom = parts.problem_row(self.options_error, self.restore_options)

        for combo in (self.max_length, self.device):
            combo.currentIndexChanged.connect(self._edited)
        for spin in (self.max_pairs, self.batch_size):
            spin.valueChanged.connect(self._edited)

        parts.tab_column(self, INTRO, grid_box, training_box, bottom, intro_name="setfitTabIntro")
        self.set_values({}, {})

    # -- values ----------------------------------------------------------------------------------------
    def set_values(self, options: dict[str, Any], grid: dict[str, Any]) -> None:
        """Show a study's SetFit options and grid (only what differs from the defaults)."""
        with self._filling():
            self._set_options(options)
        self.set_grid(grid)

    def set_grid(self, grid: dict[str, Any]) -> None:
        """Show ``grid`` (left-out settings: SetFit's defaults)."""
        with self._filling():
            for name, field in self.fields.items():
                values = grid.get(name, SETFIT_GRID[name])
                values = list(values) if isinstance(values, list | tuple) else [values]
                try:
                    field.set_values(normalise_setfit_grid({name: values})[name])
                except UserError:  # a study file's wrong value: shown as written, marked in red
                    field.set_text(values)
        self._edited()

    def _set_options(self, options: dict[str, Any]) -> None:
        merged = {**SETFIT_OPTIONS, **{key: value for key, value in options.items() if value is not None}}
        self.max_pairs.setValue(int(merged["max_pairs"]))
        parts.select(self.max_length, merged["max_length"], lambda v: f"{v:,} tokens")
        self.batch_size.setValue(int(merged["batch_size"]))
        parts.select(self.device, merged["device"], str)

    def _restore_options(self) -> None:
        with self._filling():
            self._set_options({})
        self._edited()

    def all_options(self) -> dict[str, Any]:
        """Every option this tab edits, as shown."""
        return {
            "max_pairs": self.max_pairs.value(),
            "max_length": self.max_length.currentData(),
            "batch_size": self.batch_size.value(),
            "device": self.device.currentData(),
        }

    def options(self) -> dict[str, Any]:
        """Only the options that differ from the defaults (what a spec stores)."""
        return changed_options(self.all_options())

    def full_grid(self) -> dict[str, list[Any]]:
        """The whole grid as shown (raises UserError while a field is wrong)."""
        return normalise_setfit_grid({name: field.raw_values() for name, field in self.fields.items()})

    def grid(self) -> dict[str, list[Any]]:
        """Only the grid settings that differ from the defaults."""
        return changed_grid(self.full_grid())

    # -- checking and showing ------------------------------------------------------------------------------
    def _core_check_options(self) -> None:
        check_setfit(self.all_options(), {})

    def _count_text(self) -> str:
        grid = self.full_grid()
        n_settings = len(expand_setfit_grid(grid))
        if n_settings == 1:
            head = "1 setting."
        else:
            sizes = " × ".join(str(len(grid[name])) for name in GRID_NAMES)
            head = (f"{sizes} = {n_settings} settings (epochs × pairs per text × learning rates), about "
                    f"{n_settings} times the training time of one.")
        return f"{head} {TUNING_NOTE}"
