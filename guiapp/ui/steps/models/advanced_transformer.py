"""The "Transformer" tab of the Advanced dialog: how the fine-tuned Transformer is trained.

The settings to try (learning rates × epochs, checked with the core's
``normalise_transformer_grid`` as they are typed, each problem in red under its field), how
texts are read (longest text, how longer texts are cut), training (texts per batch, dropout,
device, 16-bit numbers) and how the best setting is chosen (automatic, k-fold cross-validation
or one validation split). Defaults come from the chosen model's registry entry; tooltips from
the core's ``OPTION_HELP`` and ``GRID_HELP``.
"""

from __future__ import annotations

import dataclasses
import math
from functools import partial
from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QGroupBox, QSpinBox, QWidget

from guiapp.core.models.transformers.options import (
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    GRID_HELP,
    OPTION_HELP,
    check_options,
    expand_transformer_grid,
    normalise_transformer_grid,
)
from guiapp.core.models.transformers.sources.registry import TransformerInfo, info_for
from guiapp.core.models.transformers.training.truncation import split_budget
from guiapp.core.study.sections import EvaluationSpec
from guiapp.ui.common.glossary import explain
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.steps.models import advanced_form_parts as parts

GRID_LABELS = {"learning_rate": "Learning rates", "epochs": "Epochs"}
# the options as the Models step names them in "Changed from the defaults: …"
OPTION_NAMES = {
    "max_length": "longest text",
    "truncation": "how long texts are cut",
    "batch_size": "texts per batch",
    "dropout": "dropout",
    "device": "where it computes",
    "mixed_precision": "16-bit numbers",
}
CHOICE_CHOICES = (
    ("cheapest within noise", "Prefer the cheaper setting (fewer epochs) when the scores are within noise"),
    ("best score", "Always take the top score (the paper's protocol)"),
)
CHOICE_HELP = (
    "With a few hundred validation texts, settings often differ by less than the score's own noise. The "
    "default takes, among the settings within one standard error of the best, the one that trains least; "
    "the paper's protocol always takes the top score."
)
SEEDS_HELP = (
    "Fine-tune the chosen setting several times with different random seeds and average their answers: "
    "steadier results and the spread across seeds is shown, at that many times the final training time."
)
TUNING_CHOICES = (
    ("auto", "Automatic: cross-validation with a GPU, one validation split without"),
    ("cross-validation", "Cross-validation with the folds of the “Test and tuning” tab"),
    ("validation split", "One validation split of the training texts"),
)
TUNING_HELP = (
    "How the best learning rate and number of epochs are found. Cross-validation fine-tunes the "
    "model once per fold for every setting — fair, but hours on a processor. One validation "
    "split fine-tunes it once per setting, on the rest of the training texts, and compares the "
    "settings on the part set aside. With a small model such as the bundled MiniLM, cross-validation "
    "is affordable even on a processor (minutes per setting on a few thousand texts) and makes the "
    "choice much steadier than one split of a few hundred texts."
)


def truncation_words(strategy: str, max_length: int) -> str:
    """"first 128 and last 382 tokens (the paper's choice)" for head_tail at 512."""
    first, last = split_budget(max_length - 2, strategy)
    if strategy == "head":
        return f"only the first {first:,} tokens"
    if strategy == "middle":
        return f"the middle removed: first {first:,} and last {last:,} tokens"
    return f"first {first:,} and last {last:,} tokens (the paper's choice)"


def grid_problem(name: str, raw: list[str], model: str) -> str:
    """Why the values of one grid field are wrong, in plain words ("" when they are fine)."""
    what = "learning rate" if name == "learning_rate" else "number of epochs"
    return (parts.typed_problem(raw, what, partial(_number_problem, name))
            or parts.refused_problem(name, GRID_LABELS[name], lambda: normalise_transformer_grid({name: raw}, model)))


def _number_problem(name: str, text: str, number: float) -> str:
    if name == "learning_rate":
        return parts.rate_problem(text, number, 0, 1)
    if not math.isfinite(number) or number != int(number):
        return f"{text} is not a whole number: the model reads all texts 1, 2, 3 … times."
    if number < 1:
        return "The number of epochs must be at least 1."
    return ""


class GridField(parts.ValuesField):
    """A line of values (learning rates or epochs) with its error underneath."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(name, "transformer", parent)
        self.model = DEFAULT_MODEL
        tip = GRID_HELP[name] + "\n" + explain(["learning rate" if name == "learning_rate" else "epoch"])
        self.edit.setToolTip(tip + "\nSeparate values with commas.")

    def problem(self, raw: list[str]) -> str:
        return grid_problem(self.name, raw, self.model)


class TransformerTab(parts.ModelSettingsTab):
    """The Transformer's grid, options and tuning method; ``changed`` after every edit."""

    CORRECT_FIRST = "Correct the values marked in red to see how many fine-tunings are needed."

    def __init__(self, model: str = DEFAULT_MODEL, on_gpu: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model or DEFAULT_MODEL
        self.on_gpu = on_gpu
        self.folds = 5
        try:
            self.info: TransformerInfo = info_for(self.model)
        except Exception:  # noqa: BLE001 - an unreadable folder: fall back to the bundled model's defaults
            self.info = info_for(DEFAULT_MODEL)
        intro = (
            f"How the fine-tuned Transformer — {self.info.label} — learns your categories. The defaults "
            "follow the reference paper, with larger learning steps for small models; hover over a "
            "setting to see what it does. They are used when “Fine-tune a Transformer” is ticked on "
            "the Models step."
        )

        # -- settings to try
        self.fields = {name: GridField(name) for name in ("learning_rate", "epochs")}
        grid_box = QGroupBox("Settings to try", objectName="transformerGridBox")
        grid_form = parts.form()
        for name, field in self.fields.items():
            field.model = self.model
            field.edited.connect(self._edited)
            grid_form.addRow(parts.label(GRID_LABELS[name] + ":", field.edit.toolTip(), field.edit), field)
        self.count = muted_note("", "transformerGridCount")
        defaults = self.info.default_grid
        self.restore_grid = parts.restore_button(
            "Restore the model's defaults", "transformerGridRestore", lambda: self.set_grid({}),
            f"Put back the values for {self.info.label}: learning rates "
            f"{parts.format_grid_values('learning_rate', defaults['learning_rate'])}; epochs "
            f"{parts.format_grid_values('epochs', defaults['epochs'])}.")
        parts.settings_to_try(grid_box, grid_form, self.count, self.restore_grid)

        # -- reading the texts
        self.max_length = QComboBox(objectName="transformerMaxLength")
        self.max_length.addItem(f"the model's default ({self.info.default_max_length:,} tokens)", None)
        for length in parts.LENGTHS:
            if length <= self.info.max_length:
                self.max_length.addItem(parts.length_words(length), length)
        self.truncation = QComboBox(objectName="transformerTruncation")
        self.length_note = muted_note("", "transformerLengthNote")
        reading_box = QGroupBox("Reading the texts", objectName="transformerReadingBox")
        reading_form = parts.form()
        length_tip = OPTION_HELP["max_length"] + "\n" + explain(["token"])
        reading_form.addRow(parts.label("Longest text:", length_tip, self.max_length), self.max_length)
        reading_form.addRow(parts.label("Longer texts keep:", OPTION_HELP["truncation"], self.truncation),
                            self.truncation)
        parts.form_with_note(reading_box, reading_form, self.length_note)

        # -- training
        self.batch_size = QSpinBox(objectName="transformerBatchSize")
        self.batch_size.setRange(0, 4096)
        self.batch_size.setSpecialValueText(f"the model's default ({self.info.default_batch_size})")
        self.batch_size.setSuffix(" texts")
        self.dropout = QDoubleSpinBox(objectName="transformerDropout")
        self.dropout.setRange(0.0, 0.9)
        self.dropout.setSingleStep(0.05)
        self.dropout.setDecimals(2)
        self.device = QComboBox(objectName="transformerDevice")
        parts.add_devices(self.device)
        self.mixed_precision = QCheckBox("Compute with 16-bit numbers where safe (faster)",
                                         objectName="transformerMixedPrecision")
        training_box = QGroupBox("Training", objectName="transformerTrainingBox")
        training_form = parts.form()
        training_form.addRow(parts.label("Texts per batch:", OPTION_HELP["batch_size"], self.batch_size),
                             self.batch_size)
        training_form.addRow(parts.label("Dropout:", OPTION_HELP["dropout"], self.dropout), self.dropout)
        training_form.addRow(parts.label("Compute on:", OPTION_HELP["device"] + "\n" + explain(["GPU"]), self.device),
                             self.device)
        training_form.addRow(parts.spacer_label(), self.mixed_precision)
        self.mixed_precision.setToolTip(OPTION_HELP["mixed_precision"])
        training_box.setLayout(training_form)

        # -- how settings are chosen
        self.tuning = QComboBox(objectName="transformerTuning")
        for value, text in TUNING_CHOICES:
            self.tuning.addItem(text, value)
        self.choice = QComboBox(objectName="transformerChoice")
        for value, text in CHOICE_CHOICES:
            self.choice.addItem(text, value)
        self.seeds = QSpinBox(objectName="transformerSeeds")
        self.seeds.setRange(1, 10)
        self.seeds.setSuffix(" seeds, probabilities averaged")
        self.seeds.setSpecialValueText("one seed (as in the paper)")
        self.validation_share = QSpinBox(objectName="transformerValidationShare")
        self.validation_share.setRange(5, 50)
        self.validation_share.setSuffix(" % of the training texts")
        self.tuning_note = muted_note(TUNING_HELP, "transformerTuningNote")
        tuning_box = QGroupBox("How settings are chosen", objectName="transformerTuningBox")
        tuning_form = parts.form()
        tuning_form.addRow(parts.label("Choose the best setting by:", TUNING_HELP, self.tuning), self.tuning)
        share_tip = explain(["validation split"]) + " The paper's choice: 20 %."
        tuning_form.addRow(parts.label("Validation split:", share_tip, self.validation_share), self.validation_share)
        tuning_form.addRow(parts.label("When settings are within noise:", CHOICE_HELP, self.choice), self.choice)
        tuning_form.addRow(parts.label("Final model:", SEEDS_HELP, self.seeds), self.seeds)
        parts.form_with_note(tuning_box, tuning_form, self.tuning_note)

        self.options_error = parts.error_label("transformerOptionsError")
        self.restore_options = parts.restore_button(
            "Restore the defaults", "transformerOptionsRestore", self._restore_options,
            "The model's own text length, way of cutting and batch size; dropout 0.1; automatic device; "
            "16-bit numbers on a GPU; automatic choice of the tuning method with a 20 % validation split.")
        bottom = parts.problem_row(self.options_error, self.restore_options)

        for widget in (self.max_length, self.truncation, self.device, self.tuning, self.choice):
            widget.currentIndexChanged.connect(self._edited)
        for spin in (self.batch_size, self.dropout, self.validation_share, self.seeds):
            spin.valueChanged.connect(self._edited)
        self.seeds.valueChanged.connect(self._update_count)
        self.mixed_precision.toggled.connect(self._edited)
        for name, widget in (("batch_size", self.batch_size), ("dropout", self.dropout)):
            widget.setToolTip(OPTION_HELP[name])
        self.max_length.setToolTip(OPTION_HELP["max_length"])
        self.truncation.setToolTip(OPTION_HELP["truncation"])
        self.device.setToolTip(OPTION_HELP["device"])
        self.tuning.setToolTip(TUNING_HELP)
        self.validation_share.setToolTip(share_tip)
        self.choice.setToolTip(CHOICE_HELP)
        self.seeds.setToolTip(SEEDS_HELP)

        parts.tab_column(self, intro, grid_box, reading_box, training_box, tuning_box, bottom,
                         intro_name="transformerTabIntro")
        self.set_values({}, {}, EvaluationSpec())

    # -- values ----------------------------------------------------------------------------------------
    def set_values(self, options: dict[str, Any], grid: dict[str, list[Any]], evaluation: EvaluationSpec) -> None:
        """Show a study's Transformer options and grid (only what differs from the defaults)."""
        with self._filling():
            self._set_options(options)
            self._set_tuning(evaluation)
        self.set_grid(grid)

    def set_grid(self, grid: dict[str, list[Any]]) -> None:
        """Show ``grid`` (left-out settings: the model's defaults)."""
        full = normalise_transformer_grid(grid, self.model)
        with self._filling():
            for name, field in self.fields.items():
                field.set_values(full[name])
        self._edited()

    def _set_options(self, options: dict[str, Any]) -> None:
        merged = {**DEFAULT_OPTIONS, **options}
        parts.select(self.max_length, merged["max_length"], lambda v: f"{v:,} tokens")
        self._fill_truncations()
        parts.select(self.truncation, merged["truncation"], str)
        self.batch_size.setValue(int(merged["batch_size"] or 0))
        self.dropout.setValue(float(merged["dropout"]))
        parts.select(self.device, merged["device"], str)
        self.mixed_precision.setChecked(bool(merged["mixed_precision"]))

    def _restore_options(self) -> None:
        with self._filling():
            self._set_options({})
            self._set_tuning(EvaluationSpec())
        self._edited()

    def _set_tuning(self, evaluation: EvaluationSpec) -> None:
        """Show how ``evaluation`` chooses the Transformer's setting and how many seeds it trains."""
        self.tuning.setCurrentIndex(max(0, self.tuning.findData(evaluation.transformer_tuning)))
        self.validation_share.setValue(round(evaluation.validation_share * 100))
        self.choice.setCurrentIndex(max(0, self.choice.findData(evaluation.transformer_choice)))
        self.seeds.setValue(evaluation.transformer_seeds)

    def all_options(self) -> dict[str, Any]:
        """Every option as shown (None = the model's default), without the model."""
        return {
            "max_length": self.max_length.currentData(),
            "truncation": self.truncation.currentData(),
            "batch_size": self.batch_size.value() or None,
            "dropout": round(self.dropout.value(), 4),
            "device": self.device.currentData(),
            "mixed_precision": self.mixed_precision.isChecked(),
        }

    def options(self) -> dict[str, Any]:
        """Only the options that differ from the defaults (what a spec stores)."""
        return {name: value for name, value in self.all_options().items() if value != DEFAULT_OPTIONS[name]}

    def full_grid(self) -> dict[str, list[Any]]:
        """The whole grid as shown (raises UserError while a field is wrong)."""
        return normalise_transformer_grid({name: field.raw_values() for name, field in self.fields.items()}, self.model)

    def grid(self) -> dict[str, list[Any]]:
        """Only the grid settings that differ from the model's defaults."""
        full = self.full_grid()
        default = normalise_transformer_grid({}, self.model)
        return {name: values for name, values in full.items() if values != default[name]}

    def transformer_choice(self) -> str:
        return self.choice.currentData()

    def seeds_value(self) -> int:
        return self.seeds.value()

    def evaluation(self, evaluation: EvaluationSpec) -> EvaluationSpec:
        """``evaluation`` with the Transformer's tuning method, validation split, choice and seeds as shown."""
        return dataclasses.replace(
            evaluation,
            transformer_tuning=self.tuning.currentData(),
            validation_share=self.validation_share.value() / 100.0,
            transformer_choice=self.transformer_choice(),
            transformer_seeds=self.seeds_value(),
        )

    def set_folds(self, folds: int) -> None:
        self.folds = folds
        self._update_count()

    # -- checking and showing ------------------------------------------------------------------------------
    def _core_check_options(self) -> None:
        check_options({"model": self.model, **self.all_options()})

    def _fill_truncations(self) -> None:
        length = self.max_length.currentData() or self.info.default_max_length
        current = self.truncation.currentData() if self.truncation.count() else None
        self.truncation.blockSignals(True)
        self.truncation.clear()
        default = self.info.default_truncation
        self.truncation.addItem(f"the model's default: {truncation_words(default, length)}", None)
        for strategy in ("head_tail", "head", "middle"):
            self.truncation.addItem(truncation_words(strategy, length)[0].upper() + truncation_words(strategy, length)[1:],
                                    strategy)
        self.truncation.setCurrentIndex(max(0, self.truncation.findData(current)))
        self.truncation.blockSignals(False)

    def _follow_options(self) -> None:
        self._fill_truncations()
        self.validation_share.setEnabled(self.tuning.currentData() != "cross-validation")
        length = self.max_length.currentData() or self.info.default_max_length
        note = ("Longer texts are cut as chosen above (the Data step shows how many of your texts are "
                "that long). Reading more tokens takes more time and memory.")
        if length > self.info.max_length:
            note = f"This model reads at most {self.info.max_length:,} tokens; longer settings are cut to that."
        self.length_note.setText(note)

    def _count_text(self) -> str:
        n_settings = len(expand_transformer_grid(self.full_grid(), self.model))
        tuning = self.tuning.currentData()
        if tuning == "auto":
            tuning = "cross-validation" if self.on_gpu else "validation split"
        splits = self.folds if tuning == "cross-validation" else 1
        per = f"{self.folds} folds" if splits > 1 else "1 validation split"
        setting = "setting" if n_settings == 1 else "settings"
        seeds = self.seeds.value()
        final = ("one final fine-tuning" if seeds == 1 else f"{seeds} final fine-tunings (one per seed)")
        return (f"{n_settings} {setting} × {per} = {n_settings * splits} fine-tuning"
                f"{'s' if n_settings * splits != 1 else ''}, then {final} with the chosen setting "
                "on all training texts.")
