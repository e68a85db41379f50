"""The Run step: a study runs in the background while the page shows how far each model is.

The page hands an :class:`ExperimentSpec` to the engine (``guiapp.core.experiment.run.runner.run_experiment``)
in a :class:`Worker`, and shows what the engine reports: the overall progress with the time
left, one row per model (a fine-tuned Transformer's row with its live training-loss chart), and a
readable log (``run_log``). It never trains anything itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.compute.machine_load import read_load
from guiapp.core.events import Log, Metric, Progress, TaskUpdate, ignore_events
from guiapp.core.progress_clock import TimeLeftClock, describe_time_left
from guiapp.core.study.spec import ExperimentSpec
from guiapp.ui import theme
from guiapp.ui.common.empty_state import EmptyState
from guiapp.ui.common.fitting_splitter import FittingSplitter
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.common.layouts import vbox
from guiapp.ui.steps.run.model_progress import ModelProgressList, ModelProgressRow
from guiapp.ui.steps.run.run_log import RunLog
from guiapp.ui.steps.run.run_wording import describe_plan, describe_test_texts, format_elapsed, study_name
from guiapp.ui.common.chart_numbers import format_seconds
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.step_order import RESULTS_STEP, RUN_STEP
from guiapp.ui.common.where_to_run import WhereToRun
from guiapp.workers import ErrorSink, Worker, WorkerSlot

CANCELLED_TEXT = (
    "Cancelled — nothing was saved. The models that had finished keep their scores below; "
    "press Run on the Models step to start again."
)
EMPTY_TITLE = "Nothing is running yet"
EMPTY_TEXT = "Choose models on the Models step and press Run."
BANNER_NOTICES = {"finished": "done", "cancelled": "caution", "failed": "problem", "stopping": "caution"}
RunFunction = Callable[..., Any]


def run_engine(spec: ExperimentSpec, on_event=ignore_events, **kwargs: Any):
    """The real engine, imported when a run starts (it pulls in scikit-learn and friends)."""
    from guiapp.core.experiment import run_experiment

    return run_experiment(spec, on_event, **kwargs)


class RunPage(QWidget):
    """Runs a study and shows its progress; emits ``resultReady`` with the ExperimentResult."""

    resultReady = Signal(object)  # ExperimentResult
    runningChanged = Signal(bool)
    statusMessage = Signal(str)

    def __init__(self, errors: ErrorSink, run_fn: RunFunction | None = None, parent: QWidget | None = None,
                 session: StudySession | None = None) -> None:
        super().__init__(parent)
        self.errors = errors
        self.session = session or StudySession(self)
        self.ask_before_large_runs = True  # "start anyway?" above a large number of fits (tests turn it off)
        self.load_reader = read_load  # how busy this computer is (tests give a load of their own)
        self.run_fn: RunFunction = run_fn or run_engine
        self.result = None
        self._opened_result = False  # ``result`` came with an opened project rather than from a run here
        self.spec: ExperimentSpec | None = None
        self._slot = WorkerSlot(self)
        self._state = "idle"
        self._started = 0.0
        self._ended: float | None = None
        self._fraction: float | None = None
        self._clock = TimeLeftClock()  # the study's time left: recent speed, climbs only when a slow-down lasts
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)

        self.empty = self._build_empty()
        self.running = self._build_running()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.running)
        self.where = WhereToRun(choice=self.session.where)  # this computer or a Dask scheduler, for the next run
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.where)
        self.session.runWanted.connect(self.start_asked)
        self.session.resultChanged.connect(self._result_shown)
        self.resultReady.connect(self._publish_result)
        self.statusMessage.connect(self.session.say)

    def _publish_result(self, result) -> None:  # noqa: ANN001 — an ExperimentResult
        from guiapp.core.project.format import model_folders_of

        self.session.set_result(result, model_folders_of(result))
        self.session.go_to(RESULTS_STEP)

    def start_asked(self, spec: ExperimentSpec) -> None:
        """Start ``spec`` (asks first when another run is still going, or when the study is large)."""
        if self.is_busy() and not self._confirm_replace_run():
            return
        if self.ask_before_large_runs and not self._confirm_large_run(spec):
            return
        self.session.go_to(RUN_STEP)
        self.start(spec, table=self.session.study_table_with_codings())

    def _confirm_replace_run(self) -> bool:
        answer = QMessageBox.question(
            self,
            "A run is still going",
            "The models of the previous run are still being compared.\n\n"
            "Stop that run and start the new one? The unfinished run is not saved.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def run_size(self, spec: ExperimentSpec):  # a run_size.RunSize
        """The study's fits and expected time, from the texts the session knows (none: no time)."""
        from guiapp.core.experiment.run.run_plan import fine_tunes_on_gpu
        from guiapp.core.experiment.run.run_size import estimate_run
        from guiapp.core.study.split_sizes import planned_sizes

        report = self.session.report
        n_coded = report.n_coded if report is not None else 0
        n_train, n_test = planned_sizes(spec, n_coded, self.session.test_count, self.session.frame)
        tokens = getattr(report, "tokens", None)
        return estimate_run(spec, n_train or None, n_test, len(report.categories) if report is not None else 2,
                            on_gpu=fine_tunes_on_gpu(spec, may_import=False),  # PyTorch is not loaded here for it
                            mean_tokens=tokens.mean if tokens is not None else None,
                            load=self.load_reader(),  # a busy computer takes longer, and the time says so
                            # several categories per text: a language model with your codebook answers one
                            # yes/no question per category
                            multi_label=spec.data.mapping.multi_label)

    def _confirm_large_run(self, spec: ExperimentSpec) -> bool:
        """Ask before a study of more fits than a researcher would start by accident (a grid of thousands)."""
        size = self.run_size(spec)
        if not size.large:
            return True
        about = f", {size.duration} on this computer" if size.duration else ""
        answer = QMessageBox.question(
            self, "A large study",
            f"This study will fit {size.fits:,} models{about}.\n\nStart anyway?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    # -- building ---------------------------------------------------------------------------------
    def _build_empty(self) -> QWidget:
        panel = EmptyState(EMPTY_TITLE, EMPTY_TEXT, "run")
        self.empty_label = panel.label
        return panel

    def _build_running(self) -> QWidget:
        panel = QWidget()
        self.title_label = QLabel("", objectName="runTitle")
        self.title_label.setStyleSheet(theme.heading_style(17))
        self.title_label.setWordWrap(True)
        self.details_label = GlossaryLabel(
            "", terms=["cross-validation", "fold", "test text", "validation split", "GPU", "Transformer"]
        )
        self.details_label.setObjectName("runDetails")
        self.details_label.setStyleSheet(theme.NOTE_STYLE)

        self.overall_message = QLabel("", objectName="runMessage")
        self.overall_message.setStyleSheet(theme.text_style(theme.DARK_TEXT))
        self.overall_message.setWordWrap(True)
        self.overall_bar = QProgressBar(objectName="runBar")
        self.overall_bar.setRange(0, 1000)
        self.overall_bar.setTextVisible(False)
        self.overall_bar.setFixedHeight(16)
        self.time_label = QLabel("", objectName="runTime")
        self.time_label.setMinimumWidth(330)  # room for "about 5 min left (a rough guess)"
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.cancel_button = QPushButton("Cancel", objectName="runCancel")
        self.cancel_button.setToolTip(
            "Stop the run. Nothing is saved; the scores of models that already finished stay on this page."
        )
        self.cancel_button.clicked.connect(self.cancel)
        bar_row = QHBoxLayout()
        bar_row.addWidget(self.overall_bar, 1)
        bar_row.addWidget(self.time_label)
        bar_row.addWidget(self.cancel_button)

        self.banner = QFrame(objectName="runBanner")
        self.banner_label = QLabel("", objectName="runBannerText")
        self.banner_label.setWordWrap(True)
        self.banner_label.setStyleSheet("font-size: 14px; background: transparent; border: none;")
        self.results_button = QPushButton("See the results →", objectName="seeResults")
        self.results_button.setStyleSheet(theme.GO_BUTTON_STYLE)
        self.results_button.setToolTip("Compare the models: scores, mistakes per category, chosen settings.")
        self.results_button.clicked.connect(self._show_results)
        self.again_button = QPushButton("Run again", objectName="runAgain")
        self.again_button.setToolTip("Compare the models of the Models step again, on your coded texts as they are now.")
        self.again_button.clicked.connect(self.run_again)
        banner_row = QHBoxLayout(self.banner)
        banner_row.setContentsMargins(12, 8, 12, 8)
        banner_row.addWidget(self.banner_label, 1)
        banner_row.addWidget(self.again_button)
        banner_row.addWidget(self.results_button)
        self.banner.hide()

        self.model_list = ModelProgressList()
        models_title = QLabel("Models", objectName="runModelsTitle")
        models_title.setStyleSheet(theme.heading_style(14))
        models_box = QWidget()
        models_column = QVBoxLayout(models_box)
        models_column.setContentsMargins(0, 0, 0, 0)
        models_column.addWidget(models_title)
        models_column.addWidget(self.model_list, 1)

        self.run_log = RunLog()
        self.log_view = self.run_log.view
        self.copy_button = self.run_log.copy_button
        self.copy_button.clicked.connect(self.copy_log)

        # refits as the banner comes and goes, and when the page is shown: the rows grow while it is hidden
        splitter = FittingSplitter(Qt.Orientation.Vertical, self._models_height, name="runSplitter", stretch=(3, 2))
        splitter.addWidget(models_box)
        splitter.addWidget(self.run_log)
        self.splitter = splitter
        self.models_title = models_title

        vbox(panel, self.title_label, self.details_label, 4, self.overall_message, bar_row, self.banner,
             (splitter, 1), margins=(16, 12, 16, 12), spacing=8)
        return panel

    # -- public API -------------------------------------------------------------------------------
    def start(self, spec: ExperimentSpec, table=None, spec_file=None) -> bool:
        """Run ``spec`` in the background where "Where to run" says (a run still going is cancelled
        first); False, with the reason shown under the choice, when the scheduler's address is wrong."""
        problem = self.where.problem()
        if problem:
            self.statusMessage.emit(problem)
            return False
        spec = self.where.spec_for_run(spec)  # a copy: the user's study is not changed
        self.spec = spec
        self.result, self._opened_result = None, False
        names = [model.display_name for model in spec.models]
        count = len(names)
        self.title_label.setText(f"Comparing {count} model{'s' if count != 1 else ''} on “{study_name(spec)}”")
        where = f"  ·  {self.where.describe()}" if spec.cluster.scheduler else ""
        size = self.run_size(spec)
        self.details_label.set_plain_text(f"{describe_test_texts(spec)}  ·  {describe_plan(size)}{where}")
        self.model_list.set_models(names)
        self.log_view.clear()
        self._fraction = 0.0
        self.overall_bar.setRange(0, 1000)
        self.overall_bar.setValue(0)
        self.overall_message.setText("Starting…")
        self.banner.hide()
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Cancel")
        self.cancel_button.show()
        self.stack.setCurrentWidget(self.running)
        self.splitter.reset()

        worker = Worker(self.run_fn, spec, name=f"study {study_name(spec)}", table=table, spec_file=spec_file)
        signals = worker.signals
        signals.progress.connect(lambda event, w=worker: self._on_progress(w, event))
        signals.update.connect(lambda event, w=worker: self._on_update(w, event))
        signals.log.connect(lambda event, w=worker: self._on_log(w, event))
        signals.metric.connect(lambda event, w=worker: self._on_metric(w, event))
        signals.finished.connect(lambda result, w=worker: self._on_finished(w, result))
        signals.failed.connect(lambda error, w=worker: self._on_failed(w, error))
        signals.partial.connect(lambda result, w=worker: self._on_partial(w, result))
        signals.cancelled.connect(lambda w=worker: self._on_cancelled(w))
        signals.done.connect(lambda w=worker: self._on_done(w))
        self._started = time.monotonic()
        self._clock.reset(self._started, expected=size.seconds)  # the plan steers the first estimates
        self._ended = None
        self._set_state("running")
        self.append_log(f"Started: {count} model{'s' if count != 1 else ''} to compare.")
        self._tick()
        self._timer.start()
        self._slot.start(worker)
        self.statusMessage.emit(f"Running {count} model{'s' if count != 1 else ''}"
                                f"{' ' + self.where.describe() if spec.cluster.scheduler else ''}…")
        return True

    def run_again(self) -> None:
        """Run the study as the Models step sets it up now."""
        spec = self.session.study_spec()
        reason = self.session.not_ready_reason()
        if spec is None or reason or not spec.models:
            self.statusMessage.emit(reason or "Choose the models to compare on the Models step first.")
            return
        self.session.run(spec)

    def _result_shown(self, result) -> None:  # noqa: ANN001 — an ExperimentResult, or None
        """A result this page did not just run (an opened project's): its models with their scores,
        and Run again."""
        if result is None or result is self.result or self.is_busy():
            return
        self.result, self._opened_result = result, True
        names = [model.name for model in result.models]
        count = len(names)
        self.title_label.setText(f"{count} model{'s' if count != 1 else ''} compared on "
                                 f"“{result.study_source.study_name or 'your study'}”")
        self.details_label.set_plain_text(f"{result.split.get('description') or ''}".strip(" ·"))
        self.model_list.set_models(names)
        self._reconcile(result)
        self.log_view.clear()
        self.append_log("The results of this run came with the project; press Run again to compare the models "
                        "anew.")
        self._fraction = 1.0
        self.overall_bar.setRange(0, 1000)
        self.overall_bar.setValue(1000)
        self.overall_message.setText("Finished before the project was saved.")
        self.time_label.setText("")
        self.cancel_button.hide()
        self.stack.setCurrentWidget(self.running)
        finished = len(result.finished_models())
        self._set_state("finished")
        self._show_banner("finished", f"{finished} of {count} models compared when this study last ran. See "
                          "the results, or run the study again.", results=bool(finished))

    def cancel(self) -> None:
        """Ask the engine to stop at its next checkpoint (within a second or two)."""
        if not self._slot.is_busy() or self._state != "running":
            return
        self._slot.cancel()
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Stopping…")
        self._set_state("stopping")
        self._show_banner("stopping", "Stopping after the current step…", results=False)
        self.append_log("Cancel requested: stopping after the current step.")

    def is_busy(self) -> bool:
        """True from :meth:`start` until the run has ended and its thread has stopped."""
        return self._slot.is_busy() or self._state in ("running", "stopping")

    def cancel_jobs(self) -> None:
        """Stop the run without asking (the window is closing)."""
        self._slot.cancel()

    def state(self) -> str:
        """"idle", "running", "stopping", "finished", "cancelled" or "failed"."""
        return self._state

    def rows(self) -> list[ModelProgressRow]:
        return self.model_list.rows()

    def banner_text(self) -> str:
        return self.banner_label.text() if self.banner.isVisibleTo(self) else ""

    def time_text(self) -> str:
        return self.time_label.text()

    def log_text(self) -> str:
        return self.log_view.toPlainText()

    def copy_log(self) -> None:
        QApplication.clipboard().setText(self.log_text())
        self.statusMessage.emit("The log was copied; paste it wherever you need it.")

    def append_log(self, message: str, level: str = "info") -> None:
        self.run_log.append(message, level)

    # -- events from the worker ---------------------------------------------------------------------
    def _current(self, worker: Worker) -> bool:
        return worker is self._slot.current

    def _on_progress(self, worker: Worker, event: Progress) -> None:
        if not self._current(worker):
            return
        if event.fraction is not None:
            self._fraction = min(max(event.fraction, 0.0), 1.0)
            self.overall_bar.setRange(0, 1000)
            self.overall_bar.setValue(round(self._fraction * 1000))
        elif self._fraction in (None, 0.0):
            self.overall_bar.setRange(0, 0)
        if event.message and self._state == "running":
            self.overall_message.setText(event.message)
        self.model_list.show_progress(event)

    def _on_update(self, worker: Worker, event: TaskUpdate) -> None:
        if self._current(worker):
            self.model_list.show_update(event)

    def _on_metric(self, worker: Worker, event: Metric) -> None:
        if not self._current(worker):
            return
        grown = self.model_list.show_metric(event)
        if grown is not None:  # the row just got its chart: make room once its layout has settled
            QTimer.singleShot(0, lambda row=grown: self._show_grown_row(row))

    def _show_grown_row(self, row: ModelProgressRow) -> None:
        self.splitter.fit()
        self.model_list.ensureWidgetVisible(row, 0, 0)

    def loss_chart(self, index: int):
        """The live loss chart of the model at ``index`` (a LossChart), or None."""
        row = self.model_list.row(index)
        return row.loss_chart if row is not None else None

    def _on_log(self, worker: Worker, event: Log) -> None:
        if self._current(worker):
            self.append_log(event.message, event.level)

    def _on_finished(self, worker: Worker, result) -> None:
        if not self._current(worker):
            return
        self.result = result
        self._reconcile(result)
        self._stop_clock()
        finished = result.finished_models()
        failed = [model for model in result.models if model.status == "failed"]
        took = format_seconds(self._elapsed())
        if getattr(result, "status", "done") == "cancelled":
            self.model_list.stop_unfinished()
            self._set_state("cancelled")
            self._show_banner("cancelled", CANCELLED_TEXT, results=bool(finished))
            self.append_log("The run was cancelled.")
            self.statusMessage.emit("The run was cancelled.")
            return
        self.overall_bar.setRange(0, 1000)
        self.overall_bar.setValue(1000)
        self.overall_message.setText("Finished.")
        if not finished:
            text = "No model finished: see the messages below for what went wrong."
        elif failed:
            text = (f"Finished in {took}: {len(finished)} of {len(result.models)} models compared; "
                    f"{len(failed)} failed (see below).")
        else:
            text = f"Finished in {took}: all {len(finished)} model{'s' if len(finished) != 1 else ''} compared."
        self._set_state("finished")
        self._show_banner("finished" if finished else "failed", text, results=bool(finished))
        self.append_log(text)
        self.statusMessage.emit(text)
        if finished:
            self.resultReady.emit(result)

    def _on_failed(self, worker: Worker, error: BaseException) -> None:
        if not self._current(worker):
            return
        self._stop_clock()
        self.model_list.stop_unfinished()
        report = self.errors.report(error, "Running the study")
        self._set_state("failed")
        self.overall_message.setText("Stopped: the study could not go on (see the message above).")
        self._show_banner("failed", f"The run stopped: {report.message}", results=False)
        self.append_log(f"The run stopped: {report.message}", "error")
        self.statusMessage.emit("The run stopped because of a problem.")

    def _on_partial(self, worker: Worker, result) -> None:
        if self._current(worker) and result.finished_models():
            self.result = result  # the finished models, kept for the Results step

    def _on_cancelled(self, worker: Worker) -> None:
        if not self._current(worker):
            return
        self._stop_clock()
        self.model_list.stop_unfinished()
        self._set_state("cancelled")
        kept = self.result is not None and getattr(self.result, "status", "") == "cancelled"
        if kept:
            count = len(self.result.finished_models())
            kept_words = "model that had finished keeps its result" if count == 1 else (
                "models that had finished keep their results")
            text = (f"Cancelled. The {count} {kept_words}: see them with the button on the right, "
                    "or press Run on the Models step to start again.")
        else:
            text = CANCELLED_TEXT
        self._show_banner("cancelled", text, results=kept)
        self.overall_message.setText("Cancelled.")
        self.append_log("The run was cancelled; nothing was saved." if not kept else
                        "The run was cancelled; the finished models are kept.")
        self.statusMessage.emit("The run was cancelled.")

    def _on_done(self, worker: Worker) -> None:
        if self._slot.current in (None, worker):
            self.cancel_button.hide()

    # -- layout ------------------------------------------------------------------------------------------
    def _models_height(self, total: int) -> int:
        """The model rows get the room they need; the log gets the rest, at least a few lines
        (it scrolls, and its lines are also in the rows above)."""
        rows = self.model_list.widget()
        rows.adjustSize()
        need = rows.sizeHint().height() + self.models_title.sizeHint().height() + 12
        if self.model_list.horizontalScrollBar().isVisible():
            need += self.model_list.horizontalScrollBar().height()
        log_lines = self.log_view.fontMetrics().lineSpacing() * 4 + 40  # title row, frame, 4 lines
        return max(min(need, total - min(log_lines, total // 3)), min(total // 2, 120))

    # -- helpers ---------------------------------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        was_running = self._state in ("running", "stopping")
        self._state = state
        self.session.set_run_state(state)
        self.where.setEnabled(state not in ("running", "stopping"))
        self.where.setToolTip("Where this run goes; change it for the next run when this one has ended."
                              if state in ("running", "stopping") else "")
        if state == "running" and not was_running:
            self.runningChanged.emit(True)
        elif state not in ("running", "stopping") and was_running:
            self.cancel_button.hide()
            self.runningChanged.emit(False)

    def _reconcile(self, result) -> None:
        """The rows agree with the final result even if a task update was missed."""
        rows = self.model_list.rows()
        by_name = {row.name: row for row in rows}
        same_order = len(result.models) == len(rows)
        for position, model in enumerate(result.models):
            row = rows[position] if same_order else by_name.get(model.name)
            if row is not None:
                row.set_result(model)

    def _show_banner(self, kind: str, text: str, *, results: bool) -> None:
        self.banner.setStyleSheet(f"QFrame#runBanner {{ {theme.notice_style(BANNER_NOTICES[kind], '', 6)} }}")
        self.banner_label.setText(text)
        self.results_button.setVisible(results)
        self.again_button.setVisible(kind != "stopping")
        self.banner.show()

    def _show_results(self) -> None:
        if self.result is not None and self._opened_result:  # an opened project's: shown already
            self.session.go_to(RESULTS_STEP)
        elif self.result is not None:
            self.resultReady.emit(self.result)

    def _elapsed(self) -> float:
        end = self._ended if self._ended is not None else time.monotonic()
        return end - self._started

    def _stop_clock(self) -> None:
        self._ended = time.monotonic()
        self._timer.stop()
        self.time_label.setText(f"Took {format_elapsed(self._elapsed())}")

    def _tick(self) -> None:
        elapsed = self._elapsed()
        text = f"Elapsed {format_elapsed(elapsed)}"
        fraction = self._fraction or 0.0
        if self._state == "stopping":
            text += "  ·  stopping…"
        elif (left := self._clock.update(time.monotonic(), fraction)) is not None and elapsed >= 3.0:
            text += "  ·  " + describe_time_left(left, self._clock.uncertain)
        else:
            text += "  ·  estimating…"
        self.time_label.setText(text)
