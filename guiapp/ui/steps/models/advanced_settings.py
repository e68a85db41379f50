"""The Advanced dialog of the Models step, and the settings it edits.

:class:`StudySettings` is everything about a study besides the data and the ticked models: the
evaluation protocol, the seed, the options of each representation and the grid of each
classifier. :class:`AdvancedSettingsDialog` edits a copy in five tabs — test and tuning,
preparing the texts (``advanced_preprocessing``), settings to try (``advanced_grids``), the
fine-tuned Transformer (``advanced_transformer``) and SetFit (``advanced_setfit``) — and keeps OK
disabled while any value is wrong; every problem is explained in red next to its field.

The Transformer's options are kept under ``options["transformer"]`` and its grid under
``grids["fine_tune"]``, SetFit's under ``options["setfit"]`` and ``grids["setfit"]``, like those of
the other representations and classifiers.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.models.conventional import normalise_grid
from guiapp.core.models.few_shot_options import is_few_shot
from guiapp.core.models.llm.codebook_options import is_codebook_llm
from guiapp.core.models.transformers.options import DEFAULT_MODEL
from guiapp.core.study.sections import REPRESENTATION_LABELS, EvaluationSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.ui import theme
from guiapp.ui.steps.models.advanced_grids import GridsTab
from guiapp.ui.steps.models.advanced_preprocessing import PreprocessingTab
from guiapp.ui.steps.models.advanced_setfit import SetFitTab
from guiapp.ui.steps.models.advanced_transformer import TransformerTab
from guiapp.ui.common.scroll_area import ScrollArea
from guiapp.ui.common.muted_note import muted_note

DEFAULT_SEED = ExperimentSpec().seed
TAB_TITLES = ("Test and tuning", "Preparing the texts", "Settings to try", "Transformer", "SetFit")
TRANSFORMER = "transformer"  # key of the Transformer's options in StudySettings.options
FINE_TUNE = "fine_tune"  # key of its grid in StudySettings.grids
SETFIT = "setfit"  # key of SetFit's options in StudySettings.options, and of its grid in StudySettings.grids
TRANSFORMER_PAIR = (TRANSFORMER, FINE_TUNE)  # the fine-tuned Transformer as (representation, classifier)


@dataclass
class StudySettings:
    """Evaluation, seed, representation options and classifier grids of a study.

    ``options`` and ``grids`` hold only what differs from the defaults (left out = default),
    which is also how a spec stores them.
    """

    evaluation: EvaluationSpec = field(default_factory=EvaluationSpec)
    seed: int = DEFAULT_SEED
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    grids: dict[str, dict[str, list[Any]]] = field(default_factory=dict)

    def copy(self) -> StudySettings:
        return copy.deepcopy(self)

    def options_for(self, representation: str) -> dict[str, Any]:
        return dict(self.options.get(representation, {}))

    def grid_for(self, classifier: str) -> dict[str, list[Any]]:
        return {name: list(values) for name, values in self.grids.get(classifier, {}).items()}


def changed_grid(classifier: str, grid: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The parameters of ``grid`` whose values differ from the paper's grid."""
    full = normalise_grid(classifier, grid)
    default = normalise_grid(classifier, None)
    return {name: values for name, values in full.items() if values != default[name]}


class TestTuningTab(QWidget):
    """Test share, folds, oversampling, bootstrap resamples and the seed."""

    def __init__(self, split_column: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.test_share = QSpinBox(objectName="testShare")
        self.test_share.setRange(5, 90)
        self.test_share.setSuffix(" % of the coded texts")
        self.folds = QSpinBox(objectName="folds")
        self.folds.setRange(2, 20)
        self.folds.setSuffix(" folds")
        self.repeats = QSpinBox(objectName="cvRepeats")
        self.repeats.setRange(1, 10)
        self.repeats.setSuffix(" × (repeated cross-validation)")
        self.repeats.setSpecialValueText("once (as in the paper)")
        self.oversampling = QComboBox(objectName="oversampling")
        self.oversampling.addItem("Off: the categories keep their sizes", "off")
        self.oversampling.addItem("Random oversampling of the smaller categories", "random")
        self.ratio = QSpinBox(objectName="oversamplingRatio")
        self.ratio.setRange(1, 100)
        self.ratio.setSuffix(" % of the largest category")
        self.bootstrap = QSpinBox(objectName="bootstrap")
        self.bootstrap.setRange(0, 100_000)
        self.bootstrap.setSingleStep(500)
        self.bootstrap.setSuffix(" resamples")
        self.seed = QSpinBox(objectName="seed")
        self.seed.setRange(0, 2_147_483_647)
        self.combine = QCheckBox("Also build combined models of the ticked models", objectName="combine")
        self.tune_thresholds = QCheckBox("Tune each category's threshold on the training texts",
                                         objectName="tuneThresholds")
        self.oversampling.currentIndexChanged.connect(self._oversampling_changed)

        grid = QGridLayout(self)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(14)
        grid.setColumnStretch(2, 1)
        share_help = (
            f"Your split column “{split_column}” decides which texts are for the final test, so "
            "this share is not used." if split_column else
            "These texts are set aside at random (each category keeps its share) and used only "
            "once, for the final test. The paper used about 30 %."
        )
        rows = (
            ("Kept aside for the final test:", self.test_share, share_help),
            ("Cross-validation:", self.folds, (
                "The other texts are split into this many equal parts (folds) to pick each model's "
                "best settings: train on all parts but one, check on the one left out, in turn. "
                "The paper used 5.")),
            ("Draw the folds:", self.repeats, (
                "Repeated cross-validation: the folds are drawn again this many times and every setting is "
                "tried on each, so the scores per fold and the choice depend less on one random split. "
                "Takes that many times longer to tune.")),
            ("Smaller categories:", self.oversampling, (
                "Random oversampling repeats texts of the smaller categories, only while training, "
                "so that rare categories are not ignored. The paper used it for unbalanced data.")),
            ("Grow each smaller category to:", self.ratio, (
                "How large a smaller category becomes, as a share of the largest one. The paper's "
                "choice: 25 % (a quarter).")),
            ("Confidence interval:", self.bootstrap, (
                "How often the test texts are resampled to give the 95 % interval around each "
                "model's score. 0 leaves the interval out.")),
            ("Combined models:", self.combine, (
                "A weighted vote and a stacking of the ticked models, learnt on the training texts and tested "
                "like every model; usually at least as good as the best single one. Costs a refit of each "
                "model inside the folds.")),
            ("Decision thresholds:", self.tune_thresholds, (
                "Only where a text can have several categories: a text gets a category when its probability "
                "reaches the category's threshold, 0.5 unless tuned. Tuning picks, for each category, the threshold "
                "with the best F1 on the training texts' held-out answers (never the test texts); it often helps "
                "rare categories.")),
            ("Random seed:", self.seed, (
                "The same number gives the same split, folds and oversampled texts every time. "
                "Note it down to reproduce a study exactly.")),
        )
        self.notes: dict[str, QLabel] = {}
        for row, (text, widget, help_text) in enumerate(rows):
            label = QLabel(text)
            label.setToolTip(help_text)
            label.setBuddy(widget)
            widget.setToolTip(help_text)
            widget.setMinimumWidth(250)
            note = muted_note(help_text, f"note_{widget.objectName()}")
            note.setMinimumWidth(260)
            self.notes[widget.objectName()] = note
            grid.addWidget(label, row, 0, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignRight)
            grid.addWidget(widget, row, 1, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(note, row, 2, Qt.AlignmentFlag.AlignTop)
        self.restore = QPushButton("Restore the defaults", objectName="evaluationRestore")
        self.restore.setToolTip("30 % for the test, 5 folds, no oversampling, 1000 resamples, combined models, the "
                                "standard seed.")
        self.restore.clicked.connect(lambda: self.set_values(EvaluationSpec(), DEFAULT_SEED))
        grid.addWidget(self.restore, len(rows), 1, Qt.AlignmentFlag.AlignLeft)
        grid.setRowStretch(len(rows) + 1, 1)
        self.test_share.setEnabled(split_column is None)

    def set_values(self, evaluation: EvaluationSpec, seed: int) -> None:
        self.test_share.setValue(round(evaluation.test_share * 100))
        self.folds.setValue(evaluation.folds)
        self.repeats.setValue(evaluation.cv_repeats)
        self.oversampling.setCurrentIndex(max(0, self.oversampling.findData(evaluation.oversampling)))
        self.ratio.setValue(round(evaluation.oversampling_ratio * 100))
        self.bootstrap.setValue(evaluation.bootstrap_samples)
        self.combine.setChecked(evaluation.combine)
        self.tune_thresholds.setChecked(evaluation.tune_thresholds)
        self.seed.setValue(seed)
        self._oversampling_changed()

    def evaluation(self) -> EvaluationSpec:
        return EvaluationSpec(
            test_share=self.test_share.value() / 100.0,
            folds=self.folds.value(),
            cv_repeats=self.repeats.value(),
            oversampling=self.oversampling.currentData(),
            oversampling_ratio=self.ratio.value() / 100.0,
            bootstrap_samples=self.bootstrap.value(),
            combine=self.combine.isChecked(),
            tune_thresholds=self.tune_thresholds.isChecked(),
        )

    def _oversampling_changed(self) -> None:
        self.ratio.setEnabled(self.oversampling.currentData() == "random")


class AdvancedSettingsDialog(QDialog):
    """Edits a copy of :class:`StudySettings`; read :meth:`settings` after ``exec()`` accepted."""

    def __init__(self, settings: StudySettings, split_column: str | None = None, parent: QWidget | None = None,
                 *, transformer_model: str = DEFAULT_MODEL, on_gpu: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle("Advanced settings")
        self.setObjectName("advancedDialog")
        self.setStyleSheet(
            "QGroupBox { font-weight: 600; font-size: 14px; margin-top: 14px; padding-top: 10px;"
            f" border: 1px solid {theme.BORDER}; border-radius: 6px; }}"
            " QGroupBox::title { subcontrol-origin: margin; left: 10px; padding: 0 4px; }"
            " QGroupBox * { font-weight: normal; font-size: 13px; }"
        )
        self.resize(860, 700)
        self.test_tab = TestTuningTab(split_column)
        # the zero-shot models, SetFit and the language model with your codebook prepare no texts: not here
        self.preprocessing_tab = PreprocessingTab([kind for kind in REPRESENTATION_LABELS if kind != TRANSFORMER
                                                   and not is_few_shot(kind) and not is_codebook_llm(kind)])
        self.grids_tab = GridsTab()
        self.transformer_tab = TransformerTab(transformer_model, on_gpu)
        self.setfit_tab = SetFitTab()
        self.tabs = QTabWidget(objectName="advancedTabs")
        tabs = (self.test_tab, self.preprocessing_tab, self.grids_tab, self.transformer_tab, self.setfit_tab)
        for tab, title in zip(tabs, TAB_TITLES, strict=True):
            self.tabs.addTab(ScrollArea(tab, sideways=False), title)
        self.tabs.setTabToolTip(0, "Which texts are kept for the final test, and how each model's settings are tuned.")
        self.tabs.setTabToolTip(1, "How the texts are turned into numbers: words, stemming, word vectors.")
        self.tabs.setTabToolTip(2, "The values of each learning method's settings that cross-validation tries.")
        self.tabs.setTabToolTip(3, "How the fine-tuned Transformer learns: learning rates, epochs, text length, "
                                   "and how its best setting is chosen.")
        self.tabs.setTabToolTip(4, "How SetFit learns from few coded texts: epochs, pairs per text, learning rates "
                                   "and the most pairs per epoch.")
        self.problem = QLabel("", objectName="advancedProblem")
        self.problem.setStyleSheet(theme.ERROR_STYLE)
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)

        self.test_tab.set_values(settings.evaluation, settings.seed)
        self.preprocessing_tab.set_options(settings.options)
        self.grids_tab.set_grids(settings.grids)
        self.grids_tab.set_folds(self.test_tab.folds.value())
        self.transformer_tab.set_values(settings.options_for(TRANSFORMER), settings.grid_for(FINE_TUNE),
                                        settings.evaluation)
        self.transformer_tab.set_folds(self.test_tab.folds.value())
        self.setfit_tab.set_values(settings.options_for(SETFIT), settings.grid_for(SETFIT))
        self.test_tab.folds.valueChanged.connect(self.grids_tab.set_folds)
        self.test_tab.folds.valueChanged.connect(self.transformer_tab.set_folds)
        self.preprocessing_tab.changed.connect(self._validate)
        self.grids_tab.changed.connect(self._validate)
        self.transformer_tab.changed.connect(self._validate)
        self.setfit_tab.changed.connect(self._validate)
        self._validate()

    @property
    def ok_button(self):
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def _validate(self) -> None:
        wrong = [title for valid, title in (
            (self.preprocessing_tab.is_valid(), TAB_TITLES[1]),
            (self.grids_tab.is_valid(), TAB_TITLES[2]),
            (self.transformer_tab.is_valid(), TAB_TITLES[3]),
            (self.setfit_tab.is_valid(), TAB_TITLES[4]),
        ) if not valid]
        self.ok_button.setEnabled(not wrong)
        if wrong:
            tabs = " and ".join(f"“{title}”" for title in wrong)
            self.problem.setText(f"Correct the values marked in red on {tabs} to save these settings.")
        self.problem.setVisible(bool(wrong))

    def settings(self) -> StudySettings:
        """The edited settings (only valid while OK is enabled)."""
        evaluation = self.transformer_tab.evaluation(self.test_tab.evaluation())
        options = {kind: options for kind, options in self.preprocessing_tab.options().items() if options}
        if transformer_options := self.transformer_tab.options():
            options[TRANSFORMER] = transformer_options
        grids = {
            classifier: changed
            for classifier, grid in self.grids_tab.grids().items()
            if (changed := changed_grid(classifier, grid))
        }
        if transformer_grid := self.transformer_tab.grid():
            grids[FINE_TUNE] = transformer_grid
        if setfit_options := self.setfit_tab.options():
            options[SETFIT] = setfit_options
        if setfit_grid := self.setfit_tab.grid():
            grids[SETFIT] = setfit_grid
        return StudySettings(evaluation=evaluation, seed=self.test_tab.seed.value(), options=options, grids=grids)
