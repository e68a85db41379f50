"""The Predict step: apply trained models to texts nobody has coded yet and save their answers.

1. the texts (a file chosen or dropped, or the uncoded rows of the study's table) and their column;
2. the models (the best one ticked), with how well each agreed with the coding;
3. Predict, in the background with progress, time left and Cancel; then warnings, how many texts
   went to each category, the first rows, and "Save predictions…" (Excel, CSV or Parquet).

Where a text can have several categories, each model's answer is its list of categories ("economy;
health") with each category's own chance beside it, a text counts in each of its categories, and
the top words explain the first category the model gave the text.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.experiment import ExperimentResult, ModelResult
from guiapp.core.export.target import study_data_files
from guiapp.core.models.llm.codebook_options import CODEBOOK_LLM
from guiapp.core.predict.new_texts import NewTextPredictions, category_counts
from guiapp.ui import theme
from guiapp.ui.session.session_page import SessionPage
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.empty_state import EmptyState
from guiapp.ui.common.frame_model import DataFrameModel
from guiapp.ui.common.job_progress import JobProgress
from guiapp.ui.common.layouts import STRETCH, vbox
from guiapp.ui.common.long_job_warning import LongJobCheck
from guiapp.ui.common.new_texts_source import NewTextsSource
from guiapp.ui.common.save_dialogs import ask_save_path, proposed_name
from guiapp.ui.common.scroll_area import ScrollArea
from guiapp.ui.common.when_shown import WhenShown
from guiapp.workers import Worker, WorkerSlot

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

PREVIEW_ROWS = 200
# the models whose top words are calculated exactly (explain/top_words.quick_in_result; a test keeps them in step)
QUICK_TOP_WORDS = ("Quick are the models whose word scores are calculated exactly: logistic regression or an SVM with "
                   "a linear kernel on a bag of words or on word vectors, and naive Bayes or XGBoost on a bag of "
                   "words; an SVM with another kernel is not.")
SAVE_FILTERS = {
    "Excel workbook (*.xlsx)": ".xlsx",
    "CSV, comma-separated (*.csv)": ".csv",
    "Parquet (*.parquet)": ".parquet",
}
MODEL_ROLE = Qt.ItemDataRole.UserRole + 1
TOP_WORDS_TIP = ("For each text, the five words that pushed the model most toward the category it chose, "
                 "with their scores — the same explanation as on the Documents step.")
SEVERAL_TOP_WORDS_TIP = ("For each text, the five words that raised the chance of the first category the model gave "
                         "it (or, if it gave none, of the category it found most likely) the most, with their scores; "
                         "the cell starts with that category's name — the same explanation as on the Documents step.")
COUNTS_TEXT = "How many texts each model put in each category:"
SEVERAL_COUNTS_TEXT = ("How many texts each model put in each category (a text can count in several categories, so "
                       "the shares can add up to more than 100 %):")


def with_no_category_row(counts: pd.DataFrame, found: NewTextPredictions) -> pd.DataFrame:
    """The category counts with a last row for the texts a model gave none of the categories."""
    import pandas as pd

    from guiapp.core.study.label_sets import NO_CATEGORY

    row: dict[str, object] = {counts.columns[0]: NO_CATEGORY}
    for name, predictions in zip(found.models, found.predictions, strict=True):
        answered = predictions.predicted[predictions.answered]
        none = int((answered == 0).all(axis=1).sum()) if predictions.multi_label else 0
        row[f"{name}: texts"] = none
        row[f"{name}: share"] = none / max(len(answered), 1)
    return pd.concat([counts, pd.DataFrame([row], columns=counts.columns)], ignore_index=True)


class PredictionsPreview(DataFrameModel):
    """The first rows with the answers at the right; the answers' column titles say what they hold
    (``several``: the models give a text several categories)."""

    several = False

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and 0 <= section < self.columnCount():
            name = str(self.frame().columns[section])
            tip = answer_column_tip(name, self.several)
            if tip and role == Qt.ItemDataRole.ToolTipRole:
                return tip
            if tip and role == Qt.ItemDataRole.DisplayRole:  # the model's name above what the column holds
                model, _, what = name.rpartition(": ")
                return f"{model}:\n{what}"
        return super().headerData(section, orientation, role)


def answer_column_tip(name: str, several: bool) -> str:
    """What one of the answer columns holds, in plain words ("" for the user's own columns)."""
    from guiapp.core.export.predictions import PREDICTED, PREDICTED_SEVERAL, PROBABILITY, TOP_WORDS

    model, _, what = name.rpartition(": ")
    if not model:
        return ""
    if what == PREDICTED_SEVERAL:
        return (f"The categories {model} gave the text, separated by “;” (a text can have several): each category "
                "whose chance reaches its threshold; “(none of the categories)” when none does.")
    if what == PREDICTED:
        return f"The category {model} gave the text."
    if what == TOP_WORDS:
        return f"{model}: " + (SEVERAL_TOP_WORDS_TIP if several else TOP_WORDS_TIP)
    if what.startswith(PROBABILITY + " "):
        category = what[len(PROBABILITY) + 1:]
        if several:
            return (f"How likely {model} finds it that the text belongs in “{category}”, on its own: each category "
                    "has its own chance, so they need not add up to 100 %.")
        return f"How likely {model} finds it that the text belongs in “{category}”."
    return ""


class PredictPage(SessionPage):
    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent, session)
        self.result: ExperimentResult | None = None
        self.found: NewTextPredictions | None = None
        self._predicted_frame: pd.DataFrame | None = None
        self._predicted_source: Path | None = None
        self._folder_of: Callable[[ModelResult], Path | None] = lambda _model: None
        self._predict_slot = WorkerSlot(self)
        self._save_slot = WorkerSlot(self)

        self.stack = QStackedWidget()
        self.empty = EmptyState(
            "No trained models yet",
            "Run a study first: the models it trains can then predict the categories of texts nobody has coded.",
            "predict",
        )
        self.source = NewTextsSource(self.session.uncoded_table)  # "the uncoded rows of your table", as it is now
        self.source.changed.connect(self._inputs_changed)
        self.source.failed.connect(self.errorRaised)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self._build_content())
        self.stack.setCurrentWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.statusMessage.connect(self.session.say)
        self.errorRaised.connect(self.session.report_error)
        self._count_when_shown = WhenShown(self, self._table_now_counted)
        self.session.tableChanged.connect(lambda _table: self.study_table_changed())
        self.session.codingsChanged.connect(self.study_table_changed)  # a text coded here is no longer uncoded
        self.session.dataChanged.connect(self.study_table_changed)
        self.session.resultChanged.connect(lambda result: self.set_result(result, self.session.model_folder))
        self.session.predictionsChanged.connect(self._predictions_changed)

    # -- layout --------------------------------------------------------------------------------------
    def _build_content(self) -> QWidget:
        title = QLabel("Predict new texts")
        title.setStyleSheet(theme.heading_style(20))
        intro = QLabel("Apply a trained model to texts nobody has coded yet, then save its answers "
                       "beside your original columns. Your file is only read, never changed.")
        intro.setWordWrap(True)

        texts_box = QGroupBox("1  Texts to predict")
        QVBoxLayout(texts_box).addWidget(self.source)

        models_box = QGroupBox("2  Models")
        self.models_list = QListWidget(objectName="predictModels")
        self.models_list.setMaximumHeight(130)
        self.models_list.setToolTip("Tick one model, or several to see their answers side by side.")
        self.models_list.itemChanged.connect(lambda _item: self._inputs_changed())
        models_layout = QVBoxLayout(models_box)
        models_layout.addWidget(QLabel("The best model is ticked. Agreement is measured on your test texts."))
        models_layout.addWidget(self.models_list)
        self.top_words_box = QCheckBox("Also list the words behind each answer (a “top words” column)",
                                       objectName="predictTopWords")
        self.top_words_box.setToolTip(TOP_WORDS_TIP)
        self.top_words_box.toggled.connect(lambda _on: self._inputs_changed())
        self.top_words_note = QLabel("", objectName="predictTopWordsNote")
        self.top_words_note.setWordWrap(True)
        self.top_words_note.setStyleSheet(theme.text_style(theme.CAUTION_NOTE))
        self.top_words_note.hide()
        models_layout.addWidget(self.top_words_box)
        models_layout.addWidget(self.top_words_note)

        self.predict_button = QPushButton("Predict", objectName="predictButton")
        self.predict_button.setDefault(True)
        self.predict_button.setMinimumWidth(140)
        self.predict_button.setStyleSheet("font-weight: 600; padding: 6px 18px;")
        self.predict_button.clicked.connect(self.predict)
        self.ready_label = QLabel("", objectName="predictReady")
        self.ready_label.setStyleSheet(theme.NOTE_STYLE)
        run_row = QHBoxLayout()
        run_row.addWidget(self.predict_button)
        run_row.addWidget(self.ready_label, 1)
        self.progress = JobProgress()
        self.progress.hide()
        self._long_job = LongJobCheck(self, self._predict_slot, self.progress, "Predicting the new texts",
                                      lambda error: self.errorRaised.emit(error, "Predicting the new texts"),
                                      self._inputs_changed)

        self.answers_box = QGroupBox("3  Answers")
        self.warnings = QLabel("", objectName="predictWarnings")
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet(theme.notice_style("warning", "8px"))
        self.summary = QLabel("", objectName="predictSummary")
        self.summary.setWordWrap(True)
        self.counts_view = QTableView(objectName="predictCounts")
        self.counts_model = DataFrameModel()
        self.counts_view.setModel(self.counts_model)
        self.counts_view.setMaximumHeight(220)
        self.counts_view.verticalHeader().hide()  # a summary, not spreadsheet rows
        self.preview_view = QTableView(objectName="predictPreview")
        self.preview_model = PredictionsPreview()
        self.preview_view.setModel(self.preview_model)
        self.preview_view.setMinimumHeight(220)
        self.save_button = QPushButton("Save predictions…", objectName="savePredictions")
        self.save_button.setToolTip("Write your original columns with each model's category and the "
                                    "probability of every category: Excel, CSV or Parquet.")
        self.save_button.clicked.connect(self.choose_save_path)
        self.save_progress = JobProgress()
        self.save_progress.hide()
        save_row = QHBoxLayout()
        save_row.addWidget(self.save_button)
        save_row.addStretch(1)
        answers = QVBoxLayout(self.answers_box)
        answers.addWidget(self.warnings)
        answers.addWidget(self.summary)
        self.counts_label = QLabel(COUNTS_TEXT, objectName="predictCountsLabel")
        self.counts_label.setWordWrap(True)
        answers.addWidget(self.counts_label)
        answers.addWidget(self.counts_view)
        self.preview_label = QLabel("")
        answers.addWidget(self.preview_label)
        answers.addWidget(self.preview_view)
        answers.addLayout(save_row)
        answers.addWidget(self.save_progress)
        self.answers_box.hide()

        content = QWidget()
        vbox(content, title, intro, texts_box, models_box, run_row, self.progress, self.answers_box, STRETCH,
             margins=(20, 16, 20, 16))
        return ScrollArea(content, framed=True)

    # -- what the window tells the page ----------------------------------------------------------------
    def set_result(self, result: ExperimentResult | None,
                   folder_of: Callable[[ModelResult], Path | None] | None = None) -> None:
        """The study whose trained models can predict; ``folder_of`` finds each model's folder
        (the run's own folders by default, a project's unpacked ones after opening a project)."""
        self.cancel_jobs()
        self.result = result
        self._folder_of = folder_of or (lambda model: Path(model.artefact) if model.artefact else None)
        several = result is not None and result.multi_label
        self.top_words_box.setToolTip(SEVERAL_TOP_WORDS_TIP if several else TOP_WORDS_TIP)
        self._clear_answers()
        self.models_list.blockSignals(True)
        self.models_list.clear()
        usable = 0
        if result is not None:
            self.source.set_study_columns(list(result.study_source.mapping.text_columns))
            for rank, model in enumerate(result.ranked()):
                folder = self._folder_of(model)
                item = QListWidgetItem(self._model_label(model, rank == 0))
                item.setData(MODEL_ROLE, model.name)
                if folder is not None and folder.is_dir():
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    item.setCheckState(Qt.CheckState.Checked if usable == 0 else Qt.CheckState.Unchecked)
                    usable += 1
                else:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                    item.setToolTip("This model was not saved, so it cannot predict. Run the study again.")
                self.models_list.addItem(item)
        self.models_list.blockSignals(False)
        self.stack.setCurrentIndex(1 if usable else 0)
        if result is not None and not usable:
            self.empty.label.setText("None of this study's models was saved, so none can predict. Run the study again.")
        self.source.refresh_own_rows()
        self._inputs_changed()

    def study_table_changed(self) -> None:
        """The table or its codings changed: count its uncoded rows again now when this step is
        shown, else when it is next shown (a coding on the Coding step costs no counting)."""
        self._count_when_shown.now_or_when_shown()

    def _table_now_counted(self) -> None:
        self.source.refresh_own_rows()
        if self.found is not None and self._predicted_frame is not None:
            self._show_summary()

    def open_path(self, path: Path) -> None:
        """A file dropped onto the window or opened from the File menu while on this step."""
        self.source.open_path(Path(path))

    def choose_file(self) -> None:
        """Ask for a file of texts to predict (File → Predict a file of new texts…)."""
        self.source.choose()

    def has_models(self) -> bool:
        return self.stack.currentIndex() == 1

    def chosen_models(self) -> list[str]:
        return [self.models_list.item(i).data(MODEL_ROLE) for i in range(self.models_list.count())
                if self.models_list.item(i).checkState() == Qt.CheckState.Checked]

    def is_busy(self) -> bool:
        return self._predict_slot.is_busy() or self._save_slot.is_busy() or self.source.is_busy()

    def cancel_jobs(self) -> None:
        self._predict_slot.cancel()
        self._save_slot.cancel()
        self.source.cancel_jobs()

    # -- predicting --------------------------------------------------------------------------------------
    def predict(self) -> None:
        from guiapp.core.explain.top_words import predict_table_with_words

        reason = self._not_ready_reason()
        if reason or self.result is None or self.source.frame is None:
            self.ready_label.setText(reason)
            return
        by_name = {model.name: model for model in self.result.models}
        folders = [(name, self._folder_of(by_name[name])) for name in self.chosen_models()]
        slow_words = self.top_words_box.isChecked() and self._slow_chosen()
        if (slow_words or self._language_models_chosen()) and self._long_job.should_estimate():
            from guiapp.core.explain.job_estimate import estimate_predicting  # first how long it will take

            # a language model with your codebook answers slowly itself: timed also without the top words
            options = {} if slow_words else {"top_words": False}
            self._long_job.estimate_then(estimate_predicting, folders, self.source.frame, self.source.text_columns(),
                                         start=self.predict, **options)
            self.predict_button.setEnabled(False)
            self._show_progress()
            return
        worker = Worker(predict_table_with_words, folders, self.source.frame, self.source.text_columns(),
                        coded_texts=self.result.test_texts, top_words=self.top_words_box.isChecked(),
                        name="predict new texts")
        frame, source = self.source.frame, self.source.path
        read_from = {"sheet": self.source.sheet, "text_columns": self.source.text_columns()}
        worker.signals.finished.connect(lambda found, w=worker: self._predicted(w, found, frame, source, read_from))
        worker.signals.failed.connect(lambda error, w=worker: self._predict_ended(w, error))
        worker.signals.cancelled.connect(lambda w=worker: self._predict_ended(w, None))
        self.progress.show()
        self.progress.attach(worker, "Predicting…")
        self.predict_button.setEnabled(False)
        self._predict_slot.start(worker)
        # after the slot has let go of it (its thread has ended): Predict is usable again
        worker.signals.done.connect(lambda w=worker: self._predict_done(w))
        self._show_progress()

    def _predicted(self, worker: Worker, found: NewTextPredictions, frame: pd.DataFrame, source: Path | None,
                   read_from: dict) -> None:
        if worker is not self._predict_slot.current:
            return
        self.progress.hide()
        self.found, self._predicted_frame, self._predicted_source = found, frame, source
        self.session.set_predictions(found, frame, source=str(source) if source is not None else "", **read_from)
        self._show_answers()
        self._inputs_changed()
        self.statusMessage.emit(f"Predicted {len(frame):,} texts with {len(found.models)} "
                                f"{'model' if len(found.models) == 1 else 'models'}.")

    def _predictions_changed(self, found: NewTextPredictions | None) -> None:
        """Answers this page did not just make (those an opened project kept) are shown as its own."""
        session = self.session
        if found is None or found is self.found or session.predicted_table is None:
            return
        self.found, self._predicted_frame = found, session.predicted_table
        self._predicted_source = Path(session.predicted_source) if session.predicted_source else None
        if self.source.frame is None:  # the answers came with the project, not with texts chosen here
            self.source.label.setText("The answers below were kept in the project. To predict again, choose a file "
                                      "or the uncoded rows of your table.")
        self._show_answers()
        self._inputs_changed()

    def _predict_ended(self, worker: Worker, error: BaseException | None) -> None:
        if worker is not self._predict_slot.current:
            return
        self.progress.hide()
        self._inputs_changed()
        if error is not None:
            self.errorRaised.emit(error, "Predicting the new texts")
        else:
            self.statusMessage.emit("Predicting was cancelled; nothing was kept.")

    def _predict_done(self, worker: Worker) -> None:
        if self._predict_slot.current in (None, worker):
            self.progress.hide()
            self._inputs_changed()

    def _show_progress(self) -> None:
        """Bring the progress bar into view (it sits under the models, below the fold of a low
        window), once the page has made room for it."""
        QTimer.singleShot(0, self._progress_into_view)

    def _progress_into_view(self) -> None:
        scroll = self.stack.widget(1)
        if isinstance(scroll, QScrollArea) and self.progress.isVisible():
            scroll.ensureWidgetVisible(self.progress, 0, 16)

    def _show_answers(self) -> None:
        # the prediction tables and files load pandas and the Excel writer: with the first answers
        from guiapp.core.export.prediction_files import model_predictions
        from guiapp.core.export.predictions import predictions_table

        found, frame = self.found, self._predicted_frame
        assert found is not None and frame is not None
        self.warnings.setText("<b>Please check:</b><br>" + "<br>".join(found.warnings))
        self.warnings.setVisible(bool(found.warnings))
        self._show_summary()
        several = any(predictions.multi_label for predictions in found.predictions)
        self.counts_label.setText(SEVERAL_COUNTS_TEXT if several else COUNTS_TEXT)
        self.preview_model.several = several
        counts = category_counts(found).reset_index()
        if several:
            counts = with_no_category_row(counts, found)
        for column in counts.columns:
            if column.endswith(": share"):
                counts[column] = (100 * counts[column]).round(1).astype(str) + " %"
        self.counts_model.set_frame(counts)
        self.counts_view.resizeColumnsToContents()
        shown = min(PREVIEW_ROWS, len(frame))
        preview = predictions_table(frame, model_predictions(found), 0, shown)
        for column in preview.columns:
            if ": probability " in str(column):
                preview[column] = [f"{100 * value:.1f} %" if value == value else "" for value in preview[column]]
        self.preview_model.set_frame(preview)
        self.preview_view.resizeColumnsToContents()
        for position in range(preview.shape[1]):
            self.preview_view.setColumnWidth(position, min(self.preview_view.columnWidth(position), 280))
        self.preview_label.setText(f"The first {shown:,} of {len(frame):,} rows, with the answers at the right:")
        self.answers_box.show()

    def _show_summary(self) -> None:
        found, frame, source = self.found, self._predicted_frame, self._predicted_source
        empty = found.predictions[0].n_empty
        where = html.escape(source.name) if source is not None else "the uncoded rows of your table"
        since = self._coded_since(frame) if source is None else 0
        self.summary.setText(
            f"<b>{len(frame) - empty:,} texts predicted</b> from {where} by {', '.join(found.models)}"
            + (f". {empty:,} empty {'text gets' if empty == 1 else 'texts get'} no prediction." if empty else ".")
            + (f" {since:,} of {'this text has' if since == 1 else 'these texts have'} been coded since: to leave "
               "them out, use the uncoded rows of your table again and press Predict." if since else "")
        )

    def _coded_since(self, frame: pd.DataFrame) -> int:
        """How many of the table's rows predicted here are no longer among its uncoded rows as last
        counted (coded since, on the Coding step or in a reloaded file)."""
        own = self.source.own_rows
        return 0 if own is None else len(frame.index.difference(own))

    def _clear_answers(self) -> None:
        self.found, self._predicted_frame, self._predicted_source = None, None, None
        self.answers_box.hide()

    # -- saving ---------------------------------------------------------------------------------------------
    def choose_save_path(self) -> None:
        if self.found is None:
            return
        study_files = study_data_files(self.result)
        source = self._predicted_source
        name = (proposed_name(source, "TextLab predictions", ".xlsx") if source
                else proposed_name(study_files[0] if study_files else None, "TextLab predictions of uncoded texts", ".xlsx"))
        protected = [source, *study_files]
        path, _ = ask_save_path(self, "Save the predictions", name, ";;".join(SAVE_FILTERS), protected=protected)
        if path:
            self.save_to(path)

    def save_to(self, path: Path) -> None:
        """Write the predictions to ``path`` (the dialog has asked before replacing a file)."""
        from guiapp.core.export.prediction_files import write_predictions

        assert self.found is not None and self._predicted_frame is not None
        protected = [p for p in (self._predicted_source,) if p is not None]
        worker = Worker(write_predictions, path, self._predicted_frame, self.found, result=self.result,
                        overwrite=True, protected=protected, name="save predictions")
        worker.signals.finished.connect(lambda written: self.statusMessage.emit(f"Saved the predictions to {written}"))
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Saving the predictions"))
        worker.signals.done.connect(self._save_done)
        self.save_progress.show()
        self.save_progress.attach(worker, f"Writing {path.name}…")
        self.save_button.setEnabled(False)
        self._save_slot.start(worker)

    def _save_done(self) -> None:
        self.save_progress.hide()
        self.save_button.setEnabled(True)

    # -- state -----------------------------------------------------------------------------------------------
    def _not_ready_reason(self) -> str:
        if self.source.frame is None:
            return "Choose the texts to predict first."
        if not self.source.text_columns():
            return "Tick the column that holds the texts."
        if not self.chosen_models():
            return "Tick at least one model."
        return ""

    def _inputs_changed(self) -> None:
        self._update_top_words_note()
        reason = self._not_ready_reason()
        busy = self._predict_slot.is_busy()
        self.predict_button.setEnabled(not reason and not busy)
        if reason:
            self.ready_label.setText(reason)
        elif self.source.frame is not None:
            n = len(self.chosen_models())
            self.ready_label.setText(f"{len(self.source.frame):,} texts from {self.source.source_name()} · "
                                     f"{n} {'model' if n == 1 else 'models'}")

    def _slow_chosen(self) -> list[str]:
        """The ticked models whose words take long to find (not an exact calculation)."""
        from guiapp.core.explain.top_words import quick_in_result

        if self.result is None:
            return []
        by_name = {model.name: model for model in self.result.models}
        return [name for name in self.chosen_models() if name in by_name and not quick_in_result(
            by_name[name].representation, by_name[name].classifier, by_name[name].chosen_params)]

    def _language_models_chosen(self) -> list[str]:
        """The ticked language models with your codebook, and combined models with one among their
        parts: each answer is a pass of a generative language model over the whole prompt, so
        predicting itself takes long."""
        if self.result is None:
            return []
        by_name = {model.name: model for model in self.result.models}

        def reads_prompts(model: ModelResult) -> bool:
            if model.representation == CODEBOOK_LLM:
                return True
            parts = model.combination.parts if model.combination is not None else []
            return any(part in by_name and by_name[part].representation == CODEBOOK_LLM for part in parts)

        return [name for name in self.chosen_models() if name in by_name and reads_prompts(by_name[name])]

    def _update_top_words_note(self) -> None:
        slow = self._slow_chosen() if self.top_words_box.isChecked() else []
        texts = f"{len(self.source.frame):,} texts" if self.source.frame is not None else "each text"
        notes = []
        language_models = self._language_models_chosen()
        if language_models:
            notes.append(
                f"{', '.join(language_models)} {'answers' if len(language_models) == 1 else 'answer'} with a "
                "language model with your codebook, which reads its whole prompt (your codebook, its examples and "
                f"the text) for every one of the {texts}: this takes far longer than the other models, above all on "
                "a computer without a graphics card. TextLab first measures how long it will take and asks when it "
                "is more than a minute; the progress bar shows the time left, and Cancel stops it.")
        if slow:
            notes.append(
                f"For {', '.join(slow)} the word scores cannot be read off the model directly: TextLab works them "
                f"out (for a combined model, from each of its parts), so for {texts} this takes longer than "
                "predicting. When it would take more than a minute, TextLab first says how long and asks; the "
                f"progress bar shows the time left, and Cancel stops it. {QUICK_TOP_WORDS}")
        self.top_words_note.setText("\n\n".join(notes))
        self.top_words_note.setVisible(bool(notes))

    @staticmethod
    def _model_label(model: ModelResult, best: bool) -> str:
        test = model.test
        score = f"agreement (macro-F1) {test.macro_f1:.2f}" if test is not None else "not tested"
        if test is not None and test.macro_f1_ci:
            score += f" ({test.macro_f1_ci[0]:.2f}–{test.macro_f1_ci[1]:.2f})"
        return f"{model.name} — {score}" + ("  ★ best" if best else "")
