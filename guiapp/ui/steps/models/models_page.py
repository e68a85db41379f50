"""Step 2, Models: tick the models to compare, see how long they take, and start the run.

The page only builds an :class:`~guiapp.core.study.spec.ExperimentSpec` (the data part comes from the
Data step); the Run step runs it. Top to bottom: the representation × classifier grid with the
expected time of each model, the fine-tuned Transformer (``transformer_choice``), the models that
need few or no coded texts (``few_shot_choice``: zero-shot and SetFit, with the categories'
descriptions), the total, how the models are tested (with "Advanced…"), and the Run button, which
says why it is disabled when it is. The expected times are worked out in ``models_estimates``, the
sentences about the study in ``models_sentences``, and an opened study is taken over by ``opened_study``.
"""

from __future__ import annotations

import copy
import dataclasses
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

from guiapp.core.health.findings import HealthReport
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.split_sizes import split_column_sizes
from guiapp.ui import theme
from guiapp.ui.steps.models import advanced_setfit
from guiapp.ui.steps.models.advanced_settings import (
    FINE_TUNE,
    SETFIT,
    TRANSFORMER,
    TRANSFORMER_PAIR,
    AdvancedSettingsDialog,
    StudySettings,
)
from guiapp.ui.steps.models.codebook_llm_choice import (
    CODEBOOK_PAIRS,
    CodebookLlmChoice,
    codebook_models,
    study_descriptions,
)
from guiapp.ui.steps.models.codebook_prompt_preview import first_coded_text
from guiapp.ui.steps.models.few_shot_choice import FEW_SHOT_PAIRS, SETFIT_PAIR, FewShotChoice
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.steps.models.model_choice import ModelChoiceGrid, Pair
from guiapp.ui.steps.models.models_estimates import ESTIMATE_TIP, ModelEstimates
from guiapp.ui.steps.models.models_sentences import (
    changed_settings_sentence,
    evaluation_sentence,
    transformer_tuning_sentence,
)
from guiapp.ui.steps.models.opened_study import take_over, transformer_changed_grid
from guiapp.ui.common.scroll_area import ScrollArea
from guiapp.ui.steps.models.transformer_choice import TransformerChoice
from guiapp.ui.session.data_checks import not_ready_reason
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.step_order import MODELS_STEP
from guiapp.ui.steps.models.where_to_run_line import WhereToRunLine

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

GLOSSARY_TERMS = ["cross-validation", "fold", "oversampling", "oversampled", "validation split", "Transformer"]


class ModelsPage(ModelEstimates, QWidget):
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
        self.data_label = muted_note("", "modelsDataSummary")

        self.choice = ModelChoiceGrid()
        self.choice.changed.connect(self._refresh)
        self.transformer = TransformerChoice()
        self.transformer.changed.connect(self._refresh)
        self.transformer.deviceChanged.connect(self._refresh)
        self.few_shot = FewShotChoice()
        self.few_shot.changed.connect(self._refresh)
        self.codebook = CodebookLlmChoice(self.few_shot)  # in the "Few or no coded texts" group
        self.codebook.sample = self._sample_text
        self.codebook.multi_label = lambda: self._data is not None and self._data.mapping.multi_label
        self.codebook.seed = lambda: self.settings.seed
        self.few_shot.add_card(self.codebook)
        self.codebook.changed.connect(self._refresh)
        self.estimate_label = QLabel("", objectName="estimateSummary")
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setStyleSheet(theme.heading_style(14))
        self.estimate_label.setToolTip(ESTIMATE_TIP)

        box = QFrame(objectName="evaluationBox")
        box.setStyleSheet(theme.card_style("evaluationBox", background=theme.PAGE))
        heading = QLabel("<b>How the models are tested</b>")
        self.evaluation_label = GlossaryLabel("", terms=GLOSSARY_TERMS)
        self.evaluation_label.setObjectName("evaluationSummary")
        self.changes_label = muted_note("", "changedSettings")
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
        self.codebook.show_codebook()
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
                + self.few_shot.checked() + self.codebook.checked())

    def cancel_jobs(self) -> None:
        """Stop the check for a GPU and the speed measurement (the window is closing, or a run starts)."""
        self.transformer.cancel_jobs()
        self.few_shot.cancel_jobs()
        self.codebook.cancel_jobs()
        self._measure_slot.cancel()

    def is_measuring(self) -> bool:
        return self._measure_slot.is_busy()

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
        if pair in CODEBOOK_PAIRS:
            return self.codebook.model_spec()
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
        taken = take_over(spec, set(self.choice.available()))
        self.settings = taken.settings
        self.name = spec.name
        if taken.transformer_model is not None:
            self.transformer.set_model(taken.transformer_model)
        self.transformer.set_checked(taken.transformer_model is not None)
        notes = self.few_shot.load([model for model in spec.models
                                    if (model.representation, model.classifier) in FEW_SHOT_PAIRS])
        written = study_descriptions(spec.models)  # the codebook model's sentences, where no zero-shot model gives any
        zero_shot = next((model for model in spec.models if model.representation == "zero_shot"), None)
        if written is not None and zero_shot is None:
            self.few_shot.set_descriptions(written)
        elif written is not None and written != {str(key): str(value) for key, value in
                                                 (zero_shot.representation_options.get("descriptions") or {}).items()}:
            notes.append("The language model with your codebook and the zero-shot models describe the categories "
                         "differently; this step keeps the zero-shot models' descriptions for all of them.")
        notes += self.codebook.load(codebook_models(spec.models))
        self.choice.set_checked(taken.pairs)  # refreshes the page
        if taken.skipped:
            notes.append(f"{taken.skipped} model(s) in the study cannot be shown on this step and were left out.")
        if taken.differing:
            notes.append(
                "The study gives different settings to models of the same kind ("
                + ", ".join(sorted(taken.differing))
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
                  or self.few_shot.problem() or self.codebook.problem())
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

    def evaluation_text(self) -> str:
        """How the models are tested, in one plain sentence."""
        return evaluation_sentence(
            self.settings.evaluation, self._data.mapping.split_column if self._data is not None else None,
            len(self.checked_models()), self.transformer if self.transformer.is_checked() else None,
            any(pair[0] == "zero_shot" for pair in self.few_shot.checked()), self.codebook.is_checked())

    def transformer_tuning_text(self) -> str:
        """How the Transformer's setting is chosen, in one sentence."""
        return transformer_tuning_sentence(self.settings.evaluation, self.transformer)

    def changes_text(self) -> str:
        """The settings that differ from the paper's defaults, named as on screen."""
        return changed_settings_sentence(self.settings)

    def _sample_text(self) -> tuple[str, str]:
        """A text of the study for the prompt preview, and how to name it."""
        if self._data is None:
            return first_coded_text(None, None)
        return first_coded_text(self.session.frame, self._data.mapping)

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

