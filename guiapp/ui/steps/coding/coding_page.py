"""The Coding step: code the table's uncoded texts one after another with the keyboard, TextLab
suggesting which text to code next, retraining a quick model in the background, saying when
coding more will change little, and pointing to the codings the models doubt.

Every coding goes into the study session's record (``CodingLog``): the spreadsheet is never
changed, and the project (autosaved after every coding) keeps them.

When a team codes (the bar above, ``team_bar.py``; "Team…", ``team_dialog.py``), the step's
machinery works on the active coder's own record (``self._codings()``, ``team_coding.py``): they
code, undo and flag only their own codings, never see another coder's, and get the texts the
team's draw gave them — or, without a draw, texts no one has coded yet.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QInputDialog,
    QLabel,
    QSplitter,
    QTabWidget,
    QWidget,
)

from guiapp.core.coding.codebook import CodebookCategory
from guiapp.core.coding.coding_record import SOURCES
from guiapp.core.coding.quick_model import EMBEDDINGS
from guiapp.core.coding.second_file import file_name
from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.steps.coding.coding_files import CodingFiles, snapshot
from guiapp.ui.session.session_page import SessionPage
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.coding.codebook_card import CodebookCard
from guiapp.ui.steps.coding.codebook_editor import CodebookEditor
from guiapp.ui.steps.coding.coding_bar import CodingBar
from guiapp.ui.steps.coding.coding_sheet_dialogs import CodingSheets
from guiapp.ui.steps.coding.coding_progress import CodingProgress
from guiapp.ui.steps.coding.coding_review_tab import CodingReviewTab
from guiapp.ui.steps.coding.coding_text_view import CodingTextView
from guiapp.ui.steps.coding.label_set_coding import (
    DRAWN_AT_RANDOM,
    INTRO,
    NO_CHECK,
    SUGGESTED,
    LabelSetCoding,
    undone_set_words,
)
from guiapp.ui.common.empty_state import EmptyState
from guiapp.ui.common.layouts import vbox
from guiapp.ui.common.scroll_area import ScrollArea, fill
from guiapp.ui.steps.coding.second_coder_panel import SecondCoderPanel
from guiapp.ui.steps.coding.team_bar import TeamBar
from guiapp.ui.steps.coding.team_coding import TeamCoding
from guiapp.ui.steps.coding.team_tabs import add_team_tabs
from guiapp.workers import Worker, WorkerSlot

TABLE, SECOND_FILE = SOURCES
GOAL_KEY = "coding/goal"
CODE_TAB, CODEBOOK_TAB, REVIEW_TAB, SECOND_CODER_TAB = range(4)


NOTHING_TO_CODE = ("No texts to code yet", "Open your texts on the Data step and choose the column that holds them.")

def undone_words(row: str, category: str | None, labels: tuple[str, ...] | None = None) -> str:
    """What Undo says: "Undone: row 12 had been coded as “health”." (or skipped; or its set of
    categories, where a text can have several)."""
    if labels is not None:
        return undone_set_words(row, labels)
    if category is None:
        return f"Undone: row {row} had been skipped."
    return f"Undone: row {row} had been coded as “{category}”."


class CodingPage(SessionPage):
    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent, session)
        self.loop = None  # CodingLoop over the table's uncoded texts, once a table with texts is open
        self.current = None  # the Suggestion on screen
        self._retrain_slot = WorkerSlot(self)
        self._review_slot = WorkerSlot(self)
        self.files = CodingFiles(self.session, self)
        self.files.statusMessage.connect(self.statusMessage)
        self.files.errorRaised.connect(self.errorRaised)
        self.files.textsRead.connect(self._texts_read)
        self._shown_formats: tuple = (None, {})  # (the frame, column → how its dates are written)
        self._texts_frame = None  # the table or the second file: where the texts on screen come from
        self._flag = ("", "")  # the flag and comment given to the text on screen, recorded with its coding
        self._pool_key: tuple | None = None
        self._retrain_when_shown = False  # a retraining waits for the step to be shown (see _retrain_if_due)
        self._failed_with: tuple | None = None  # (loop, codings) of the last retraining that failed: not tried again
        self._file_categories: dict = {}  # row → the category the file gives it
        self._drawn_from = None  # the record of codings the text on screen was drawn against
        self.team_coding = TeamCoding(self.session)  # a team's coder codes on their own record
        self.label_sets = LabelSetCoding(self.session)  # several categories per text: check boxes, drawn at random

        self.empty = EmptyState(*NOTHING_TO_CODE, "coding")
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
        session.codingCheckWanted.connect(self.check_codings)

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
        self.intro, self._one_category_intro = intro, intro.text()

        self.team_bar = TeamBar(self.team_coding)
        self.team_bar.switched.connect(lambda _coder: self._team_changed())
        self.team_bar.teamWanted.connect(self.open_team_dialog)
        self.bar = CodingBar()
        self.bar.strategyChosen.connect(self._strategy_chosen)
        self.bar.kindChosen.connect(lambda _kind: self._rebuild_loop(force=True))
        self.bar.sourceChosen.connect(lambda _source: self._rebuild_loop(force=True))
        self.bar.fileWanted.connect(self.files.choose_texts_file)
        self.bar.exportRequested.connect(self.files.choose_export_path)
        self.files.exported.connect(self.bar.show_export)
        self.sheets = CodingSheets(self.session, self, source=self.bar.source, coder=self.bar.coder)
        self.bar.sheetExportRequested.connect(self.sheets.export_sheet)
        self.bar.sheetImportRequested.connect(lambda: self.sheets.import_sheet())
        self.sheets.exported.connect(self.bar.show_export)
        self.sheets.statusMessage.connect(self.statusMessage)
        self.sheets.imported.connect(lambda _report: self._team_changed())

        self.text_view = CodingTextView()
        self.text_view.coded.connect(self.code)
        self.text_view.labelSetCoded.connect(self.code_set)
        self.text_view.skipped.connect(self.skip)
        self.text_view.undoRequested.connect(self.undo)
        self.text_view.flagged.connect(self.flag)
        self.text_view.categoryHovered.connect(
            lambda name: self.card.show_category(self.session.codebook.category(name) or CodebookCategory(name)))
        self.card = CodebookCard()
        self.card.setMinimumHeight(110)  # a long definition scrolls inside the card
        self.card.setMaximumHeight(260)
        self.progress = CodingProgress()
        self.progress.set_goal(int(QSettings().value(GOAL_KEY, self.progress.goal()) or self.progress.goal()))
        self.progress.goalChanged.connect(lambda goal: QSettings().setValue(GOAL_KEY, int(goal)))
        side = QWidget()
        vbox(side, self.card, (self.progress, 1), margins=(8, 0, 4, 0))
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.text_view)
        splitter.addWidget(ScrollArea(side, sideways=False, whole=True))  # many categories: the counts scroll, never squeeze
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)

        self.codebook_editor = CodebookEditor()
        self.codebook_editor.changed.connect(self.session.edit_codebook)
        self.review_tab = CodingReviewTab()
        self.review_tab.checkRequested.connect(self.review)
        self.review_tab.kept.connect(lambda source, row: self.statusMessage.emit(
            f"Kept the coding of row {self._shown_row(source, row)}."))
        self.review_tab.changed.connect(self._change_coding)

        self.tabs = QTabWidget(objectName="codingTabs")
        self.tabs.addTab(splitter, "Code")
        from guiapp.ui.steps.coding.codebook_tab import CodebookTab  # the editor, the versions, the re-checks
        self.codebook_tab = CodebookTab(self.session, self.codebook_editor)
        self.codebook_tab.statusMessage.connect(self.statusMessage)
        self.tabs.addTab(self.codebook_tab, "Codebook")
        self.tabs.addTab(self.review_tab, "Codings to check")
        self.second_coder = SecondCoderPanel(  # the first coder: the team's active one, when a team codes
            self.session, lambda: (self.team_coding.team.active if self.team_bar.has_team() else self.bar.coder()) or None)
        self.second_coder.statusMessage.connect(self.statusMessage)
        self.second_coder.textWanted.connect(self._show_disagreement)
        self.tabs.addTab(self.second_coder, "Second coder")
        self.tabs.setTabToolTip(SECOND_CODER_TAB, "A colleague codes a random sample of your coded texts without "
                                                  "seeing your codings; TextLab measures how far you agree.")
        self.tabs.setTabToolTip(REVIEW_TAB, "Codings the quick model, trained without each text, places in "
                                            "another category with confidence: keep or change each one.")
        self.disagreements, self.team_agreement = add_team_tabs(self.tabs, self.session, self.statusMessage.emit)
        vbox(panel, title, intro, self.team_bar, self.bar, (self.tabs, 1), margins=(24, 16, 24, 12))
        return panel

    # -- the pool -------------------------------------------------------------------------------------
    def _data_changed(self) -> None:
        self._rebuild_loop()

    def _rebuild_loop(self, force: bool = False) -> None:
        """A table with its text column: the loop over the texts to code — the table's uncoded rows or
        a second file's — kept while they stay the same."""
        session = self.session
        frame, mapping = session.frame, session.mapping
        several = self.label_sets.on
        usable = frame is not None and bool(mapping.text_columns)
        self.intro.setText(INTRO if several else self._one_category_intro)
        if usable:
            self.label_sets.show_mode(self.bar, self.progress)
        self.content.setVisible(usable)
        self.empty.setVisible(not usable)
        if not usable:
            self.loop, self._pool_key = None, None
            return
        second = session.coding_texts
        self.bar.set_second_file(file_name(second) if second is not None else None)
        key = (id(frame), tuple(mapping.text_columns), mapping.category_column, several,
               tuple(mapping.category_columns), id(second), self.bar.kind(),
               self.bar.source(), repr(self._fixes()), self.team_coding.key())
        if key == self._pool_key and not force:
            return
        self._retrain_slot.cancel()
        self._pool_key = key
        self.loop, self.current = None, None
        try:
            self.loop = self._new_loop()
        except UserError as error:  # column roles that do not fit the table (yet): say so, code nothing
            self._pool_key = None
            self.review_tab.button.setEnabled(False)
            self.text_view.show_empty(str(error))
            return
        self.review_tab.button.setEnabled(not several)
        self._codebook_changed()
        self._codings_changed()
        self._show_next()
        self._retrain_if_due()

    def _new_loop(self):  # noqa: ANN202 — a CodingLoop
        from guiapp.core.coding.coding_loop import CodingLoop
        from guiapp.core.coding.codings import file_categories
        from guiapp.core.predict.new_texts import texts_of

        session = self.session
        frame, mapping, second = session.frame, session.mapping, session.coding_texts
        table_texts = dict(zip(frame.index, texts_of(frame, mapping), strict=True))
        second_texts = dict(zip(second.index, texts_of(second, mapping), strict=True)) if second is not None else None
        self._file_categories = file_categories(frame, mapping)
        options = {"kind": self.bar.kind(), "strategy": self.bar.strategy(), "fixes": self._fixes()}
        if self.label_sets.on:  # the quick model learns one category per text: drawn at random
            self.label_sets.check_source(self.bar.source() == SECOND_FILE and second_texts is not None)
            options["strategy"] = "random"
        if self.bar.source() == SECOND_FILE and second_texts is not None:
            self._texts_frame = second
            taken = self.team_coding.taken_by_others(SECOND_FILE)
            rows = [row for row in second_texts if row not in taken]
            return CodingLoop(rows, [second_texts[row] for row in rows], source=SECOND_FILE,
                              table_texts=table_texts, **options)
        self._texts_frame = frame
        taken = self.team_coding.taken_by_others(TABLE)  # a team without a draw: texts no one has coded yet
        uncoded = [row for row in frame.index if row not in self._file_categories and row not in taken]
        return CodingLoop(uncoded, [table_texts[row] for row in uncoded], table_texts=table_texts,
                          second_file_texts=second_texts, **options)

    def _texts_read(self, texts) -> None:  # noqa: ANN001 — the second file's texts: coded next
        self.bar.set_second_file(file_name(texts))
        self.bar.set_source(SECOND_FILE)
        self._rebuild_loop()

    def open_texts_file(self, path: Path) -> None:
        self.files.open_texts_file(path)

    def export_to(self, path: Path) -> None:
        self.files.export_to(path)

    def _row_names(self, source: str = TABLE) -> dict:
        """Row → the row Excel shows for it (in the table, or in the second file)."""
        from guiapp.core.tables.rows import spreadsheet_rows

        frame = self.session.coding_texts if source == SECOND_FILE else self.session.frame
        return dict(zip(frame.index, spreadsheet_rows(frame), strict=True)) if frame is not None else {}

    def _fixes(self):  # noqa: ANN202 — the Data step's CategoryFixes, or None
        data = self.session.data_spec
        return data.category_fixes if data is not None else None

    def _categories(self) -> list[str]:
        """The categories offered: the codebook's, then the file's, then those coded here — as the
        table is now (merged spellings once; a category left out on the Data step never)."""
        from guiapp.core.coding.current_table import current_categories, left_out_names

        if self.label_sets.on:
            return self.label_sets.categories(self.session.codebook.names(), self._codings())
        fixes = self._fixes()
        left_out = left_out_names(fixes)
        names = [name for name in self.session.codebook.names() if name not in left_out]
        now = current_categories(self._file_categories, self._codings(), fixes)
        for category in [*sorted(set(now.categories.values())), *self.loop.pool.coded_counts(self._codings(), {})]:
            if category not in names:
                names.append(category)
        return names

    # -- coding ---------------------------------------------------------------------------------------
    def _codings(self):  # noqa: ANN202 — a CodingLog
        """The record the step codes into: the active coder's own when a team codes (team_coding.py)."""
        return self.team_coding.log()

    def _coder(self) -> str | None:
        if self.team_bar.has_team():
            return self.team_coding.team.active
        name = self.bar.coder()
        if not name:
            name, ok = QInputDialog.getText(self, "Who is coding?", "Your name or initials, recorded with every coding:")
            name = name.strip() if ok else ""
            if not name:
                return None
            self.bar.set_coder(name)
        return name

    def code(self, category: str) -> None:
        self._record(category)

    def code_set(self, labels: list) -> None:
        """Several categories per text: the ticked set ([] for none of these categories)."""
        self._record(None, labels=list(labels))

    def skip(self) -> None:
        self._record(None)

    def _record(self, category: str | None, labels: list | None = None) -> None:
        suggestion, coder = self.current, self._coder() if self.current is not None else None
        if suggestion is None or coder is None:
            return
        if self.loop is None or not self._is_open(suggestion):
            self._show_next()  # drawn before the codings it would repeat: never coded again by a draw
            return
        flag, comment = self._flag
        self._codings().record(
            suggestion.row, category, coder=coder, chosen_by=suggestion.choice.strategy,
            probability=suggestion.choice.probability, source=suggestion.source, flag=flag, comment=comment,
            file_category=self._file_categories.get(suggestion.row) if labels is None else None, labels=labels)
        self.current = None  # answered: the next text is drawn below, once
        self.session.codings_changed()
        self._show_next()
        self._retrain_if_due()

    def _is_open(self, suggestion) -> bool:  # noqa: ANN001 — a Suggestion
        if self.team_coding.drawn:
            return self.team_coding.is_open(self.loop, suggestion.row, suggestion.source)
        return self.loop.is_open(suggestion.row, self._codings(), self._file_categories, suggestion.source)

    def undo(self) -> None:
        undone = self._codings().undo()
        if undone is None:
            self.statusMessage.emit("Nothing to undo.")
            return
        self.session.codings_changed()
        self.statusMessage.emit(undone_words(self._shown_row(undone.source, undone.row), undone.category, undone.labels))
        self._show_next(again=undone)

    def flag(self, flag: str, comment: str) -> None:
        """Flag the text on screen; the flag is recorded with its coding (or skip), once it is answered."""
        if self.current is None:
            return
        self._flag = (flag, comment)
        self.statusMessage.emit(f"Flagged: {flag}" + (f" — {comment}" if comment else "")
                                + ". The flag is kept with your coding of this text.")

    def _show_next(self, again=None) -> None:  # noqa: ANN001 — a Coding just undone: its text comes back
        loop = self.loop
        if loop is None:
            return
        self._flag = (again.flag, again.comment) if again is not None else ("", "")
        suggestion = self._shown_again(again) if again is not None else None
        if suggestion is None:
            suggestion = (self.team_coding.next_assigned(loop) if self.team_coding.drawn
                          else self.label_sets.next_text(loop, self._codings(), self._file_categories)
                          if self.label_sets.on else loop.next_text(self._codings(), self._file_categories))
        self.current, self._drawn_from = suggestion, self._codings()
        if suggestion is None and self.team_coding.drawn:
            self.text_view.show_empty(self.team_coding.progress_words() + " Every text the draw gave you here is "
                                      "coded: switch to the next coder, or choose the other texts under “Texts”.")
            return
        if suggestion is None:
            where = "your table" if loop.source == TABLE else file_name(self.session.coding_texts)
            self.text_view.show_empty(f"Every text of {where} is coded. Export the codings, check them, or go on to "
                                      "the models: your codings count in every study.")
            return
        self._display(suggestion)

    def _display(self, suggestion) -> None:  # noqa: ANN001 — a Suggestion
        """Show the suggested text with its other columns and the categories to code it with."""
        categories = self._categories()
        if not categories:
            self.text_view.show_empty("There are no categories yet. Add yours on the Codebook tab (a name, what it "
                                      "means, example texts); then code each text with the keys 1–9.")
            return
        frame, mapping = self._texts_frame, self.session.mapping
        hidden = {*mapping.text_columns, mapping.category_column, *mapping.category_columns}
        metadata = self._shown_cells(frame, suggestion.row, [c for c in frame.columns if c not in hidden]) \
            if frame is not None and suggestion.row in frame.index else {}
        several = self.label_sets.on
        self.text_view.show_text(suggestion.text, metadata, categories,
                                 reason=DRAWN_AT_RANDOM if several and suggestion.reason == "Chosen at random."
                                 else suggestion.reason, flag=self._flag[0], comment=self._flag[1], several=several)

    def _shown_cells(self, frame, row, columns: list) -> dict:  # noqa: ANN001
        """Column → the text of ``row``'s cell, as the researcher reads it (a column of dates at
        midnight without "00:00:00"); each column's way of writing dates is found once per table."""
        from guiapp.core.tables.shown_cells import date_formats, shown_row

        kept, formats = self._shown_formats
        if kept is not frame:
            formats = date_formats(frame)
            self._shown_formats = (frame, formats)
        return shown_row(frame, row, columns, formats)

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
        reason = undone_words(self._shown_row(undone.source, undone.row), undone.category, undone.labels)
        return Suggestion(undone.row, Choice(position, undone.probability, undone.chosen_by), reason,
                          loop.source, loop.pool.text(undone.row, loop.source))

    def _strategy_chosen(self, _strategy: str) -> None:
        if self.loop is not None:
            self.loop.set_strategy(self.bar.strategy())
            self._show_next()

    # -- the quick model ------------------------------------------------------------------------------
    def _retrain_if_due(self) -> None:
        loop = self.loop
        if self.label_sets.on:  # one yes/no question per category (label_set_coding.py)
            self.label_sets.retrain_if_due(self)
            return
        # one retraining at a time: a job counts until its answer was delivered (its ``done``), not only
        # while its thread runs, so a new one never cancels one whose answer is on its way
        if loop is None or self._retrain_slot.current is not None or not loop.needs_retraining(
                self._codings(), self._file_categories):
            return
        if self._failed_with == (id(loop), len(self._codings())):  # said once; tried again after the next coding
            return
        if loop.kind == EMBEDDINGS and not self.isVisible():  # embedding a corpus takes a while: only once
            self._retrain_when_shown = True                   # the researcher codes, not on every table opened
            return
        worker = Worker(loop.retrain, snapshot(self._codings()), dict(self._file_categories), name="retrain")
        worker.signals.finished.connect(lambda result, w=worker: self._retrained(w, result))
        worker.signals.failed.connect(self._retrain_failed)
        worker.signals.done.connect(self._retrain_if_due, Qt.ConnectionType.QueuedConnection)  # after the slot let go
        self._retrain_slot.start(worker)

    def _retrain_failed(self, error: BaseException) -> None:
        self._failed_with = (id(self.loop), len(self._codings()))
        self.errorRaised.emit(error, "Training the quick model")

    def _retrained(self, worker: Worker, result) -> None:  # noqa: ANN001 — a RoundResult
        if (self.loop is None or worker is not self._retrain_slot.current or result.loop is not self.loop
                or not self.loop.apply(result)):  # a result of the texts before a reload or another file: left out
            return
        self.progress.set_rounds(self.loop.stop_reading())
        self._codings_changed()

    # -- review ---------------------------------------------------------------------------------------
    def review(self) -> None:
        if self.loop is None:
            return
        if self.label_sets.on:
            self.review_tab.panel.set_waiting(NO_CHECK)
            self.statusMessage.emit(NO_CHECK)
            return
        worker = Worker(self.loop.review, snapshot(self._codings()), dict(self._file_categories), name="review")
        worker.signals.finished.connect(self._reviewed)
        worker.signals.failed.connect(lambda error: self.errorRaised.emit(error, "Checking the codings"))
        self._review_slot.start(worker)
        self.statusMessage.emit("Checking the codings…")

    def check_codings(self) -> None:
        """"Check my codings" from another step: the doubted codings, on this step."""
        self.tabs.setCurrentIndex(REVIEW_TAB)
        if self.loop is None:
            self.statusMessage.emit("Choose the column that holds your texts on the Data step first.")
            return
        self.review()

    def _reviewed(self, found) -> None:  # noqa: ANN001 — a CodingReview
        second = self.session.coding_texts
        self.review_tab.show_review(found, self._row_names(), self._row_names(SECOND_FILE),
                                    file_name(second) if second is not None else "")
        self.statusMessage.emit(found.sentence)

    def _change_coding(self, source: str, row, category: str) -> None:  # noqa: ANN001
        coder = self._coder()
        if coder is None:
            return
        self._codings().record(row, category, coder=coder, chosen_by="review", source=source,
                                    file_category=self._file_categories.get(row) if source == TABLE else None)
        self.session.codings_changed()
        self.statusMessage.emit(f"Changed the coding of row {self._shown_row(source, row)} to “{category}”.")

    def _shown_row(self, source: str, row) -> str:  # noqa: ANN001
        shown = f"{self._row_names(source).get(row, row)}"
        return shown + (f" of {file_name(self.session.coding_texts)}" if source == SECOND_FILE else "")

    # -- following the session --------------------------------------------------------------------------
    def _codings_changed(self) -> None:
        log = self._codings()
        current = self.current
        if self._pool_key is not None and self._pool_key[-1] != self.team_coding.key():
            self._rebuild_loop()  # another coder, or a new draw: their own queue
            return
        self._show_team()
        if current is not None and self.loop is not None and (
                log is not self._drawn_from or not self._is_open(current)):
            self._show_next()  # drawn against other codings (an opened project's arrived since): draw again
        counts = {}
        if self.loop is not None and self.label_sets.on:
            counts = self.label_sets.counts(self._categories(), log)
        elif self.loop is not None:  # every category, the ones without codings too
            counts = {category: 0 for category in self._categories()}
            counts.update(self.loop.pool.coded_counts(log, self._file_categories))
        coded = self.team_coding.coded_by_active() if self.team_coding.on else self.session.coded_texts_here()
        self.progress.set_counts(counts, log.per_hour(), coded=coded)
        if self.loop is not None and self.label_sets.on:
            self.review_tab.panel.set_waiting(NO_CHECK)
        elif self.loop is not None:
            self.review_tab.show_readiness(counts, self._trained_on())
        self.text_view.set_can_undo(bool(log.entries_of()))  # the first coding's entries (not a second coder's)

    # -- a coding team -----------------------------------------------------------------------------------
    def _show_team(self) -> None:
        """The team bar as the record holds it; the one-coder name field only without a team."""
        self.team_bar.refresh()
        self.bar.coder_edit.parentWidget().setVisible(not self.team_bar.has_team())
        drawn = self.team_coding.drawn  # the draw says which text comes next, not a strategy
        self.bar.strategy_combo.setEnabled(not drawn and not self.label_sets.on)
        self.bar.strategy_combo.setToolTip(
            "The team's draw gives each coder their texts in a random order of its own." if drawn else
            SUGGESTED if self.label_sets.on else
            "How TextLab chooses the next text. Every choice is recorded with the chance it had, so that shares "
            "estimated later can correct for it.")

    def _team_changed(self) -> None:
        """Another coder codes, or the team or its draw changed: the queue is theirs (built again only
        when what it depends on changed, ``TeamCoding.key``)."""
        self._rebuild_loop()
        self._show_team()

    def open_team_dialog(self) -> None:
        """"Team…": the coders, the rule for disagreements and the draw."""
        from guiapp.ui.steps.coding.team_dialog import TeamDialog

        dialog = TeamDialog(self.session, self.bar.coder(), self)
        dialog.changed.connect(self._team_changed)
        self.team_dialog = dialog  # reachable while open (a walk through the window drives it)
        dialog.exec()
        self._team_changed()

    def _trained_on(self) -> tuple[int, int] | None:
        """(coded texts, categories) the quick model last learnt from; None before it is trained."""
        loop = self.loop
        if loop is None or not loop.rounds:
            return None
        return loop.rounds[-1].n_coded, len(loop.categories)

    def _codebook_changed(self) -> None:
        if self.loop is None:
            return
        codebook = self.session.codebook.with_categories(self._categories())
        if codebook.to_dict() != self.codebook_editor.codebook().to_dict():
            self.codebook_editor.set_codebook(codebook)
        if self.current is not None:  # the categories on screen follow the codebook (added, renamed, reordered)
            self._display(self.current)

    def showEvent(self, event) -> None:  # noqa: ANN001, N802 — Qt's name
        super().showEvent(event)
        self.text_view.setFocus()  # the number keys code at once
        if self._retrain_when_shown:
            self._retrain_when_shown = False
            self._retrain_if_due()

    def _show_disagreement(self, row) -> None:  # noqa: ANN001 — a row of the table
        """The whole text of a row the two coders coded differently."""
        from PySide6.QtWidgets import QMessageBox

        from guiapp.core.predict.new_texts import texts_of

        frame = self.session.frame
        if frame is None or row not in frame.index:
            return
        text = texts_of(frame.loc[[row]], self.session.mapping)[0]
        QMessageBox.information(self, f"Row {self._row_names().get(row, row)}", text)

    def is_busy(self) -> bool:
        """A job is running or its answer is still on its way."""
        return any(slot.current is not None for slot in self._slots()) or self.second_coder.is_busy()

    def cancel_jobs(self) -> None:
        for slot in self._slots():
            slot.cancel()
        self.second_coder.cancel_jobs()

    def _slots(self) -> tuple[WorkerSlot, ...]:
        return self._retrain_slot, self._review_slot, *self.files.slots()
