"""Why a model decided as it did, under the document on the Documents step: the words coloured
by how much they pushed toward or away from a chosen category, the Transformer's attention, and,
over all test documents, the words each category relies on — computed in the background with
progress and Cancel, cached, and exported as an HTML page and CSV tables."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.events import EventCallback
from guiapp.core.experiment import ExperimentResult, ModelResult
from guiapp.core.explain.cache import ExplanationCache, explanations_folder
from guiapp.core.explain.document_names import name_test_documents
from guiapp.core.export.corpus_words_export import write_corpus_words_csv
from guiapp.core.export.target import study_data_files
from guiapp.core.models.llm.codebook_options import CODEBOOK_LLM
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.predict.trained_model import TrainedModel
from guiapp.ui.steps.documents.attention_heatmap import AttentionView
from guiapp.ui.steps.documents.corpus_words_view import CorpusWordsView
from guiapp.ui.common.flow_layout import FlowRow, together
from guiapp.ui.steps.documents.highlighted_text import HighlightedText
from guiapp.ui.common.job_progress import JobProgress
from guiapp.ui.common.long_job_warning import LongJobCheck
from guiapp.ui.steps.documents.short_combo import fit_list, short_combo
from guiapp.ui.common.save_dialogs import ask_save_path, proposed_name
from guiapp.ui.common.scroll_area import ScrollArea
from guiapp.ui import theme
from guiapp.workers import Worker, WorkerSlot

if TYPE_CHECKING:
    from guiapp.core.explain.explain_jobs import CorpusExplanation, DocumentExplanation

MODEL_ANSWER = "the model's answer"
FIRST_CATEGORY = "its first category"  # several categories per text: the first it gave, else the most likely
ALL_TIP = ("Explain every test document for the chosen model, then list the words each category relies on. "
           "Explanations already made are reused.")
SEVERAL_ALL_TIP = ("Explain every test document for the chosen model toward each category it gave the text (texts "
                   "it gave none are left out), then list the words each category relies on. Explanations already "
                   "made are reused.")
LANGUAGE_MODEL_NOTE = (
    "A language model with your codebook is explained by leaving each word out and asking it again: every word "
    "is one more reading of the whole prompt (your codebook, its examples and the text), so a long document takes "
    "a while, minutes without a graphics card. Cancel stops it.")
LANGUAGE_MODEL_ATTENTION = (
    "Not shown for a language model with your codebook: it answers after reading the whole prompt, not the text "
    "alone, and a language-model server gives no attention. Which words mattered is shown by leaving them out.")
CATEGORY_TIP = "Colour the words by how much they pushed the model toward this category."
SEVERAL_CATEGORY_TIP = (
    "A text can have several categories, and the model gives each its own chance. The colours show which words "
    "raised (red) or lowered (blue) the chance of the category chosen here. “its first category”: the first "
    "category the model gave the text or, if it gave none, the one it found most likely.")


def _opened(models: dict[str, TrainedModel], name: str, folder: Path) -> TrainedModel:
    """The model called ``name``, opened once (in the worker: a Transformer takes seconds)."""
    if name not in models:
        models[name] = open_trained_model(folder, name)
    return models[name]


def explain_document_job(models, name, folder, text, target, steps, cache, on_event: EventCallback):
    from guiapp.core.explain.explain_jobs import explain_one

    model = _opened(models, name, folder)
    found = explain_one(model, text, target, steps=steps, cache=cache, attention=True, on_event=on_event)
    cache.save()  # so that saving the project (or an autosave) carries it
    return found


def estimate_all_job(models, name, folder, texts, steps, cache, on_event: EventCallback):
    from guiapp.core.explain.job_estimate import estimate_explaining

    return estimate_explaining(_opened(models, name, folder), texts, steps=steps, cache=cache, on_event=on_event)


def explain_all_job(models, name, folder, texts, categories, steps, cache, on_event: EventCallback):
    from guiapp.core.explain.explain_jobs import explain_all

    model = _opened(models, name, folder)
    found = explain_all(model, texts, categories, steps=steps, cache=cache, on_event=on_event)
    cache.save()
    return found


class ExplanationPanel(QWidget):
    errorRaised = Signal(object, str)
    statusMessage = Signal(str)
    widthWanted = Signal(int)  # pixels the tab shown needs to show its content whole (0: any width)

    def __init__(self, parent: QWidget | None = None, session=None) -> None:  # noqa: ANN001 — a StudySession
        super().__init__(parent)
        self.session = session  # "Explain all" hands its explanations to the study (the Excel export uses them)
        self.result: ExperimentResult | None = None
        self._folder_of: Callable[[ModelResult], Path | None] = lambda _m: None
        self._models: dict[str, TrainedModel] = {}
        self._cache = ExplanationCache()
        self._slot = WorkerSlot(self)  # one job at a time: a model is never used by two threads
        self._text: str | None = None
        self.corpus: CorpusExplanation | None = None
        self.explanation: DocumentExplanation | None = None

        self.model_combo = short_combo("explainModel", 16)
        self.model_combo.setToolTip("The model whose decision is explained.")
        self.category_combo = short_combo("explainCategory", 16)
        self.category_combo.setToolTip(CATEGORY_TIP)
        self.steps_spin = QSpinBox(objectName="explainSteps")
        self.steps_spin.setRange(10, 300)
        self.steps_spin.setValue(50)
        self.steps_label = QLabel("Steps:")
        tip = ("Fine-tuned Transformers are explained by integrated gradients, which compare the text with a text "
               "of blanks in this many small steps: more steps are more exact and slower.")
        self.steps_spin.setToolTip(tip)
        self.steps_label.setToolTip(tip)
        for combo in (self.model_combo, self.category_combo):
            combo.activated.connect(lambda _i: self.explain_current())
        self.steps_spin.editingFinished.connect(self.explain_current)
        controls = FlowRow(spacing=8)  # "Why did [model] choose [category]" wraps in a narrow pane
        controls.add_widget(together(QLabel("Why did"), self.model_combo))
        # several categories per text: "Why did [model] give [category] its chance"
        self.choose_label, self.chance_label = QLabel("choose"), QLabel("its chance")
        self.chance_label.hide()
        controls.add_widget(together(self.choose_label, self.category_combo, self.chance_label))
        self.steps_box = together(self.steps_label, self.steps_spin)
        controls.add_widget(self.steps_box)
        self.progress = JobProgress()
        self.progress.hide()
        self._long_job = LongJobCheck(self, self._slot, self.progress, "Explaining all test documents",
                                      lambda error: self.errorRaised.emit(error, "Explaining all test documents"),
                                      lambda: None)

        self.words = HighlightedText()
        self.attention = AttentionView()
        self.corpus_view = CorpusWordsView()
        self.all_button = QPushButton("Explain all test documents", objectName="explainAll", toolTip=ALL_TIP,
                                      clicked=self.explain_all)
        self.export_button = QPushButton(
            "Save explanations…", objectName="exportExplanations", enabled=False, clicked=self.choose_export_path,
            toolTip="Save the explained documents as a web page anyone can open, with a CSV table of the top words "
                    "and one of how faithful the explanations are.")
        corpus_tab = QWidget()
        corpus = QVBoxLayout(corpus_tab)
        buttons = FlowRow()
        buttons.add_widget(self.all_button)
        buttons.add_widget(self.export_button)
        corpus.addWidget(buttons)
        corpus.addWidget(self.corpus_view, 1)
        # the words' chart and table side by side need more width than a narrow pane: only this tab scrolls then
        corpus_scroll = ScrollArea(corpus_tab, name="corpusWordsScroll")
        self.tabs = QTabWidget(objectName="explainTabs")
        self.tabs.addTab(self.words, "Why this answer")
        self.tabs.addTab(self.attention, "Attention")
        self.tabs.addTab(corpus_scroll, "Across all documents")
        # said once the tab has changed (resizing the page while the tab widget switches tabs crashes Qt)
        self.tabs.currentChanged.connect(lambda _tab: QTimer.singleShot(0, self._tell_width))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # a language model with your codebook: why one document takes long, said before it does
        self.method_note = QLabel(LANGUAGE_MODEL_NOTE, objectName="explainMethodNote", wordWrap=True)
        self.method_note.setStyleSheet(theme.NOTE_STYLE)
        self.method_note.hide()
        layout.addWidget(controls)
        layout.addWidget(self.method_note)
        layout.addWidget(self.progress)
        layout.addWidget(self.tabs, 1)

    def wanted_width(self) -> int:
        """The width the shown tab needs: the words of all documents (a chart beside a table) need
        more than a narrow reading pane has; the other tabs fit any width (0)."""
        scroll = self.tabs.currentWidget()
        if not isinstance(scroll, QScrollArea) or scroll.widget() is None:
            return 0
        return scroll.widget().minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 8

    def _tell_width(self) -> None:
        self.widthWanted.emit(self.wanted_width())

    # -- what the page tells the panel ------------------------------------------------------------------
    def set_result(self, result: ExperimentResult | None, folder_of: Callable[[ModelResult], Path | None]) -> None:
        self.cancel_jobs()
        self.result, self._folder_of = result, folder_of
        self._models, self.corpus, self.explanation, self._text = {}, None, None, None
        self._cache = ExplanationCache(explanations_folder(result))
        self.model_combo.clear()
        self.category_combo.clear()
        if result is not None:
            for model in result.ranked():
                folder = folder_of(model)
                if folder is not None and folder.is_dir():
                    self.model_combo.addItem(model.name, model.name)
            several = result.multi_label
            self.category_combo.addItem(FIRST_CATEGORY if several else MODEL_ANSWER, None)
            for index, category in enumerate(result.categories):
                self.category_combo.addItem(f"“{category}”", index)
        several = result is not None and result.multi_label
        self.choose_label.setText("give" if several else "choose")
        self.chance_label.setVisible(several)
        self.category_combo.setToolTip(SEVERAL_CATEGORY_TIP if several else CATEGORY_TIP)
        self.all_button.setToolTip(SEVERAL_ALL_TIP if several else ALL_TIP)
        self.words.clear("Select a document to see which words pushed the model's answer.")
        self.attention.clear()
        self.corpus_view.clear()
        self.export_button.setEnabled(False)
        self._update_controls()

    def choose_model(self, name: str) -> None:
        index = self.model_combo.findData(name)
        if index >= 0 and index != self.model_combo.currentIndex():
            self.model_combo.setCurrentIndex(index)
            self.explain_current()

    def show_document(self, text: str | None) -> None:
        self._text = text
        self.explain_current()

    def is_busy(self) -> bool:
        return self._slot.is_busy()

    def cancel_jobs(self) -> None:
        self._slot.cancel()
        if self._slot.current is not None:
            self._slot.current.wait(10_000)

    # -- one document ---------------------------------------------------------------------------------------
    def _chosen(self) -> tuple[str, Path] | None:
        name = self.model_combo.currentData()
        if name is None or self.result is None:
            return None
        model = next((m for m in self.result.models if m.name == name), None)
        folder = self._folder_of(model) if model is not None else None
        return (name, folder) if folder is not None else None

    def explain_current(self) -> None:
        chosen = self._chosen()
        self._update_controls()
        if chosen is None:
            self.words.clear("None of this study's models was saved, so none can be explained. Run the study again.")
            return
        if not self._text or not self._text.strip():
            self.words.clear("This document has no text to explain." if self._text is not None else
                             "Select a document to see which words pushed the model's answer.")
            return
        name, folder = chosen
        worker = Worker(explain_document_job, self._models, name, folder, self._text,
                        self.category_combo.currentData(), self.steps_spin.value(), self._cache, name="explain")
        text = self._text
        worker.signals.finished.connect(lambda found, w=worker: self._explained(w, text, found))
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Explaining the document"))
        worker.signals.done.connect(lambda w=worker: self._job_done(w))
        self.words.clear("Working out which words mattered…")
        self.progress.show()
        self.progress.attach(worker, "Explaining…")
        self._slot.start(worker)

    def _explained(self, worker: Worker, text: str, found: DocumentExplanation) -> None:
        if worker is not self._slot.current:
            return
        self.explanation = found
        self.words.show_attribution(text, found.attribution, found.faithfulness)
        if found.attention is not None:
            self.attention.show_maps(found.attention)
        else:
            self.attention.clear()

    def _job_done(self, worker: Worker) -> None:
        if self._slot.current in (None, worker):
            self.progress.hide()

    # -- all documents -----------------------------------------------------------------------------------------
    def explain_all(self) -> None:
        chosen = self._chosen()
        if chosen is None or self.result is None:
            return
        name, folder = chosen
        if self._long_job.should_estimate():  # first how long it will take; asked when over a minute
            self._long_job.estimate_then(estimate_all_job, self._models, name, folder, list(self.result.test_texts),
                                         self.steps_spin.value(), self._cache, start=self.explain_all)
            return
        worker = Worker(explain_all_job, self._models, name, folder, list(self.result.test_texts),
                        list(self.result.categories), self.steps_spin.value(), self._cache, name="explain all")
        worker.signals.finished.connect(lambda found, w=worker: self._all_explained(w, found))
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Explaining all test documents"))
        worker.signals.done.connect(lambda w=worker: self._job_done(w))
        self.progress.show()
        self.progress.attach(worker, "Explaining all test documents…")
        self.tabs.setCurrentIndex(2)
        self._slot.start(worker)

    def _all_explained(self, worker: Worker, found: CorpusExplanation) -> None:
        if worker is not self._slot.current:
            return
        if self.result is not None and len(self.result.test_rows) == len(self.result.test_texts):
            # named by spreadsheet row and ID in the saved pages, their tables and the workbook
            found.documents = name_test_documents(found.documents, self.result, found.positions or None)
        self.corpus = found
        if self.session is not None:
            self.session.set_explained_documents(found.documents)
        if found.words is not None:
            self.corpus_view.show_words(found.words)
        self.export_button.setEnabled(bool(found.documents))
        if self.result is not None and self.result.multi_label:
            explained = len(set(found.positions))
            left = (f"; {found.unexplained:,} the model gave no category were left out" if found.unexplained else "")
            self.statusMessage.emit(f"Explained {explained:,} test documents, toward each category the model gave "
                                    f"them ({len(found.documents):,} explanations){left}.")
        else:
            self.statusMessage.emit(f"Explained {len(found.documents):,} test documents.")

    # -- export ---------------------------------------------------------------------------------------------------
    def choose_export_path(self) -> None:
        if self.corpus is None:
            return
        data_files = study_data_files(self.result)
        name = proposed_name(data_files[0] if data_files else None, "TextLab explanations", ".html")
        path, _ = ask_save_path(self, "Save the explanations", name, "Web page (*.html)", protected=data_files)
        if path:
            self.export_to(path)

    def export_to(self, path: Path) -> list[Path]:
        """The HTML page and, beside it, the top words and the faithfulness as CSV (asked before replacing)."""
        # the writers load pandas: on the first export, not when the window opens
        from guiapp.core.export.attributions_html import write_attributions_html
        from guiapp.core.export.attributions_table import write_attributions_csv, write_faithfulness_csv

        assert self.corpus is not None
        path = path if path.suffix.lower() == ".html" else path.with_name(path.name + ".html")
        documents = self.corpus.documents
        model = self.model_combo.currentText()
        keep = study_data_files(self.result)  # never written over
        try:
            words, least = self.corpus.words, self.corpus_view.min_documents()  # as the view shows them
            written = [
                write_attributions_html(path, documents, f"Why {model} decided as it did", overwrite=True,
                                        protected=keep, words=words, min_documents=least),
                write_attributions_csv(path.with_name(path.stem + " - top words.csv"), documents, overwrite=True,
                                       protected=keep),
                write_faithfulness_csv(path.with_name(path.stem + " - faithfulness.csv"), documents, overwrite=True,
                                       protected=keep),
            ]
            if words is not None:
                written.append(write_corpus_words_csv(path.with_name(path.stem + " - words per category.csv"), words,
                                                      least, overwrite=True, protected=keep))
        except Exception as error:  # shown in the error dialog; nothing half-written stays
            self.errorRaised.emit(error, "Saving the explanations")
            return []
        self.statusMessage.emit(f"Saved the explanations to {path}")
        return written

    def _update_controls(self) -> None:
        name = self.model_combo.currentData()
        model = next((m for m in self.result.models if m.name == name), None) if self.result and name else None
        transformer = model is not None and model.representation == "transformer"
        language_model = model is not None and model.representation == CODEBOOK_LLM
        self.steps_box.setVisible(transformer)
        self.method_note.setVisible(language_model)
        self.tabs.setTabEnabled(1, transformer)
        self.tabs.setTabToolTip(1, "" if transformer else LANGUAGE_MODEL_ATTENTION if language_model else
                                "Attention exists only in fine-tuned Transformers.")
        self.all_button.setEnabled(name is not None)
        for combo in (self.model_combo, self.category_combo):
            fit_list(combo)
