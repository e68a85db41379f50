"""The Coding step: code the table's uncoded texts one after another with the keyboard, TextLab
suggesting which text to code next, retraining a quick model in the background, saying when
coding more will change little, and pointing to the codings the models doubt.

Every coding goes into the study session's record (``CodingLog``): the spreadsheet is never
changed, and the project (autosaved after every coding) keeps them.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.coding.codebook import CodebookCategory
from guiapp.core.coding.quick_model import BAG_OF_WORDS, KIND_WORDS, KINDS
from guiapp.core.coding.strategies import STRATEGIES, STRATEGY_WORDS
from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.widgets.codebook_card import CodebookCard
from guiapp.ui.widgets.codebook_editor import CodebookEditor
from guiapp.ui.widgets.coding_progress import CodingProgress
from guiapp.ui.widgets.coding_text_view import CodingTextView
from guiapp.ui.widgets.empty_state import EmptyState
from guiapp.ui.widgets.review_panel import ReviewPanel
from guiapp.ui.widgets.save_dialogs import ask_save_path, proposed_name
from guiapp.ui.widgets.scroll_area import fill
from guiapp.workers import Worker, WorkerSlot

CODER_KEY = "coding/coder"
AUTO_WORDS = ("Suggested", "At random until two categories have five codings each, then where the model is least sure.")


def snapshot(log):  # noqa: ANN001, ANN201 — a CodingLog
    """A copy of the record for a job in the background (coding goes on meanwhile)."""
    from guiapp.core.coding.codings import CodingLog

    return CodingLog(log.entries)


def _export_job(path, table, mapping, log, codebook, coding_texts, on_event):  # noqa: ANN001, ANN202
    from guiapp.core.export.codings_export import write_codings

    return write_codings(path, table, mapping, log, codebook=codebook, coding_texts=coding_texts, on_event=on_event)


class CodingPage(QWidget):
    statusMessage = Signal(str)
    errorRaised = Signal(object, str)

    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent)
        self.session = session or StudySession(self)
        self.loop = None  # CodingLoop over the table's uncoded texts, once a table with texts is open
        self.current = None  # the Suggestion on screen
        self._retrain_slot = WorkerSlot()
        self._review_slot = WorkerSlot()
        self._export_slot = WorkerSlot()
        self._pool_key: tuple | None = None
        self._file_categories: dict = {}  # row → the category the file gives it
        self._metadata_columns: list[str] = []

        self.empty = EmptyState("No texts to code yet",
                                "Open your texts on the Data step and choose the column that holds them.", "coding")
        self.content = self._build_content()
        layout = fill(self, self.content)
        layout.addWidget(self.empty)
        self.content.hide()

        session = self.session
        self.statusMessage.connect(session.say)
        self.errorRaised.connect(session.report_error)
        session.dataChanged.connect(self._data_changed)
        session.codingsChanged.connect(self._codings_changed)
        session.codebookChanged.connect(self._codebook_changed)

    # -- building -------------------------------------------------------------------------------------
    def _build_content(self) -> QWidget:
        panel = QWidget()
        title = QLabel("Code texts", objectName="codingTitle")
        title.setStyleSheet(theme.heading_style(18))
        intro = QLabel("Code the texts nobody has coded yet, one after another: press the number of a category "
                       "(S skips, Z undoes, F flags). TextLab suggests which text to code next and learns from "
                       "every coding; your spreadsheet is never changed.")
        intro.setWordWrap(True)
        intro.setStyleSheet(theme.MUTED_STYLE)

        self.coder_edit = QLineEdit(str(QSettings().value(CODER_KEY, "") or ""), objectName="coderName")
        self.coder_edit.setPlaceholderText("your name or initials")
        self.coder_edit.setToolTip("Recorded with every coding, so that two coders' work can be told apart.")
        self.coder_edit.setMaximumWidth(180)
        self.coder_edit.editingFinished.connect(lambda: QSettings().setValue(CODER_KEY, self.coder_edit.text().strip()))
        self.strategy_combo = QComboBox(objectName="codingStrategy")
        self.strategy_combo.addItem(AUTO_WORDS[0], "auto")
        self.strategy_combo.setItemData(0, AUTO_WORDS[1], Qt.ItemDataRole.ToolTipRole)
        for name in STRATEGIES:
            label, tip = STRATEGY_WORDS[name]
            self.strategy_combo.addItem(label, name)
            self.strategy_combo.setItemData(self.strategy_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.strategy_combo.setToolTip("How TextLab chooses the next text. Every choice is recorded with the chance "
                                       "it had, so that shares estimated later can correct for it.")
        self.strategy_combo.currentIndexChanged.connect(self._strategy_chosen)
        self.kind_combo = QComboBox(objectName="codingModel")
        for kind in KINDS:
            label, tip = KIND_WORDS[kind]
            self.kind_combo.addItem(label, kind)
            self.kind_combo.setItemData(self.kind_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(BAG_OF_WORDS))
        self.kind_combo.setToolTip("The quick model that learns while you code and suggests the next text.")
        self.kind_combo.currentIndexChanged.connect(lambda _i: self._rebuild_loop(force=True))
        self.export_button = QPushButton("Export codings…", objectName="exportCodings")
        self.export_button.setToolTip("Save your table with every coding made here (coder, time, how the text was "
                                      "chosen, flags) as an Excel or CSV file. Your spreadsheet is not changed.")
        self.export_button.clicked.connect(self.choose_export_path)
        bar = QHBoxLayout()
        for widget in (QLabel("Coder:"), self.coder_edit, QLabel("Next text:"), self.strategy_combo,
                       QLabel("Learning model:"), self.kind_combo):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(self.export_button)

        self.text_view = CodingTextView()
        self.text_view.coded.connect(self.code)
        self.text_view.skipped.connect(self.skip)
        self.text_view.undoRequested.connect(self.undo)
        self.text_view.flagged.connect(self.flag)
        self.text_view.categoryHovered.connect(
            lambda name: self.card.show_category(self.session.codebook.category(name) or CodebookCategory(name)))
        self.card = CodebookCard()
        self.progress = CodingProgress()
        side = QWidget()
        side_column = QVBoxLayout(side)
        side_column.setContentsMargins(8, 0, 0, 0)
        side_column.addWidget(self.card)
        side_column.addWidget(self.progress, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.text_view)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)

        self.codebook_editor = CodebookEditor()
        self.codebook_editor.changed.connect(self.session.edit_codebook)
        self.review_panel = ReviewPanel()
        self.review_panel.keep.connect(self._keep_coding)
        self.review_panel.change.connect(self._change_coding)
        self.review_button = QPushButton("Check the codings", objectName="checkCodings")
        self.review_button.setToolTip("Look for codings that the quick model, trained without each text, "
                                      "confidently places in another category.")
        self.review_button.clicked.connect(self.review)
        review_tab = QWidget()
        review_column = QVBoxLayout(review_tab)
        review_column.addWidget(self.review_button, 0, Qt.AlignmentFlag.AlignLeft)
        review_column.addWidget(self.review_panel, 1)

        self.tabs = QTabWidget(objectName="codingTabs")
        self.tabs.addTab(splitter, "Code")
        self.tabs.addTab(self.codebook_editor, "Codebook")
        self.tabs.addTab(review_tab, "Codings to check")
        column = QVBoxLayout(panel)
        column.setContentsMargins(24, 16, 24, 12)
        column.addWidget(title)
        column.addWidget(intro)
        column.addLayout(bar)
        column.addWidget(self.tabs, 1)
        return panel

    # -- the pool -------------------------------------------------------------------------------------
    def _data_changed(self) -> None:
        self._rebuild_loop()

    def _rebuild_loop(self, force: bool = False) -> None:
        """A table with its text column: the loop over its uncoded rows (kept while they stay the same)."""
        from guiapp.core.coding.coding_loop import CodingLoop
        from guiapp.core.coding.codings import file_categories
        from guiapp.core.predict.new_texts import texts_of

        session = self.session
        frame, mapping = session.frame, session.mapping
        usable = frame is not None and bool(mapping.text_columns)
        self.content.setVisible(usable)
        self.empty.setVisible(not usable)
        if not usable:
            self.loop, self._pool_key = None, None
            return
        key = (id(frame), tuple(mapping.text_columns), mapping.category_column, self.kind_combo.currentData())
        if key == self._pool_key and not force:
            return
        self._retrain_slot.cancel()
        try:
            texts = texts_of(frame, mapping)
        except UserError as error:  # column roles that do not fit the table (yet): say so, code nothing
            self.loop, self.current, self._pool_key = None, None, None
            self.text_view.show_empty(str(error))
            return
        rows = list(frame.index)
        self._file_categories = file_categories(frame, mapping)
        uncoded = [row for row in rows if row not in self._file_categories]
        by_row = dict(zip(rows, texts, strict=True))
        self._metadata_columns = [c for c in frame.columns if c not in {*mapping.text_columns, mapping.category_column}]
        self._pool_key = key
        self.loop, self.current = None, None
        self.review_button.setEnabled(bool(uncoded))
        if not uncoded:
            self.text_view.show_empty("Every text of your table is coded already: there is nothing left to code here.")
            return
        self.loop = CodingLoop(uncoded, [by_row[row] for row in uncoded], table_texts=by_row,
                               kind=self.kind_combo.currentData(), strategy=self.strategy_combo.currentData())
        self._codebook_changed()
        self._show_next()
        self._retrain_if_due()

    def _row_names(self) -> dict:
        """Row → the row Excel shows for it."""
        from guiapp.core.tables.rows import spreadsheet_rows

        frame = self.session.frame
        return dict(zip(frame.index, spreadsheet_rows(frame), strict=True)) if frame is not None else {}

    def _categories(self) -> list[str]:
        """The categories offered: the codebook's, then the file's, then those coded here."""
        names = list(self.session.codebook.names())
        for category in [*sorted(set(self._file_categories.values())), *self.session.codings.counts()]:
            if category not in names:
                names.append(category)
        return names

    # -- coding ---------------------------------------------------------------------------------------
    def _coder(self) -> str | None:
        name = self.coder_edit.text().strip()
        if not name:
            name, ok = QInputDialog.getText(self, "Who is coding?", "Your name or initials, recorded with every coding:")
            name = name.strip() if ok else ""
            if not name:
                return None
            self.coder_edit.setText(name)
            QSettings().setValue(CODER_KEY, name)
        return name

    def code(self, category: str) -> None:
        self._record(category)

    def skip(self) -> None:
        self._record(None)

    def _record(self, category: str | None) -> None:
        suggestion, coder = self.current, self._coder() if self.current is not None else None
        if suggestion is None or coder is None:
            return
        self.session.codings.record(
            suggestion.row, category, coder=coder, chosen_by=suggestion.choice.strategy,
            probability=suggestion.choice.probability, source=suggestion.source,
            file_category=self._file_categories.get(suggestion.row))
        self.session.codings_changed()
        self._show_next()
        self._retrain_if_due()

    def undo(self) -> None:
        undone = self.session.codings.undo()
        if undone is None:
            self.statusMessage.emit("Nothing to undo.")
            return
        self.session.codings_changed()
        shown = self._row_names().get(undone.row, undone.row)
        self.statusMessage.emit(f"Undid the coding of row {shown}.")
        self._show_next(again=undone)

    def flag(self, flag: str, comment: str) -> None:
        coder = self._coder()
        if self.current is None or coder is None:
            return
        self.session.codings.flag(self.current.row, flag, comment, coder=coder, source=self.current.source)
        self.session.codings_changed()
        self.statusMessage.emit(f"Flagged: {flag}" + (f" — {comment}" if comment else ""))

    def _show_next(self, again=None) -> None:  # noqa: ANN001 — a Coding just undone: its text comes back
        loop = self.loop
        if loop is None:
            return
        suggestion = self._shown_again(again) if again is not None else None
        if suggestion is None:
            suggestion = loop.next_text(self.session.codings, self._file_categories)
        self.current = suggestion
        if suggestion is None:
            self.text_view.show_empty("Every text of your table is coded. Export the codings, or go on to the models.")
            return
        frame = self.session.frame
        metadata = {column: frame.at[suggestion.row, column] for column in self._metadata_columns} \
            if frame is not None and suggestion.row in frame.index else {}
        self.text_view.show_text(suggestion.text, metadata, self._categories(), reason=suggestion.reason)

    def _shown_again(self, undone):  # noqa: ANN001, ANN202 — a Coding; a Suggestion or None
        """The text whose coding was undone, as it was chosen: the same way and with the same
        probability, so that coding it again records what really happened. None when it is not a
        text of the pool (e.g. a coding of the file changed on "Codings to check")."""
        from guiapp.core.coding.coding_loop import Suggestion
        from guiapp.core.coding.strategies import Choice

        loop = self.loop
        if undone.source != loop.source or undone.probability is None:
            return None
        position = loop.pool.position(undone.row, loop.source)
        if position is None or position >= loop.pool.n_pool:  # a coded text of the file, not one to code
            return None
        return Suggestion(undone.row, Choice(position, undone.probability, undone.chosen_by), "shown again after Undo",
                          loop.source, loop.pool.text(undone.row, loop.source))

    def _strategy_chosen(self, _index: int) -> None:
        if self.loop is not None:
            self.loop.set_strategy(self.strategy_combo.currentData())
            self._show_next()

    # -- the quick model ------------------------------------------------------------------------------
    def _retrain_if_due(self) -> None:
        loop = self.loop
        # one retraining at a time: a job counts until its answer was delivered (its ``done``), not only
        # while its thread runs, so a new one never cancels one whose answer is on its way
        if loop is None or self._retrain_slot.current is not None or not loop.needs_retraining(
                self.session.codings, self._file_categories):
            return
        worker = Worker(loop.retrain, snapshot(self.session.codings), dict(self._file_categories), name="retrain")
        worker.signals.finished.connect(lambda result, w=worker: self._retrained(w, result))
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Training the quick model"))
        worker.signals.done.connect(self._retrain_if_due, Qt.ConnectionType.QueuedConnection)  # after the slot let go
        self._retrain_slot.start(worker)

    def _retrained(self, worker: Worker, result) -> None:  # noqa: ANN001 — a RoundResult
        if self.loop is None or worker is not self._retrain_slot.current or not self.loop.apply(result):
            return
        self.progress.set_rounds(self.loop.stop_reading())
        self._codings_changed()

    # -- review ---------------------------------------------------------------------------------------
    def review(self) -> None:
        if self.loop is None:
            return
        worker = Worker(self.loop.review, snapshot(self.session.codings), dict(self._file_categories), name="review")
        worker.signals.finished.connect(lambda found: self.review_panel.set_review(found, row_names=self._row_names()))
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Checking the codings"))
        self._review_slot.start(worker)
        self.statusMessage.emit("Checking the codings…")

    def _keep_coding(self, row) -> None:  # noqa: ANN001
        self.statusMessage.emit(f"Kept the coding of row {row}.")

    def _change_coding(self, row, category: str) -> None:  # noqa: ANN001
        coder = self._coder()
        if coder is None:
            return
        self.session.codings.record(row, category, coder=coder, chosen_by="review",
                                    file_category=self._file_categories.get(row))
        self.session.codings_changed()

    # -- following the session --------------------------------------------------------------------------
    def _codings_changed(self) -> None:
        log = self.session.codings
        counts = {}
        if self.loop is not None:  # every category, the ones without codings too
            counts = {category: 0 for category in self._categories()}
            counts.update(self.loop.pool.coded_counts(log, self._file_categories))
        self.progress.set_counts(counts, log.per_hour())
        self.text_view.set_can_undo(len(log) > 0)

    def _codebook_changed(self) -> None:
        if self.loop is None:
            return
        codebook = self.session.codebook.with_categories(self._categories())
        if codebook.to_dict() != self.codebook_editor.codebook().to_dict():
            self.codebook_editor.set_codebook(codebook)

    # -- export ---------------------------------------------------------------------------------------
    def choose_export_path(self) -> None:
        session = self.session
        if session.table is None:
            return
        name = proposed_name(str(session.table.path), "TextLab codings", ".xlsx")
        path, _ = ask_save_path(self, "Export the codings", name, "Excel (*.xlsx);;CSV (*.csv)",
                                protected=[session.table.path])
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> None:
        session = self.session
        worker = Worker(_export_job, path, session.frame, session.mapping, snapshot(session.codings), session.codebook,
                        session.coding_texts, name="export codings")
        worker.signals.finished.connect(lambda written: self.statusMessage.emit(f"Saved the codings to {written}"))
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Exporting the codings"))
        self._export_slot.start(worker)

    def showEvent(self, event) -> None:  # noqa: ANN001, N802 — Qt's name
        super().showEvent(event)
        self.text_view.setFocus()  # the number keys code at once

    def is_busy(self) -> bool:
        """A job is running or its answer is still on its way."""
        return any(slot.current is not None for slot in (self._retrain_slot, self._review_slot, self._export_slot))

    def cancel_jobs(self) -> None:
        for slot in (self._retrain_slot, self._review_slot, self._export_slot):
            slot.cancel()
