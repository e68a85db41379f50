"""The second coder: a colleague codes a random sample of the texts already coded, without seeing
those codings, and TextLab measures how far the two codings agree.

The panel draws the sample (``core/coding/second_coder.py``: the same texts for the same codings,
nothing stored beyond the record of codings), shows its texts one after another in the keyboard
coding view — never with the first coding: no highlighted category, no "changed from" — and records
each answer in the study's record as the second coder's (a record apart that never changes the
study's coding; the project is autosaved after each). Beside the text: how far the two agree, with
the texts they coded differently. While the second coder codes, that agreement stays hidden, since
the disagreements show the first coding of earlier texts and could steer the next answers.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from guiapp.core.coding.second_coder import (
    DEFAULT_SAMPLES,
    SECOND_CODER,
    SecondCoderSample,
    compare_coders,
    default_sample_size,
    second_coder_sample,
)
from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.coding.coder_agreement_view import AgreementFigures, CoderAgreementView
from guiapp.ui.steps.coding.coding_text_view import CodingTextView
from guiapp.ui.common.empty_state import EmptyState
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.scroll_area import ScrollArea, fill
from guiapp.ui.common.when_shown import WhenShown
from guiapp.workers import Worker, WorkerSlot

INTRO = ("A second coder codes a random sample of the texts you coded, without seeing your codings; TextLab then "
         "measures how far the two of you agree (Krippendorff's alpha and Cohen's kappa) and lists the texts you "
         "coded differently, to discuss. The second coder's codings are kept apart: they never change your coding "
         "or the study, and the export shows them in columns of their own.")
SIZE_TIP = ("How many of your coded texts the second coder codes, drawn at random. About 50 to 100 texts is the "
            "usual size of a reliability check: fewer leave a wide interval around the agreement, more narrow it "
            "only slowly. Take more when some categories are rare, so that each of them shows up in the sample. "
            "A larger sample keeps every text of a smaller one.")
NAME_TIP = ("Recorded with each of the second coder's codings. The second coder must be someone other than the "
            "person who coded the texts of the sample.")
START, GO_ON, PAUSE, DONE = "Start coding the sample", "Go on coding the sample", "Pause", "The sample is coded"
HIDDEN_WHILE_CODING = ("The agreement is hidden while the second coder codes: the texts coded differently show "
                       "your codings, and seeing them could steer the next answers. It shows when the sample is "
                       "coded, or when you pause.")
SHOWN_AGAIN = "Skipped earlier: shown again after the rest of the sample."


def _agreement_job(first: dict, second: dict, rows: list, samples: int, on_event=None):  # noqa: ANN001, ANN202, ARG001
    return compare_coders(first, second, rows, samples=samples)


class SecondCoderPanel(QWidget):
    """A second coder codes a sample of the coded texts; the agreement of the two codings beside.

    ``ask_coder`` gives the name the first coder codes under on the Code tab (None when not set); it
    is only read, to refuse that name for the second coder, and must not open a dialog."""

    statusMessage = Signal(str)
    textWanted = Signal(object)  # the row (the table's index label) of a disagreement double-clicked

    def __init__(self, session: StudySession, ask_coder: Callable[[], str | None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("secondCoderPanel")
        self.session = session
        self._ask_coder = ask_coder
        self._log = session.codings  # the record the panel follows (another one: another project)
        self._table_key: tuple | None = None
        self._texts: dict = {}  # row → its text
        self._row_names: dict = {}  # row → the row the spreadsheet shows
        self._file_categories: dict = {}
        self._metadata_columns: list = []
        self._date_formats: dict = {}  # column → how its dates are written
        self._first: dict = {}  # row → the first coding's category (the file's with TextLab's applied)
        self._state: SecondCoderSample | None = None
        self._coder = ""  # the second coder's name while coding
        self._active = False
        self._current = None  # the row on screen, until it is answered
        self._prefer = None  # the row to show next (a coding just undone)
        self._flag: tuple[str, str] = ("", "")  # a flag given to the text on screen, recorded with its answer
        self._show_anyway = False
        self._agreement_key: tuple | None = None
        self._agreement_slot = WorkerSlot(self)
        self._catch_up = WhenShown(self, self._follow_data)  # the session changed while the panel was hidden

        self.empty = EmptyState("", "", "secondCoder")
        self.content = self._build()
        fill(self, self.content).addWidget(self.empty)

        session.dataChanged.connect(self._data_changed)
        session.codingsChanged.connect(self._codings_changed)
        session.codebookChanged.connect(self._codebook_changed)
        self._follow_data()

    # -- building -------------------------------------------------------------------------------------
    def _build(self) -> QWidget:
        intro = QLabel(INTRO, objectName="secondCoderIntro", wordWrap=True)
        intro.setStyleSheet(theme.MUTED_STYLE)
        self.name_edit = QLineEdit(objectName="secondCoderName")
        self.name_edit.setPlaceholderText("name or initials")
        self.name_edit.setToolTip(NAME_TIP)
        self.name_edit.setMaximumWidth(200)
        self.name_edit.textEdited.connect(self._name_edited)
        self.name_edit.returnPressed.connect(self.start)
        self.size_spin = QSpinBox(objectName="secondCoderSampleSize")
        self.size_spin.setSuffix(" texts")
        self.size_spin.setToolTip(SIZE_TIP)
        self.size_spin.setKeyboardTracking(False)
        self.size_spin.valueChanged.connect(lambda _value: self._refresh())
        self.size_note = QLabel(objectName="secondCoderSampleOf")
        self.size_note.setStyleSheet(theme.MUTED_STYLE)
        self.start_button = QPushButton(START, objectName="startSecondCoder")
        self.start_button.setStyleSheet(theme.GO_BUTTON_STYLE)
        self.start_button.clicked.connect(self._start_or_pause)
        name_label = QLabel("Second coder:")
        name_label.setToolTip(NAME_TIP)
        size_label = QLabel("Sample:")
        size_label.setToolTip(SIZE_TIP)
        bar = hbox(None, name_label, self.name_edit, 16, size_label, self.size_spin, self.size_note, STRETCH,
                   self.start_button, spacing=6)
        self.name_error = QLabel(objectName="secondCoderNameError", wordWrap=True)
        self.name_error.setStyleSheet(theme.ERROR_STYLE)
        self.name_error.hide()
        self.progress_label = QLabel(objectName="secondCoderProgress", wordWrap=True)
        self.progress_label.setStyleSheet(f"{theme.BOLD_STYLE} {theme.text_style(theme.HEADING_INK)}")
        self.outside_note = QLabel(objectName="secondCoderOutside", wordWrap=True)
        self.outside_note.setStyleSheet(f"QLabel#secondCoderOutside {{ {theme.notice_style('caution')} }}")
        self.outside_note.hide()
        self.guide = QLabel(objectName="secondCoderGuide", wordWrap=True)
        self.guide.setStyleSheet(f"QLabel#secondCoderGuide {{ {theme.notice_style('news', '8px 10px', 6)} }}")

        self.text_view = CodingTextView()
        self.text_view.coded.connect(self._answer)
        self.text_view.skipped.connect(lambda: self._answer(None))
        self.text_view.undoRequested.connect(self.undo)
        self.text_view.flagged.connect(self._flagged)

        self.agreement_view = CoderAgreementView()
        self.agreement_view.disagreementChosen.connect(self.textWanted)
        self.cover_text = QLabel(HIDDEN_WHILE_CODING, objectName="agreementHiddenNote", wordWrap=True)
        self.cover_text.setStyleSheet(f"QLabel#agreementHiddenNote {{ {theme.notice_style('news', '12px 14px', 6)} }}")
        self.show_anyway_button = QPushButton("Show the agreement now", objectName="showAgreementAnyway")
        self.show_anyway_button.setStyleSheet(theme.LINK_BUTTON_STYLE)
        self.show_anyway_button.setToolTip("Show the agreement and the texts coded differently while the second "
                                           "coder is still coding (best when the second coder does not see it).")
        self.show_anyway_button.clicked.connect(self._show_agreement_anyway)
        cover = QWidget()
        vbox(cover, self.cover_text, self.show_anyway_button, STRETCH, margins=(0, 0, 0, 0), spacing=8)
        self.agreement_stack = QStackedWidget(objectName="agreementStack")
        self.agreement_stack.addWidget(ScrollArea(self.agreement_view))
        self.agreement_stack.addWidget(cover)
        side = QWidget()
        side.setMinimumWidth(300)
        vbox(side, (self.agreement_stack, 1), margins=(0, 0, 0, 0))

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="secondCoderSplitter")
        splitter.addWidget(self.text_view)  # shown only while the second coder codes: the agreement has the room
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        splitter.setHandleWidth(14)
        panel = QWidget()
        vbox(panel, intro, bar, self.name_error, self.progress_label, self.outside_note, self.guide, (splitter, 1),
             margins=(0, 8, 0, 0), spacing=8)
        return panel

    # -- following the session --------------------------------------------------------------------------
    # While hidden (another tab is shown) the panel only notes that the session changed: the first
    # coder's codings on the Code tab never wait for the sample to be drawn again.
    def _data_changed(self) -> None:
        self._catch_up.now_or_when_shown()

    def _codings_changed(self) -> None:
        if not self.isVisible():
            self._catch_up.when_shown()
        elif self._log is not self.session.codings:  # another project's record
            self._start_over()
        else:
            self._refresh()

    def showEvent(self, event) -> None:  # noqa: ANN001, N802 — Qt's name
        super().showEvent(event)  # the session's changes made while hidden are followed by now (WhenShown)
        if self._active:
            self.text_view.setFocus()  # the number keys code at once

    def _follow_data(self) -> None:
        from guiapp.core.coding.codings import file_categories
        from guiapp.core.predict.new_texts import texts_of
        from guiapp.core.tables.rows import spreadsheet_rows

        frame, mapping = self.session.frame, self.session.mapping
        if frame is None or not mapping.text_columns:
            self._table_key = None
            self._show_empty("No texts yet", "Open your texts on the Data step and choose the column that holds them.")
            return
        key = (id(frame), tuple(mapping.text_columns), mapping.category_column)
        if key == self._table_key and self._log is self.session.codings:
            self._refresh()
            return
        try:
            texts = texts_of(frame, mapping)
        except UserError as error:
            self._table_key = None
            self._show_empty("No texts yet", str(error))
            return
        self._table_key = key
        self._texts = dict(zip(frame.index, texts, strict=True))
        self._row_names = dict(zip(frame.index, spreadsheet_rows(frame).tolist(), strict=True))
        self._file_categories = dict(file_categories(frame, mapping))
        self._metadata_columns = [c for c in frame.columns if c not in {*mapping.text_columns, mapping.category_column}]
        from guiapp.core.tables.shown_cells import date_formats

        self._date_formats = date_formats(frame, self._metadata_columns)  # dates at midnight without the time
        self._start_over()

    def _codebook_changed(self) -> None:
        if self._active and self._current is not None:
            self._show(self._current)

    def _start_over(self) -> None:
        """Another table or record: stop coding, and start from the sample the record points to."""
        self._log = self.session.codings
        self._active, self._current, self._prefer, self._flag = False, None, None, ("", "")
        self._show_anyway = False
        self._agreement_key = None
        self._agreement_slot.cancel()
        self.agreement_view.set_agreement(None)
        self._first = self._first_coding()
        second = self._log.categories_by_row(second_coder=True)
        names = [entry.coder for entry in self._log.entries_of(second_coder=True) if entry.coder]
        self.name_edit.setText(names[-1] if names else "")
        self.name_error.hide()
        self._set_size_range(default_sample_size(self._first, second) if len(self._first) >= 2 else 2)
        self._refresh()

    def _first_coding(self) -> dict:
        """Row → the first coding's category: the file's with the codings made in TextLab applied."""
        first = dict(self._file_categories)
        first.update({row: category for row, category in self._log.categories_by_row().items() if row in self._texts})
        return first

    def _set_size_range(self, value: int) -> None:
        blocked = self.size_spin.blockSignals(True)
        self.size_spin.setRange(2, max(2, len(self._first)))
        self.size_spin.setValue(value)
        self.size_spin.blockSignals(blocked)

    # -- what is shown ------------------------------------------------------------------------------------
    def _show_empty(self, title: str, text: str) -> None:
        self._active, self._current, self._state = False, None, None
        self._agreement_slot.cancel()
        self.empty.findChild(QLabel, "secondCoderEmptyTitle").setText(title)
        self.empty.label.setText(text)
        self.content.hide()
        self.empty.show()

    def _refresh(self) -> None:
        """Draw the sample again from the record as it is now, and show where the second coder stands."""
        if self._table_key is None:
            return
        log = self._log
        self._first = self._first_coding()
        if len(self._first) < 2:
            self._show_empty("Code at least two texts first",
                             "A second coder codes a random sample of the texts you coded. Code texts on the Code "
                             "tab, or open a table whose category column already codes some; the sample can be "
                             "drawn once two or more texts are coded.")
            return
        self.empty.hide()
        self.content.show()
        if self.size_spin.maximum() != len(self._first):
            self._set_size_range(min(max(self.size_spin.value(), 2), len(self._first)))
        second = log.categories_by_row(second_coder=True)
        state = second_coder_sample(self._first, second, self.size_spin.value(),
                                    skipped=log.skipped(second_coder=True))
        self._state = state
        self.size_note.setText(f"of the {state.n_first:,} coded texts")
        self._show_progress(state)
        if self._active and state.done:
            self._active = False
            self.statusMessage.emit("The second coder has coded every text of the sample.")
        self._show_next(state)
        self._update_button(state)
        self.text_view.set_can_undo(self._active and bool(log.entries_of(second_coder=True)))
        self._update_agreement(state, second)

    def _show_progress(self, state: SecondCoderSample) -> None:
        words = f"{len(state.coded):,} of {state.size:,} texts of the sample coded"
        if state.skipped:
            words += f" · {len(state.skipped):,} skipped (shown again at the end)"
        self.progress_label.setText(words)
        if state.outside:
            n = len(state.outside)
            self.outside_note.setText(
                f"{n:,} text{'s' if n != 1 else ''} the second coder coded {'are' if n != 1 else 'is'} not in a sample "
                f"of this size and {'are' if n != 1 else 'is'} not counted (their codings are kept). A sample of "
                f"{state.covering_size:,} texts holds every text the second coder coded.")
        self.outside_note.setVisible(bool(state.outside))

    def _update_button(self, state: SecondCoderSample) -> None:
        if state.done:
            text, tip = DONE, "Every text of the sample is coded. Make the sample larger to code more."
        elif self._active:
            text, tip = PAUSE, "Stop coding for now: the texts are hidden and the agreement shows."
        else:
            text = GO_ON if state.coded or state.skipped else START
            tip = "Show the second coder the next text of the sample."
        self.start_button.setText(text)
        self.start_button.setToolTip(tip)
        self.start_button.setEnabled(not state.done)

    def _show_next(self, state: SecondCoderSample) -> None:
        self.text_view.setVisible(self._active)
        self.guide.setVisible(not self._active)
        if not self._active:
            self._current = None
            if state.done:
                words = ("The second coder has coded every text of the sample. Discuss the texts coded differently "
                         "with them — or make the sample larger to code more.")
            else:
                action = GO_ON if state.coded or state.skipped else START
                name = " ".join(self.name_edit.text().split())
                ask = f"Press “{action}” when {name} is ready" if name else \
                    f"Enter the second coder's name and press “{action}”"
                words = (f"{ask}: the texts of the sample are then shown one after another, without your codings, "
                         "and coded with the keys 1–9 (S skips, Z undoes, F flags).")
            self.guide.setText(words)
            self.text_view.show_empty(words)
            return
        queue = state.to_code
        if self._prefer in queue:
            row = self._prefer
        elif self._current in queue:
            row = self._current  # still to be answered: it stays on screen
        else:
            row = queue[0]
        self._prefer = None
        if row != self._current:
            self._flag = ("", "")
        self._show(row)

    def _show(self, row) -> None:  # noqa: ANN001
        state = self._state
        self._current = row
        frame = self.session.frame
        from guiapp.core.tables.shown_cells import shown_row

        metadata = shown_row(frame, row, self._metadata_columns, self._date_formats) \
            if frame is not None and row in frame.index else {}
        if state is not None and row in state.skipped:
            reason = SHOWN_AGAIN
        else:
            place = state.rows.index(row) + 1 if state is not None and row in state.rows else 0
            reason = f"Text {place:,} of the {state.size:,} in the sample, drawn at random." if place else ""
        flag, comment = self._flag
        self.text_view.show_text(self._texts.get(row, ""), metadata, self._categories(), reason=reason,
                                 flag=flag, comment=comment)

    def _categories(self) -> list[str]:
        """The categories offered: the codebook's, then the file's, then those coded in TextLab."""
        names = list(self.session.codebook.names())
        for category in [*sorted(set(self._file_categories.values())), *self._log.counts(),
                         *self._log.counts(second_coder=True)]:
            if category not in names:
                names.append(category)
        return names

    # -- the agreement ------------------------------------------------------------------------------------
    def _update_agreement(self, state: SecondCoderSample, second: dict) -> None:
        hidden = self._active and not state.done and not self._show_anyway
        self.agreement_stack.setCurrentIndex(1 if hidden else 0)
        both = [row for row in state.coded if row in self._first]
        key = (tuple(both), tuple(self._first[row] for row in both), tuple(second[row] for row in both))
        if key == self._agreement_key:
            return
        self._agreement_key = key
        if len(both) < 2:
            self._agreement_slot.cancel()
            self.agreement_view.set_agreement(None)
            return
        first, other = {row: self._first[row] for row in both}, {row: second[row] for row in both}
        worker = Worker(_agreement_job, first, other, both, DEFAULT_SAMPLES, name="agreement of two coders")
        worker.signals.finished.connect(lambda found, w=worker, rows=both: self._agreement_found(w, found, rows))
        worker.signals.failed.connect(lambda error: self.session.report_error(error, "Measuring the agreement"))
        self._agreement_slot.start(worker)

    def _agreement_found(self, worker: Worker, agreement, rows: list) -> None:  # noqa: ANN001 — a CoderAgreement
        if worker is not self._agreement_slot.current:
            return
        latest = self._log.latest()
        first_names = {latest[row].coder for row in rows if row in latest and latest[row].coder}
        from_file = any(row not in latest for row in rows)
        first_name = next(iter(first_names)) if len(first_names) == 1 and not from_file else "First coding"
        second_names = {self._log.second_coder()[row].coder for row in rows if row in self._log.second_coder()}
        second_name = next(iter(second_names)) if len(second_names) == 1 else "Second coder"
        figures = AgreementFigures.from_comparison(agreement, self._texts, first_coder=first_name,
                                                   second_coder=second_name)
        self.agreement_view.set_agreement(figures, row_names=self._row_names)

    def _show_agreement_anyway(self) -> None:
        self._show_anyway = True
        self.agreement_stack.setCurrentIndex(0)

    # -- coding -------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Check the second coder's name and show the first text of the sample still to code."""
        state = self._state
        if state is None or state.done:
            return
        name = " ".join(self.name_edit.text().split())
        problem = self._name_problem(name, state)
        self.name_error.setText(problem)
        self.name_error.setVisible(bool(problem))
        if problem:
            self.name_edit.setStyleSheet(theme.FIELD_ERROR_STYLE)
            self.name_edit.setFocus()
            self.statusMessage.emit(problem)
            return
        self.name_edit.setStyleSheet("")
        self._coder, self._active = name, True
        self._refresh()
        self.text_view.setFocus()

    def pause(self) -> None:
        """Stop coding for now: the texts are hidden, and the agreement shows."""
        if self._active:
            self._active = False
            self._refresh()

    def _start_or_pause(self) -> None:
        if self._active:
            self.pause()
        else:
            self.start()

    def _name_problem(self, name: str, state: SecondCoderSample) -> str:
        if not name:
            return ("Enter the second coder's name: someone other than you, who codes the sample on their own "
                    "without seeing your codings.")
        latest = self._log.latest()
        first = {latest[row].coder for row in state.rows if row in latest and latest[row].coder}
        same = next((coder for coder in first if coder.casefold() == name.casefold()), None)
        if same is not None:
            return (f"The second coder must be someone other than the first coder: “{same}” coded texts of this "
                    "sample. Enter the name of the colleague who codes it.")
        own = " ".join((self._ask_coder() or "").split())
        if own and own.casefold() == name.casefold():
            return (f"The second coder must be someone other than you: “{own}” is the coder on the Code tab. "
                    "Enter the name of the colleague who codes the sample.")
        return ""

    def _name_edited(self, _text: str) -> None:
        self.name_error.hide()
        self.name_edit.setStyleSheet("")
        if self._active and " ".join(self.name_edit.text().split()) != self._coder:
            self._active = False  # codings are never recorded under a name that is not the one on screen
        self._refresh()

    def _answer(self, category: str | None) -> None:
        row = self._current
        if not self._active or row is None:
            return
        flag, comment = self._flag
        self._current, self._flag = None, ("", "")
        self.session.codings.record(row, category, coder=self._coder, chosen_by=SECOND_CODER, probability=None,
                                    flag=flag, comment=comment)
        self.session.codings_changed()  # autosaves the project; the panel follows (the next text)

    def _flagged(self, flag: str, comment: str) -> None:
        if self._active and self._current is not None:
            self._flag = (flag, comment)
            self.statusMessage.emit(f"Flagged: {flag}" + (f" — {comment}" if comment else "")
                                    + ". Kept with the second coder's answer for this text.")

    def undo(self) -> None:
        """Take back the second coder's last coding or skip; its text is shown again."""
        if not self._active:
            return
        undone = self.session.codings.undo(second_coder=True)
        if undone is None:
            self.statusMessage.emit("The second coder has nothing to undo.")
            return
        self._prefer = undone.row
        shown = self._row_names.get(undone.row, undone.row)
        self.statusMessage.emit(f"Took back the second coder's answer for row {shown}.")
        self.session.codings_changed()

    # -- for the page and tests -----------------------------------------------------------------------
    @property
    def current_row(self):  # noqa: ANN201
        """The row of the text the second coder sees (None when none is shown)."""
        return self._current

    @property
    def sample(self) -> SecondCoderSample | None:
        return self._state

    def is_coding(self) -> bool:
        return self._active

    def is_busy(self) -> bool:
        """The agreement is being measured (or its answer is on its way)."""
        return self._agreement_slot.current is not None

    def cancel_jobs(self) -> None:
        self._agreement_slot.cancel()

