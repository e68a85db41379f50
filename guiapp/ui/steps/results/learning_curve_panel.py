"""The learning-curve panel: "How many more texts should you code?"

A researcher picks the sizes (numbers of coded training texts), the number of random draws per
size and how settings are chosen, presses Start, and sees — while the window stays usable — the
progress with the time left, then the chart (every model's mean test macro-F1 with its min–max
band, or one model's categories), a table of the scores and a reading in plain words. The work
itself is ``core/experiment/learning_curves.run_learning_curve``, run by a background
:class:`~guiapp.workers.Worker`; this panel only builds its options and shows what it returns.

API: :meth:`LearningCurvePanel.set_study` (the study and the table it reads), :meth:`set_curve` /
:meth:`curve` (a finished curve), the signal ``curveReady(result)`` when a run finishes,
:meth:`save_files` (``learning-curve.json`` and ``.csv``), :meth:`cancel` and :meth:`is_busy`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from guiapp.core.experiment.curves.learning_curve_results import LearningCurveResult
from guiapp.core.experiment.curves.nested_subsets import DEFAULT_REPEATS
from guiapp.ui import theme
from guiapp.ui.common.flow_layout import FlowRow
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.common.job_progress import JobProgress
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.lazy_widget import LazyWidget
from guiapp.ui.common.radio_choice import radio_choice
from guiapp.ui.common.save_chart_button import save_chart_button
from guiapp.ui.steps.results.learning_curve_views import (
    DEFAULT_SIZES_TEXT,
    default_sizes_text,
    READING_TERMS,
    CurveTable,
    ReadingView,
    SizesInput,
    final_sizes,
    parse_sizes,
    sizes_preview,
    work_preview,
)
from guiapp.ui.common.scroll_area import ScrollArea, fill
from guiapp.workers import Worker, WorkerSlot, error_report

if TYPE_CHECKING:
    import pandas as pd

    from guiapp.core.study.spec import ExperimentSpec
    from guiapp.ui.steps.results.learning_curve_chart import LearningCurveChart

log = logging.getLogger(__name__)

INTRO = (
    "A learning curve trains each model of your study on growing random shares of your coded training texts "
    "(for example 500, then 1,000, then 2,000) and checks every one on the same test texts. If the macro-F1 "
    "still climbs at the right end of the curve, coding more texts will likely pay off; if it has levelled off, "
    "more texts of the same kind will help little. Each size is drawn several times at random: the shaded band "
    "shows how much the score depends on which texts were drawn."
)
ALL_MODELS = "Every model: macro-F1"
EXAMPLES_NOTE = (
    "A language model with your codebook learns nothing from your coded texts: what they change is how many "
    "coded examples per category its prompt shows (0 = none, zero-shot). So its curve has an axis of its own — "
    "examples per category, not training texts — drawn from all your training texts and scored on the same test "
    "texts. If it still climbs at the right, more examples in the prompt would likely help."
)


def study_counts(spec: ExperimentSpec, table: pd.DataFrame | None, spec_file: str | Path | None,
                 on_event: Any = None) -> tuple[int, int, int]:
    """(training texts, test texts, categories) of the study, exactly as a run would split them."""
    from guiapp.core.study.study_data import load_study_data

    data = load_study_data(spec, spec_file, table)
    return len(data.split.train), len(data.split.test), len(data.categories)


def draw_curve(spec: ExperimentSpec, table: pd.DataFrame | None, spec_file: str | Path | None, options: Any,
               n_jobs: int | None, on_event: Any) -> LearningCurveResult:
    """The background job: the engine's learning curve of every model of the study."""
    from guiapp.core.experiment.curves.learning_curves import run_learning_curve

    return run_learning_curve(spec, on_event, options=options, spec_file=spec_file, table=table, n_jobs=n_jobs)


class LearningCurvePanel(QWidget):
    """Draws and shows a study's learning curves (see the module docstring)."""

    curveReady = Signal(object)  # LearningCurveResult, when a run started here finishes
    curveChanged = Signal(object)  # the curve shown (finished, stopped, opened) or None

    def __init__(self, parent: QWidget | None = None, *, n_jobs: int | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("learningCurvePanel")
        self.n_jobs = n_jobs  # worker processes for the fits; None = the engine's default (one per core)
        self._spec: ExperimentSpec | None = None
        self._table: pd.DataFrame | None = None
        self._spec_file: str | Path | None = None
        self._counts: tuple[int, int] | None = None
        self._count_problem = ""
        self._result: LearningCurveResult | None = None
        self._partial: LearningCurveResult | None = None
        self._job = WorkerSlot(self)
        self._count_job = WorkerSlot(self)
        self._build()
        self._update_controls()

    # -- layout ----------------------------------------------------------------------------------
    def _build(self) -> None:
        heading = QLabel("How many more texts should you code?", objectName="learningCurveHeading")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        heading.setFont(font)
        self.intro = GlossaryLabel(INTRO, terms=READING_TERMS)
        self.intro.setObjectName("learningCurveIntro")
        self.study_label = QLabel("", objectName="learningCurveStudy")
        self.study_label.setWordWrap(True)
        self.study_label.setStyleSheet(theme.NOTE_STYLE)

        self._proposed_sizes = DEFAULT_SIZES_TEXT  # replaced by sizes that fit the study once counted
        self.sizes_edit = QLineEdit(DEFAULT_SIZES_TEXT, objectName="learningCurveSizes")
        self.sizes_edit.setToolTip("The numbers of coded training texts each model learns from, separated by "
                                   "commas. Sizes above your training texts are left out; the curve always "
                                   "ends with all of them.")
        self.sizes_edit.textChanged.connect(self._update_controls)
        self.sizes_note = QLabel("", objectName="learningCurveSizesNote")
        self.sizes_note.setWordWrap(True)
        self.repeats_spin = QSpinBox(objectName="learningCurveRepeats")
        self.repeats_spin.setRange(1, 20)
        self.repeats_spin.setValue(DEFAULT_REPEATS)
        self.repeats_spin.setSuffix(" draws")
        self.repeats_spin.setToolTip("How often each size is drawn at random from your training texts. More draws "
                                     "give a surer curve and take longer; the paper used 5.")
        self.repeats_spin.valueChanged.connect(self._update_controls)
        self._tuning, (self.tune_once, self.tune_each) = radio_choice(
            self,
            ("Tune once (as in the paper)", "learningCurveTuneOnce",
             "Each model's setting is chosen once, by cross-validation on 1,000 coded texts, and used at every "
             "size. Faster; this is what the reference study did."),
            ("Tune at every size", "learningCurveTuneEach",
             "Each model's setting is chosen again for every size, on that size's texts. Slower; small sizes may "
             "then prefer other settings than large ones."))
        self.start_button = QPushButton("Start", objectName="learningCurveStart", default=True, toolTip=(
            "Draw the learning curves of the study's models. You can keep working meanwhile."), clicked=self.start)
        self.work_note = QLabel("", objectName="learningCurveWork")
        self.work_note.setStyleSheet(theme.NOTE_STYLE)
        self.work_note.setWordWrap(True)

        # one setting per line, labels on the left: fits a narrow window without scrolling sideways
        form = QGridLayout()
        form.setHorizontalSpacing(10)
        form.addWidget(QLabel("Sizes (coded texts):"), 0, 0)
        form.addWidget(self.sizes_edit, 0, 1)
        form.addWidget(self.sizes_note, 1, 1)
        form.addWidget(QLabel("Random draws per size:"), 2, 0)
        form.addWidget(self.repeats_spin, 2, 1, Qt.AlignmentFlag.AlignLeft)
        tuning_row = FlowRow(spacing=12)
        tuning_row.add_widget(self.tune_once)
        tuning_row.add_widget(self.tune_each)
        form.addWidget(QLabel("Settings:"), 3, 0)
        form.addWidget(tuning_row, 3, 1)
        form.addWidget(self.start_button, 4, 1, Qt.AlignmentFlag.AlignLeft)
        form.addWidget(self.work_note, 5, 1)
        form.setColumnStretch(1, 1)
        self.sizes_edit.setMinimumWidth(220)

        self.progress = JobProgress()
        self.progress.setObjectName("learningCurveProgress")
        self.progress.layout().setContentsMargins(0, 0, 0, 0)
        self.progress.hide()
        self.status_label = QLabel("", objectName="learningCurveStatus")
        self.status_label.setWordWrap(True)
        self.status_label.hide()

        self.results = self._build_results()
        self.results.hide()

        content = QWidget()
        vbox(content, heading, self.intro, self.study_label, form, self.progress, self.status_label,
             (self.results, 1), (STRETCH, 0), margins=(16, 12, 16, 12), spacing=8)
        self.scroll = ScrollArea(content)
        fill(self, self.scroll)

    def _build_results(self) -> QWidget:
        box = QWidget(objectName="learningCurveResults")
        self.chart_choice = QComboBox(objectName="learningCurveChartChoice")
        self.chart_choice.setToolTip("Show every model's macro-F1, or the F1 of each category for one model.")
        self.chart_choice.currentIndexChanged.connect(self._chart_choice_changed)
        self._chart_slot = LazyWidget(self._make_chart)
        self.save_chart_button = save_chart_button(self._chart_slot.widget, "learningCurveSaveChart")
        self.save_files_button = QPushButton("Save scores…", objectName="learningCurveSaveFiles", toolTip=(
            "Save every score (each model, size and draw) as learning-curve.csv, which Excel and R open, and "
            "learning-curve.json into a folder."), clicked=self._save_files_with_dialog)
        bar = FlowRow(spacing=8)
        for widget in (QLabel("Chart shows:"), self.chart_choice, self.save_chart_button, self.save_files_button):
            bar.add_widget(widget)

        reading_title = QLabel("What the curve says", objectName="learningCurveReadingTitle")
        bold = reading_title.font()
        bold.setBold(True)
        reading_title.setFont(bold)
        self.reading = ReadingView()
        reading_column = vbox(None, reading_title, (self.reading, 1), margins=(8, 0, 0, 0))
        side = hbox(None, (self._chart_slot, 5), (reading_column, 3))

        # a language model with your codebook: its curve over examples per category, on an axis of its own
        self.examples_note = GlossaryLabel(EXAMPLES_NOTE, terms=READING_TERMS)
        self.examples_note.setObjectName("learningCurveExamplesNote")
        self._examples_chart_slot = LazyWidget(self._make_examples_chart)
        self.save_examples_chart_button = save_chart_button(self._examples_chart_slot.widget,
                                                            "learningCurveSaveExamplesChart")
        self.save_examples_chart_button.setText("Save examples chart…")
        self.examples_box = QWidget(objectName="learningCurveExamples")
        vbox(self.examples_box, self.examples_note, hbox(None, self.save_examples_chart_button, STRETCH),
             self._examples_chart_slot, margins=(0, 8, 0, 0))
        self.examples_box.hide()

        self.table_title = QLabel("Test macro-F1 per size: mean over the draws (lowest–highest)")
        self.table_title.setFont(bold)
        self.table = CurveTable()
        self.table.setObjectName("learningCurveTable")
        self.examples_table_title = QLabel("Test macro-F1 per number of examples per category in the prompt: mean "
                                           "over the draws of examples (lowest–highest)")
        self.examples_table_title.setFont(bold)
        self.examples_table_title.setWordWrap(True)
        self.examples_table = CurveTable(over_examples=True)
        self.examples_table.setObjectName("learningCurveExamplesTable")
        vbox(box, bar, (side, 1), self.examples_box, self.table_title, self.table, self.examples_table_title,
             self.examples_table, margins=(0, 4, 0, 0))
        return box

    # -- study -----------------------------------------------------------------------------------
    def set_study(self, spec: ExperimentSpec | None, table: pd.DataFrame | None,
                  spec_file: str | Path | None = None) -> None:
        """The study whose models are drawn and the table it reads (None: no study yet). A shown
        curve stays only when it was drawn for this same study; a running one is stopped."""
        self.cancel()
        self._count_job.cancel()
        self._spec, self._table, self._spec_file = spec, table, spec_file
        self._counts, self._count_problem = None, ""
        if self._result is not None and (spec is None or self._result.spec != spec.to_dict()):
            self.set_curve(None)
        if spec is not None and spec.models:
            worker = Worker(study_counts, spec, table, spec_file, name="count training texts")
            worker.signals.finished.connect(lambda counts, w=worker: self._counted(w, counts))
            worker.signals.failed.connect(lambda error, w=worker: self._count_failed(w, error))
            self._count_job.start(worker)
        self._update_controls()

    def _counted(self, worker: Worker, counts: tuple[int, int, int]) -> None:
        if self._count_job.current is worker or self._count_job.current is None:
            self._counts = counts
            if self.sizes_edit.text() == self._proposed_sizes:  # not typed by the user: sizes that fit the study
                # SetFit is compared where it shines too: from 8 coded texts per category on average
                setfit = any(model.representation == "setfit" for model in self._spec.models) if self._spec else False
                self._proposed_sizes = default_sizes_text(counts[0], counts[2] if setfit else None)
                self.sizes_edit.setText(self._proposed_sizes)
            self._update_controls()

    def _count_failed(self, worker: Worker, error: BaseException) -> None:
        if self._count_job.current is worker or self._count_job.current is None:
            self._count_problem = _plain(error, "Reading the study's coded texts")
            if self.sizes_edit.text() == self._proposed_sizes:  # no sizes are proposed for a study not counted
                self._proposed_sizes = ""
                self.sizes_edit.setText("")
            self._update_controls()

    def training_texts(self) -> int | None:
        """How many training texts the study has (None until counted)."""
        return self._counts[0] if self._counts else None

    def sizes_input(self) -> SizesInput:
        return parse_sizes(self.sizes_edit.text())

    def _update_controls(self) -> None:
        busy = self.is_busy()
        sizes = self.sizes_input()
        spec = self._spec
        if spec is None or not spec.models:
            self.study_label.setText("Set up a study with at least one model first; its curves are drawn here.")
        else:
            names = ", ".join(model.display_name for model in spec.models)
            counted = (f" It has {self._counts[0]:,} coded training texts and {self._counts[1]:,} test texts."
                       if self._counts else "")
            self.study_label.setText(f"Study “{spec.name or 'this study'}” — {len(spec.models)} model"
                                     f"{'s' if len(spec.models) != 1 else ''}: {names}.{counted}")
        text, problem = ((self._count_problem, True) if self._count_problem
                         else (sizes.problem, True) if not sizes.ok else self._sizes_text(sizes.sizes))
        self._note(self.sizes_note, text, problem=problem)
        has_models = spec is not None and bool(spec.models)
        self.work_note.setText(self._work_text(sizes.sizes) if sizes.ok and has_models else "")
        ready = has_models and sizes.ok and not problem
        self.start_button.setEnabled(ready and not busy)
        for widget in (self.sizes_edit, self.repeats_spin, self.tune_once, self.tune_each):
            widget.setEnabled(not busy)

    @staticmethod
    def _note(label: QLabel, text: str, *, problem: bool = False) -> None:
        label.setText(text)
        label.setStyleSheet(theme.text_style(theme.PROBLEM) if problem else theme.NOTE_STYLE)

    def _sizes_text(self, sizes: tuple[int, ...]) -> tuple[str, bool]:
        """The note under the sizes (and whether it is a problem)."""
        if self._count_problem:
            return self._count_problem, True
        if not self._counts:
            return ("Counting your training texts…" if self._spec is not None and self._spec.models else ""), False
        return sizes_preview(sizes, self._counts[0])

    def _work_text(self, sizes: tuple[int, ...]) -> str:
        final = final_sizes(sizes, self._counts[0]) if self._counts else None
        from guiapp.core.experiment.curves.learning_curve_codebook import curve_ks
        from guiapp.core.models.llm.codebook_options import CODEBOOK_LLM

        codebook = [model for model in self._spec.models if model.representation == CODEBOOK_LLM]
        examples = []
        for model in codebook:
            try:
                grid_ks = [int(k) for k in (model.grid or {}).get("k", [])]
            except (TypeError, ValueError):  # a grid the run will refuse in words
                grid_ks = []
            examples.append(curve_ks(grid_ks))
        return work_preview(len(self._spec.models) - len(codebook), len(final) if final else len(sizes),
                            self.repeats_spin.value(), examples)

    # -- the job ---------------------------------------------------------------------------------
    def options(self) -> Any:
        """The engine's options for what the controls say."""
        from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions

        return LearningCurveOptions(sizes=self.sizes_input().sizes, repeats=self.repeats_spin.value(),
                                    tune_per_size=self.tune_each.isChecked())

    def start(self) -> None:
        """Draw the curves in the background (the Start button)."""
        if not self.start_button.isEnabled() or self._spec is None:
            return
        worker = Worker(draw_curve, self._spec, self._table, self._spec_file, self.options(), self.n_jobs,
                        name="learning curve")
        worker.signals.finished.connect(lambda result, w=worker: self._finished(w, result))
        worker.signals.failed.connect(lambda error, w=worker: self._failed(w, error))
        worker.signals.partial.connect(lambda result, w=worker: self._got_partial(w, result))
        worker.signals.cancelled.connect(lambda w=worker: self._cancelled(w))
        worker.signals.done.connect(self._update_controls)
        worker.signals.done.connect(lambda w=worker: self._job.current in (None, w) and self.progress.hide())
        self._partial = None
        self._show_status("")
        self.progress.attach(worker, "Drawing the learning curves… You can keep working in the meantime.")
        self.progress.show()
        self._job.start(worker)
        self._update_controls()

    def cancel(self) -> None:
        """Stop a running curve (the finished models of a stopped run are still shown)."""
        self._job.cancel()

    def is_busy(self) -> bool:
        return self._job.is_busy()

    def _finished(self, worker: Worker, result: LearningCurveResult) -> None:
        self.set_curve(result)
        failed = [model.name for model in result.models if not model.ok]
        if failed:
            self._show_status(f"Finished, but {', '.join(failed)} could not be drawn; the reading says why.",
                              problem=True)
        self.curveReady.emit(result)

    def _got_partial(self, worker: Worker, result: LearningCurveResult) -> None:
        self._partial = result

    def _cancelled(self, worker: Worker) -> None:
        partial = self._partial
        if partial is not None and any(model.ok for model in partial.models):
            self.set_curve(partial)
            self._show_status("Stopped. The models that had finished are shown; press Start to draw all of them.")
        else:
            self._show_status("Stopped before any model finished. Press Start to draw the curves again.")

    def _failed(self, worker: Worker, error: BaseException) -> None:
        self._show_status(_plain(error, "Drawing the learning curve"), problem=True)

    def _show_status(self, text: str, *, problem: bool = False) -> None:
        self._note(self.status_label, text, problem=problem)
        self.status_label.setVisible(bool(text))

    def status_text(self) -> str:
        return self.status_label.text() if not self.status_label.isHidden() else ""

    # -- the curve -------------------------------------------------------------------------------
    def set_curve(self, result: LearningCurveResult | None) -> None:
        """Show a finished (or stopped) curve; None clears it."""
        self._result = result
        self.chart_choice.blockSignals(True)
        self.chart_choice.clear()
        if result is not None:
            self.chart_choice.addItem(ALL_MODELS, None)
            for model in result.models:
                if model.ok and model.points:
                    self.chart_choice.addItem(f"Each category: {model.name}", model.name)
        self.chart_choice.blockSignals(False)
        self.table.set_curve(result)
        self.examples_table.set_curve(result)
        has_training = result is not None and bool(self.table.models_of(result))
        has_examples = result is not None and bool(self.examples_table.models_of(result))
        self.table_title.setVisible(has_training or not has_examples)
        self.table.setVisible(has_training or not has_examples)
        self.examples_table_title.setVisible(has_examples)
        self.examples_table.setVisible(has_examples)
        self.reading.set_curve(result)
        self._chart_choice_changed()
        self.results.setVisible(result is not None)
        self.curveChanged.emit(result)

    def curve(self) -> LearningCurveResult | None:
        return self._result

    def show_categories(self, model_name: str | None) -> None:
        """Chart the categories of ``model_name`` (None: every model's macro-F1)."""
        index = self.chart_choice.findData(model_name)
        if index >= 0:
            self.chart_choice.setCurrentIndex(index)

    @property
    def chart(self) -> LearningCurveChart:
        return self._chart_slot.widget()

    def _make_chart(self) -> LearningCurveChart:
        return _new_chart("learningCurveChart", 420)

    @property
    def examples_chart(self) -> LearningCurveChart:
        """The chart of the curves over examples per category (a language model with your codebook),
        shown below the chart over training texts when the study has both kinds."""
        return self._examples_chart_slot.widget()

    def examples_chart_shown(self) -> bool:
        """Whether the chart over examples per category is shown below the main chart."""
        return self._examples_chart_slot.is_made() and self.examples_chart.isVisible()

    def _make_examples_chart(self) -> LearningCurveChart:
        return _new_chart("learningCurveExamplesChart", 320)

    def _chart_choice_changed(self, *_: Any) -> None:
        result = self._result
        if result is None:
            if self._chart_slot.is_made():  # a chart not made yet is empty anyway
                self.chart.clear_curve()
            self.examples_box.hide()
            return
        drawn = [model for model in result.models if model.ok and model.points]
        has_training = any(not model.over_examples for model in drawn)
        has_examples = any(model.over_examples for model in drawn)
        model = self.chart_choice.currentData()
        if model:
            self.chart.show_categories(result, model)  # on the model's own axis
        else:
            # the curves over training texts on the main chart; those over examples per category on their
            # own chart below (or on the main chart when there is nothing else to show)
            self.chart.show_models(result, over_examples=has_examples and not has_training)
        both = not model and has_training and has_examples
        if both:
            self.examples_chart.show_models(result, over_examples=True)
        # once made, the chart stands in its place holder's spot: show or hide whichever stands there
        (self.examples_chart if self._examples_chart_slot.is_made() else self._examples_chart_slot).setVisible(both)
        self.save_examples_chart_button.setVisible(both)
        self.examples_box.setVisible(has_examples and (both or not has_training or self.chart.over_examples()))

    def reading_sentences(self) -> list[str]:
        return self.reading.sentences()

    def save_files(self, folder: str | Path) -> list[Path]:
        """Write ``learning-curve.json`` and ``learning-curve.csv`` into ``folder``; returns their paths."""
        from guiapp.core.errors import UserError
        from guiapp.core.experiment.curves.learning_curve_files import write_learning_curve

        if self._result is None:
            raise UserError("There is no learning curve to save yet.", "Press Start to draw one first.")
        return write_learning_curve(self._result, folder)

    def _save_files_with_dialog(self) -> None:
        from guiapp.core.errors import UserError

        folder = QFileDialog.getExistingDirectory(self, "Choose a folder for the learning-curve scores")
        if not folder:
            return
        try:
            paths = self.save_files(folder)
        except (OSError, UserError) as error:  # a full disk, a folder without permission: say so, keep going
            self._show_status(_plain(error, "Saving the scores"), problem=True)
        else:
            self._show_status(f"Saved {', '.join(path.name for path in paths)} in {folder}.")


def _plain(error: BaseException, doing: str) -> str:
    """What happened and what to do, in words (the traceback goes to the log only)."""
    report = error_report(error, doing)
    # said on the panel; the traceback only for a log that asks for details, never on the console
    log.info("%s: %s", report.title, report.message, exc_info=error)
    return f"{report.message} {report.hint}".strip()


def _new_chart(name: str, height: int) -> LearningCurveChart:
    """A learning-curve chart of at least ``height`` pixels (made when first shown: it loads pyqtgraph)."""
    from guiapp.ui.steps.results.learning_curve_chart import LearningCurveChart

    chart = LearningCurveChart()
    chart.setObjectName(name)
    chart.base_height = height
    chart.setMinimumHeight(height)
    return chart
