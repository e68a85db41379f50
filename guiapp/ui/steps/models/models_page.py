"""Step 2, Models: tick the models to compare, see how long they take, and start the run.

The page only builds an :class:`~guiapp.core.study.spec.ExperimentSpec` (the data part comes from the
Data step); the Run step runs it. Top to bottom: the representation × classifier grid with the
expected time of each model, the fine-tuned Transformer (``transformer_choice``), the models that
need few or no coded texts (``few_shot_choice``: zero-shot and SetFit, with the categories'
descriptions), the total, how the models are tested (with "Advanced…"), and the Run button, which
says why it is disabled when it is.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.core.experiment.speed.estimates import (
    describe_duration,
    estimate_seconds,
    transformer_tuning_splits,
)
from guiapp.core.experiment.speed.few_shot_estimates import setfit_on_gpu
from guiapp.core.health.findings import HealthReport
from guiapp.core.models.conventional import CLASSIFIERS
from guiapp.core.models.transformers.options import (
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    expand_transformer_grid,
    normalise_transformer_grid,
)
from guiapp.core.study.sections import REPRESENTATION_LABELS, EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.split_sizes import holdout_sizes, oversampled_size, split_column_sizes
from guiapp.ui import theme
from guiapp.ui.steps.models.advanced_preprocessing import LABELS as OPTION_LABELS
from guiapp.ui.steps.models import advanced_setfit
from guiapp.ui.steps.models.advanced_settings import (
    FINE_TUNE,
    SETFIT,
    TRANSFORMER,
    AdvancedSettingsDialog,
    StudySettings,
    changed_grid,
)
from guiapp.ui.steps.models.advanced_transformer import (
    OPTION_NAMES as TRANSFORMER_OPTION_NAMES,
)
from guiapp.ui.steps.models.few_shot_choice import FEW_SHOT_PAIRS, SETFIT_PAIR, FewShotChoice
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.steps.models.model_choice import ModelChoiceGrid, Pair
from guiapp.ui.common.scroll_area import ScrollArea
from guiapp.ui.steps.models.transformer_choice import TransformerChoice
from guiapp.ui.session.data_checks import not_ready_reason
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.step_order import MODELS_STEP
from guiapp.ui.steps.models.where_to_run_line import WhereToRunLine

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

GLOSSARY_TERMS = ["cross-validation", "fold", "oversampling", "oversampled", "validation split", "Transformer"]
TRANSFORMER_PAIR = (TRANSFORMER, FINE_TUNE)
ESTIMATE_TIP = (
    "A rough guess from the number of coded texts, categories and settings to try; "
    "the Run step shows the real time left once the run starts."
)


def transformer_changed_grid(grid: dict, model: str) -> dict:
    """The Transformer grid settings that differ from the model's defaults (all of it if unreadable)."""
    try:
        full = normalise_transformer_grid(grid, model)
        default = normalise_transformer_grid({}, model)
    except (UserError, OSError):
        return dict(grid)
    return {name: values for name, values in full.items() if values != default[name]}




class ModelsPage(QWidget):
    """Choose models and the protocol; emits ``runRequested(ExperimentSpec)``."""

    runRequested = Signal(object)  # ExperimentSpec
    saveRequested = Signal()
    statusMessage = Signal(str)

    # A short measurement of this computer's speed on the user's own texts, cached per machine
    # (core/experiment/speed/speed_probe.py), makes the estimates follow the machine; UI tests switch it off.
    measure_in_background = True

    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent)
        from guiapp.workers import WorkerSlot

        self.session = session or StudySession(self)
        self._measure_slot = WorkerSlot(self)
        self._measured_for: frozenset[str] = frozenset()
        self._data: DataSpec | None = None
        self._report: HealthReport | None = None
        self._split: tuple[int, int] | None = None
        self.settings = StudySettings()
        self.name = ""
        self.load_notes = ""  # what load_spec could not take over, in words
        self.advanced_dialog: AdvancedSettingsDialog | None = None

        title = QLabel("Choose the models to compare", objectName="modelsTitle")
        title.setStyleSheet(theme.heading_style(18))
        intro = QLabel(
            "A model is a way of turning texts into numbers (rows) combined with a method that "
            "learns your categories from those numbers (columns). Tick the models to compare: "
            "TextLab tunes each one on your coded texts and tests how often it agrees with your "
            "coding on texts it has not seen."
        )
        intro.setWordWrap(True)
        self.data_label = QLabel("", objectName="modelsDataSummary")
        self.data_label.setWordWrap(True)
        self.data_label.setStyleSheet(theme.MUTED_STYLE)

        self.choice = ModelChoiceGrid()
        self.choice.changed.connect(self._refresh)
        self.transformer = TransformerChoice()
        self.transformer.changed.connect(self._refresh)
        self.transformer.deviceChanged.connect(self._refresh)
        self.few_shot = FewShotChoice()
        self.few_shot.changed.connect(self._refresh)
        self.estimate_label = QLabel("", objectName="estimateSummary")
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setStyleSheet(theme.heading_style(14))
        self.estimate_label.setToolTip(ESTIMATE_TIP)

        box = QFrame(objectName="evaluationBox")
        box.setStyleSheet(theme.card_style("evaluationBox", background=theme.PAGE))
        heading = QLabel("<b>How the models are tested</b>")
        self.evaluation_label = GlossaryLabel("", terms=GLOSSARY_TERMS)
        self.evaluation_label.setObjectName("evaluationSummary")
        self.changes_label = QLabel("", objectName="changedSettings")
        self.changes_label.setWordWrap(True)
        self.changes_label.setStyleSheet(theme.MUTED_STYLE)
        self.advanced_button = QPushButton("Advanced…", objectName="advancedButton")
        self.advanced_button.setToolTip(
            "Change the test share, the folds, oversampling, the seed, how texts are prepared "
            "and which settings of each method are tried."
        )
        self.advanced_button.clicked.connect(self.open_advanced)
        text_column = QVBoxLayout()
        text_column.addWidget(heading)
        text_column.addWidget(self.evaluation_label)
        text_column.addWidget(self.changes_label)
        box_row = QHBoxLayout(box)
        box_row.setContentsMargins(14, 10, 14, 10)
        box_row.addLayout(text_column, 1)
        box_row.addWidget(self.advanced_button, 0, Qt.AlignmentFlag.AlignTop)

        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(24, 18, 24, 12)
        column.setSpacing(10)
        column.addWidget(title)
        column.addWidget(intro)
        column.addWidget(self.data_label)
        column.addSpacing(6)
        column.addWidget(self.choice)
        column.addSpacing(8)
        column.addWidget(self.transformer)
        column.addSpacing(8)
        column.addWidget(self.few_shot)
        column.addSpacing(4)
        column.addWidget(self.estimate_label)
        column.addSpacing(4)
        column.addWidget(box)
        column.addStretch(1)
        self.scroll = ScrollArea(content)

        self.save_button = QPushButton("Save study as…", objectName="saveStudyButton", toolTip=(
            "Save the data settings, the ticked models and every setting as a study file, "
            "to run it again later or from the command line."), clicked=lambda: self.saveRequested.emit())
        self.reason_label = QLabel("", objectName="runReason")
        self.reason_label.setStyleSheet(theme.text_style(theme.REASON))
        self.reason_label.setWordWrap(True)
        self.reason_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.run_button = QPushButton("Run models", objectName="runButton")
        self.run_button.setStyleSheet(theme.RUN_BUTTON_STYLE)
        self.run_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.run_button.clicked.connect(self._run_clicked)
        self.where_line = WhereToRunLine()  # "Runs on: … Change…"; the same choice as on the Run step
        self.where_line.bind(self.session.where)
        bar = QFrame(objectName="modelsActionBar")
        bar.setStyleSheet(theme.top_rule_style("modelsActionBar"))
        bar_row = QHBoxLayout(bar)
        bar_row.setContentsMargins(24, 10, 24, 12)
        bar_row.addWidget(self.save_button)
        bar_row.addWidget(self.reason_label, 1)
        bar_row.addSpacing(12)
        bar_row.addWidget(self.where_line)
        bar_row.addSpacing(8)
        bar_row.addWidget(self.run_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.where_line.panel)
        layout.addWidget(bar)
        self._refresh()
        session = self.session
        session.dataChanged.connect(lambda: self.set_data(
            session.data_spec, session.report, session.frame, session.test_count))
        session.specWanted.connect(self._take_over)
        session.codebookChanged.connect(self._codebook_changed)
        self._codebook_changed()
        session.transformerGridWanted.connect(self._extend_transformer_grid)
        session.runStateChanged.connect(lambda state: state == "running" and self.cancel_jobs())
        self.runRequested.connect(session.run)
        self.statusMessage.connect(session.say)

    def _take_over(self, spec: ExperimentSpec) -> None:
        """An opened study's models and settings (what could not be taken over goes back in words)."""
        self.load_spec(spec)
        self.session.spec_notes = self.load_notes

    def _codebook_changed(self) -> None:
        """The Coding step's definitions fill the categories' descriptions not written on this step."""
        categories = self.session.codebook.categories
        self.few_shot.set_codebook({category.name: category.definition for category in categories},
                                   {category.name: list(category.examples) for category in categories})

    def _extend_transformer_grid(self, grid: dict) -> None:
        self.use_transformer_grid(grid)
        self.session.go_to(MODELS_STEP)
        rates = ", ".join(f"{value:g}" for value in grid.get("learning_rate", []))
        epochs = ", ".join(str(value) for value in grid.get("epochs", []))
        self.statusMessage.emit(
            f"The Transformer now tries learning rates {rates} and {epochs} epochs; run the study again.")

    # -- data ----------------------------------------------------------------------------------
    def set_data(self, data_spec: DataSpec | None, report: HealthReport | None,
                 frame: pd.DataFrame | None = None, test_count: int | None = None) -> None:
        """The Data step's current choice; ``frame`` (the loaded table) is only used to count the
        texts of a split column, ``test_count`` is the coded texts of a separate test file."""
        self._data = data_spec
        self._report = report
        self._split = split_column_sizes(frame, data_spec.mapping) if data_spec is not None else None
        if data_spec is not None and data_spec.test_source and report is not None:
            self._split = (report.n_coded, test_count or 0)
        self.few_shot.set_categories([category.label for category in report.categories] if report is not None else [])
        self._refresh()

    def not_ready_reason(self) -> str:
        """Why the data cannot be used yet ("" when it can)."""
        return not_ready_reason(self._data, self._report)

    def data_ready(self) -> bool:
        return not self.not_ready_reason()

    def checked_models(self) -> list[Pair]:
        """The ticked models: the grid's pairs, the Transformer when it is ticked, then the models that
        need few or no coded texts."""
        return (self.choice.checked() + ([TRANSFORMER_PAIR] if self.transformer.is_checked() else [])
                + self.few_shot.checked())

    def cancel_jobs(self) -> None:
        """Stop the check for a GPU and the speed measurement (the window is closing, or a run starts)."""
        self.transformer.cancel_jobs()
        self.few_shot.cancel_jobs()
        self._measure_slot.cancel()

    def is_measuring(self) -> bool:
        return self._measure_slot.is_busy()

    def _measure_missing(self) -> None:
        """Measure, in the background, the speeds the estimates still guess (once per set of models)."""
        if not self.measure_in_background or self._measure_slot.is_busy():
            return
        from guiapp.core.experiment.speed.speed_probe import measure_study, missing_keys
        from guiapp.workers import Worker

        spec = self.build_spec()
        try:
            table = self.session.study_table_with_codings()  # the texts coded in TextLab count too
        except UserError:
            table = self.session.frame
        if spec is None or table is None:
            return
        # zero-shot and SetFit models keep their built-in figures (the probe fits and fine-tunes the others)
        spec = dataclasses.replace(spec, models=[model for model in spec.models
                                                 if (model.representation, model.classifier) not in FEW_SHOT_PAIRS])
        if not spec.models:
            return
        missing = frozenset(missing_keys(spec.models))
        if not missing or missing == self._measured_for:
            return
        self._measured_for = missing
        worker = Worker(measure_study, spec, table=table, name="measure this computer's speed")
        worker.signals.finished.connect(lambda _found: self._update_estimates())
        worker.signals.failed.connect(lambda _error: None)  # the estimate keeps its built-in figures
        self._measure_slot.start(worker)
        self.estimate_label.setText(self.estimate_label.text() + "  Measuring this computer's speed on a few "
                                    "of your texts to make the estimate more precise…")

    def _sizes(self) -> tuple[int, int, int] | None:
        """(training texts, test texts, categories), or None before the data is checked."""
        report = self._report
        if report is None or self._data is None or not self._data.mapping.category_column or report.n_coded == 0:
            return None
        n_train, n_test = self._split or holdout_sizes(self.settings.evaluation.test_share, report.n_coded)
        return n_train, n_test, len(report.categories)

    def _training_size(self, n_train: int) -> int:
        """Training texts after oversampling (grows the smaller categories)."""
        evaluation = self.settings.evaluation
        report = self._report
        if evaluation.oversampling != "random" or report is None or not report.categories or report.n_coded == 0:
            return n_train
        return oversampled_size([c.count for c in report.categories], report.n_coded, n_train,
                                evaluation.oversampling_ratio)

    # -- spec ------------------------------------------------------------------------------------
    def model_specs(self) -> list[ModelSpec]:
        return [self._model_spec(pair) for pair in self.checked_models()]

    def transformer_spec(self) -> ModelSpec:
        """The Transformer as the section and the Advanced settings describe it."""
        return ModelSpec(
            representation=TRANSFORMER,
            classifier=FINE_TUNE,
            representation_options={"model": self.transformer.model(), **self.settings.options_for(TRANSFORMER)},
            grid=self.settings.grid_for(FINE_TUNE),
        )

    def setfit_spec(self) -> ModelSpec:
        """SetFit as its card and the Advanced settings describe it (the options the dialog does not
        edit, such as the model, as an opened study wrote them)."""
        card = self.few_shot.model_spec(SETFIT_PAIR)
        kept = {key: value for key, value in card.representation_options.items() if key not in advanced_setfit.OPTION_NAMES}
        return dataclasses.replace(card, representation_options={**kept, **self.settings.options_for(SETFIT)},
                                   grid=self.settings.grid_for(SETFIT))

    def _model_spec(self, pair: Pair) -> ModelSpec:
        if pair == TRANSFORMER_PAIR:
            return self.transformer_spec()
        if pair == SETFIT_PAIR:
            return self.setfit_spec()
        if pair in FEW_SHOT_PAIRS:
            return self.few_shot.model_spec(pair)
        representation, classifier = pair
        return ModelSpec(
            representation=representation,
            classifier=classifier,
            representation_options=self.settings.options_for(representation),
            grid=self.settings.grid_for(classifier),
        )

    def build_spec(self) -> ExperimentSpec | None:
        """The whole study as it is set up now; None before a table is open."""
        if self._data is None:
            return None
        return ExperimentSpec(
            data=copy.deepcopy(self._data),
            name=self.name or Path(self._data.source).name.split(".")[0],
            seed=self.settings.seed,
            evaluation=copy.deepcopy(self.settings.evaluation),
            models=self.model_specs(),
        )

    def load_spec(self, spec: ExperimentSpec) -> None:
        """Tick the spec's models and take over its evaluation, seed, options and grids.

        The data part stays with the Data step. A representation's options (a classifier's grid)
        are taken from the first model that uses it.
        """
        from guiapp.core.features.registry import default_options

        options: dict[str, dict] = {}
        grids: dict[str, dict] = {}
        pairs: list[Pair] = []
        skipped = 0
        differing: set[str] = set()
        available = set(self.choice.available())
        transformers = [model for model in spec.models if (model.representation, model.classifier) == TRANSFORMER_PAIR]
        if transformers:
            first = transformers[0]
            model_name = str(first.representation_options.get("model") or DEFAULT_MODEL)
            options[TRANSFORMER] = {
                key: value for key, value in first.representation_options.items()
                if key != "model" and DEFAULT_OPTIONS.get(key, object()) != value
            }
            grids[FINE_TUNE] = transformer_changed_grid(first.grid, model_name)
            if len(transformers) > 1:
                differing.add(f"{len(transformers)} fine-tuned Transformers: only the first is shown")
        setfit = next((model for model in spec.models if (model.representation, model.classifier) == SETFIT_PAIR), None)
        if setfit is not None:  # a second SetFit is named by the few-shot group's notes
            options[SETFIT] = advanced_setfit.changed_options(setfit.representation_options)
            grids[SETFIT] = advanced_setfit.changed_grid(setfit.grid)
        for model in spec.models:
            pair = (model.representation, model.classifier)
            if pair == TRANSFORMER_PAIR or pair in FEW_SHOT_PAIRS:
                continue
            if pair not in available:
                skipped += 1
                continue
            pairs.append(pair)
            defaults = default_options(model.representation)
            changed = {
                key: value for key, value in model.representation_options.items() if defaults.get(key, object()) != value
            }
            if model.representation not in options:
                options[model.representation] = changed
            elif options[model.representation] != changed:
                differing.add(REPRESENTATION_LABELS.get(model.representation, model.representation))
            grid = changed_grid(model.classifier, model.grid)
            if model.classifier not in grids:
                grids[model.classifier] = grid
            elif grids[model.classifier] != grid:
                differing.add(f"{CLASSIFIERS[model.classifier].label} grid")
        self.settings = StudySettings(
            evaluation=copy.deepcopy(spec.evaluation),
            seed=spec.seed,
            options={key: value for key, value in options.items() if value},
            grids={key: value for key, value in grids.items() if value},
        )
        self.name = spec.name
        if transformers:
            self.transformer.set_model(model_name)
        self.transformer.set_checked(bool(transformers))
        notes = self.few_shot.load([model for model in spec.models
                                    if (model.representation, model.classifier) in FEW_SHOT_PAIRS])
        self.choice.set_checked(pairs)  # refreshes the page
        if skipped:
            notes.append(f"{skipped} model(s) in the study cannot be shown on this step and were left out.")
        if differing:
            notes.append(
                "The study gives different settings to models of the same kind ("
                + ", ".join(sorted(differing))
                + "); this step keeps one set per kind, the first model's. Run the study file with "
                "'textlab run' to keep each model's own settings."
            )
        self.load_notes = " ".join(notes)
        if notes:
            self.statusMessage.emit(self.load_notes)

    # -- advanced ----------------------------------------------------------------------------------
    def open_advanced(self) -> AdvancedSettingsDialog:
        """Open the Advanced dialog (window-modal); OK applies its settings."""
        split = self._data.mapping.split_column if self._data is not None else None
        dialog = AdvancedSettingsDialog(self.settings, split, self, transformer_model=self.transformer.model(),
                                        on_gpu=self.transformer.on_gpu())
        dialog.accepted.connect(lambda d=dialog: self.apply_settings(d.settings()))
        dialog.finished.connect(dialog.deleteLater)
        self.advanced_dialog = dialog
        dialog.open()
        return dialog

    def use_transformer_grid(self, grid: dict[str, list]) -> None:
        """Try ``grid`` (learning rates × epochs) for the fine-tuned Transformer from now on."""
        settings = self.settings.copy()
        changed = transformer_changed_grid(grid, self.transformer.model())
        if changed:
            settings.grids[FINE_TUNE] = changed
        else:
            settings.grids.pop(FINE_TUNE, None)
        self.settings = settings
        self._refresh()

    def apply_settings(self, settings: StudySettings) -> None:
        self.settings = settings
        self._refresh()
        self.statusMessage.emit("The advanced settings were changed.")

    # -- showing ---------------------------------------------------------------------------------------
    def _refresh(self) -> None:
        self._update_data_label()
        self._update_estimates()
        self.evaluation_label.set_plain_text(self.evaluation_text())
        changes = self.changes_text()
        self.changes_label.setText(changes)
        self.changes_label.setVisible(bool(changes))
        count = len(self.checked_models())
        self.run_button.setText(f"Run {count} model{'s' if count != 1 else ''}" if count else "Run models")
        reason = (self.not_ready_reason() or ("" if count else "Tick at least one model above.")
                  or self.few_shot.problem())
        self.run_button.setEnabled(not reason)
        self.run_button.setToolTip(reason or "Tune and test the ticked models on your coded texts.")
        self.reason_label.setText(reason)
        self.save_button.setEnabled(self._data is not None)
        self.session.set_spec(self.build_spec())

    def _update_data_label(self) -> None:
        sizes = self._sizes()
        if sizes is None:
            self.data_label.setText(self.not_ready_reason() or "")
            return
        n_train, n_test, n_categories = sizes
        if self._data is not None and self._data.test_source:
            self.data_label.setText(
                f"{n_train:,} coded texts in {n_categories} categories to train and tune the models; "
                f"{n_test:,} coded test texts from the file {Path(self._data.test_source).name} for the final test."
                + self._fixes_line()
            )
            return
        where = "in your split column" if self._split is not None else "at random"
        self.data_label.setText(
            f"{n_train + n_test:,} coded texts in {n_categories} categories: {n_train:,} to train and tune "
            f"the models, {n_test:,} kept aside {where} for the final test." + self._fixes_line()
        )

    def _fixes_line(self) -> str:
        """"\nCategory fixes applied: …" for the data line ("" without fixes)."""
        fixes = self._data.category_fixes.summary() if self._data is not None else ""
        return f"\nCategory fixes applied: {fixes} (recorded in the study; your spreadsheet is unchanged)." if fixes else ""

    def _update_estimates(self) -> None:
        sizes = self._sizes()
        checked = self.checked_models()
        evaluation = self.settings.evaluation
        self.transformer.set_protocol(
            str(self.settings.options_for(TRANSFORMER).get("device", "auto")),
            evaluation.transformer_tuning, evaluation.folds, evaluation.validation_share,
        )
        if sizes is None:
            self.transformer.set_estimate("")
            for pair in self.choice.available():
                self.choice.set_estimate(pair, "")
            for pair in self.few_shot.available():
                self.few_shot.set_estimate(pair, "")
            self.estimate_label.setText(
                f"{len(checked)} model{'s' if len(checked) != 1 else ''} ticked. The expected time "
                "appears once your data is checked on the Data step."
            )
            return
        n_train, n_test, n_categories = sizes
        fitted = self._training_size(n_train)
        folds = self.settings.evaluation.folds
        total = 0.0
        for pair in self.choice.available():
            seconds = estimate_seconds(self._model_spec(pair), fitted, n_test, n_categories, folds)
            self.choice.set_estimate(pair, describe_duration(seconds), f"Expected time: {describe_duration(seconds)}.")
            if pair in checked:
                total += seconds
        seconds = self._transformer_estimate(fitted, n_test, n_categories)
        if seconds is not None and TRANSFORMER_PAIR in checked:
            total += seconds
        for pair in self.few_shot.available():
            seconds = self._few_shot_estimate(pair, fitted, n_test, n_categories)
            if seconds is not None and pair in checked:
                total += seconds
        total = self._whole_run_seconds(fitted, n_test, n_categories, total)
        if not checked:
            self.estimate_label.setText("No model is ticked yet.")
        elif len(checked) == 1:
            self.estimate_label.setText(f"1 model: {describe_duration(total)} on this computer.")
        else:
            self.estimate_label.setText(f"All {len(checked)} models: {describe_duration(total)} on this computer.")
        if checked:
            self._measure_missing()

    def _whole_run_seconds(self, n_train: int, n_test: int, n_categories: int, models_alone: float) -> float:
        """The whole run as the Run step will announce it — the models, the refits the combined models
        need, a Transformer's seeds, loading — from the same plan; the models' own sum when it cannot
        be planned."""
        from guiapp.core.experiment.run.run_size import estimate_run

        spec = self.build_spec()
        if spec is None or not spec.models:
            return models_alone
        tokens = self._report.tokens if self._report is not None else None
        try:
            planned = estimate_run(spec, n_train, n_test, n_categories, on_gpu=self.transformer.on_gpu(),
                                   mean_tokens=tokens.mean if tokens is not None else None)
        except (UserError, ValueError, OSError):
            return models_alone
        return planned.seconds if planned.seconds is not None else models_alone

    def _few_shot_estimate(self, pair: Pair, n_train: int, n_test: int, n_categories: int) -> float | None:
        """Show a zero-shot or SetFit model's expected time; returns it (None when it cannot be estimated)."""
        evaluation = self.settings.evaluation
        tokens = self._report.tokens if self._report is not None else None
        spec = self._model_spec(pair)
        on_gpu = self.transformer.on_gpu()
        if spec.representation == "setfit":  # not when set to the processor
            on_gpu = setfit_on_gpu(spec, on_gpu)
        try:
            seconds = estimate_seconds(
                spec, n_train, n_test, n_categories, evaluation.folds, on_gpu=on_gpu,
                tuning=evaluation.transformer_tuning, validation_share=evaluation.validation_share,
                mean_tokens=tokens.mean if tokens is not None else None,
            )
        except (UserError, ValueError, OSError):
            self.few_shot.set_estimate(pair, "", "")
            return None
        where = "with the GPU" if on_gpu else "on the processor"
        self.few_shot.set_estimate(pair, f"{describe_duration(seconds)} on this computer",
                                   f"Expected time {where}. {ESTIMATE_TIP}")
        return seconds

    def _transformer_estimate(self, n_train: int, n_test: int, n_categories: int) -> float | None:
        """Show the Transformer's expected time; returns it (None when it cannot be estimated)."""
        evaluation = self.settings.evaluation
        on_gpu = self.transformer.on_gpu()
        tokens = self._report.tokens if self._report is not None else None
        spec = self.transformer_spec()
        try:
            seconds = estimate_seconds(
                spec, n_train, n_test, n_categories, evaluation.folds, on_gpu=on_gpu,
                tuning=evaluation.transformer_tuning, validation_share=evaluation.validation_share,
                mean_tokens=tokens.mean if tokens is not None else None,
            )
            n_settings = len(expand_transformer_grid(spec.grid, self.transformer.model()))
        except (UserError, ValueError, OSError):
            self.transformer.set_estimate("", "")
            return None
        splits = transformer_tuning_splits(evaluation.transformer_tuning, on_gpu, evaluation.folds)
        per = f"{splits} folds" if splits > 1 else "1 validation split"
        where = "with the GPU" if on_gpu else "on the processor"
        checking = " (assuming no GPU until the check has finished)" if self.transformer.is_checking() else ""
        tip = (
            f"Expected time {where}{checking}: {n_settings} setting{'s' if n_settings != 1 else ''} × {per} = "
            f"{n_settings * splits} fine-tunings, then one final fine-tuning on all {n_train:,} training texts. "
            f"{ESTIMATE_TIP}"
        )
        self.transformer.set_estimate(f"{describe_duration(seconds)} on this computer", tip)
        return seconds

    def evaluation_text(self) -> str:
        """How the models are tested, in one plain sentence."""
        evaluation = self.settings.evaluation
        split = self._data.mapping.split_column if self._data is not None else None
        if split:
            first = f"The texts marked as test in your split column “{split}” are kept aside for the final test"
        else:
            first = f"{evaluation.test_share * 100:g} % of the coded texts are kept aside for the final test"
        tuning = f"settings are tuned by {evaluation.folds}-fold cross-validation on the rest"
        if evaluation.oversampling == "random":
            ratio = evaluation.oversampling_ratio
            share = "a quarter" if math.isclose(ratio, 0.25) else f"{ratio * 100:g} %"
            imbalance = (f"smaller categories are oversampled at random to {share} of the largest one "
                         "(training texts only)")
        else:
            imbalance = "smaller categories are not oversampled"
        text = f"{first}; {tuning}; {imbalance}."
        checked = len(self.checked_models())
        if evaluation.combine and checked >= 2:
            text += (" Two combined models of the ticked models (a weighted vote and a stacking) are built too, "
                     "and tested like the others.")
        if self.transformer.is_checked():
            text += " " + self.transformer_tuning_text()
        if any(pair[0] == "zero_shot" for pair in self.few_shot.checked()):
            text += (" The zero-shot models learn nothing from the coded texts: they are scored on the same folds "
                     "and test texts only, so they can be compared with the others.")
        return text

    def transformer_tuning_text(self) -> str:
        """How the Transformer's setting is chosen, in one sentence."""
        evaluation = self.settings.evaluation
        split = f"one validation split ({evaluation.validation_share * 100:g} % of the training texts)"
        folds = f"{evaluation.folds}-fold cross-validation"
        if evaluation.transformer_tuning == "cross-validation":
            return f"The Transformer's settings are chosen by {folds} as well."
        if evaluation.transformer_tuning == "validation split":
            return f"The Transformer's settings are chosen on {split}."
        if self.transformer.device() is None:
            return f"The Transformer's settings are chosen by {folds} with a GPU, else on {split}."
        if self.transformer.on_gpu():
            return f"The Transformer's settings are chosen by {folds} as well (it trains on a GPU)."
        return f"The Transformer's settings are chosen on {split}, as it trains without a GPU."

    def changes_text(self) -> str:
        """The settings that differ from the paper's defaults, named as on screen."""
        parts = []
        if self.settings.seed != StudySettings().seed:
            parts.append(f"random seed {self.settings.seed}")
        default_evaluation = EvaluationSpec()
        if self.settings.evaluation.bootstrap_samples != default_evaluation.bootstrap_samples:
            parts.append(f"{self.settings.evaluation.bootstrap_samples} resamples for the interval")
        if not self.settings.evaluation.combine:
            parts.append("no combined models")
        if self.settings.evaluation.tune_thresholds:
            parts.append("each category's threshold tuned on the training texts")
        if self.settings.evaluation.transformer_choice != default_evaluation.transformer_choice:
            parts.append("the Transformer's top-scoring setting (the paper's rule)")
        if self.settings.evaluation.transformer_seeds != default_evaluation.transformer_seeds:
            parts.append(f"the Transformer fine-tuned with {self.settings.evaluation.transformer_seeds} seeds")
        for representation, options in self.settings.options.items():
            if representation == TRANSFORMER:
                names = ", ".join(TRANSFORMER_OPTION_NAMES.get(name, name) for name in options)
            elif representation == SETFIT:
                names = ", ".join(advanced_setfit.OPTION_NAMES.get(name, name) for name in options)
            else:
                names = ", ".join(OPTION_LABELS.get(name, name).lower() for name in options)
            parts.append(f"{REPRESENTATION_LABELS[representation]}: {names}")
        for classifier, grid in self.settings.grids.items():
            if classifier == FINE_TUNE:
                names = ", ".join({"learning_rate": "learning rates"}.get(name, name) for name in grid)
                parts.append(f"Transformer settings to try: {names}")
                continue
            if classifier == SETFIT:
                names = ", ".join(advanced_setfit.GRID_LABELS.get(name, name).lower() for name in grid)
                parts.append(f"SetFit settings to try: {names}")
                continue
            info = CLASSIFIERS[classifier]
            names = ", ".join(info.parameters[name].label for name in grid)
            parts.append(f"{info.label} settings to try: {names}")
        return ("Changed from the paper's defaults: " + "; ".join(parts) + ".") if parts else ""

    def _run_clicked(self) -> None:
        spec = self.build_spec()
        if spec is None or not spec.models or not self.data_ready():
            return
        problem = self.where_line.choice.problem()
        if problem:  # a scheduler address that cannot be right: say so here, where it is typed
            self.where_line.toggle_panel(True)
            self.statusMessage.emit(problem)
            return
        self.runRequested.emit(spec)

