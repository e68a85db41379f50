"""The Documents step: read the test texts behind the scores.

Top: the filter bar (which model, only mistakes, categories, confidence, search, another column).
Left: every test document that passes, with your coding and each model's answer. Right: the chosen
document in full, with every model's answer and whether it agrees with your coding; below that,
``detail_area`` is left free for the view that colours the words a model relied on.

The page shows what the engine computed (:class:`ExperimentResult`); filtering and sorting are done
by :mod:`guiapp.core.explain.documents`, so 100,000 documents stay quick.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import QLabel, QStackedWidget, QTextBrowser, QVBoxLayout, QWidget

from guiapp.core.experiment import ExperimentResult
from guiapp.core.explain.documents import NO_CATEGORY, Document, DocumentFilter, DocumentsTable, format_value
from guiapp.ui import theme
from guiapp.ui.steps.documents.document_filters import DocumentFilterBar
from guiapp.ui.steps.documents.documents_table import AnswersTable, DocumentsTableView
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.empty_state import EmptyState
from guiapp.ui.steps.documents.explanation_panel import ExplanationPanel
from guiapp.ui.common.fitting_splitter import FittingSplitter
from guiapp.ui.common.layouts import vbox
from guiapp.ui.common.scroll_area import ScrollArea

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

EMPTY_TITLE = "No documents yet"
EMPTY_TEXT = "Run a study first: the Documents step lists the test documents with every model's answer."
INTRO_TEXT = ("The test texts with your coding and each model's answer. Narrow them down with the filters, "
              "click a column title to sort, and select a text to read it in full on the right.")
SEVERAL_INTRO_TEXT = ("The test texts with the categories you coded and those each model gave them (a text can have "
                      "several). An answer agrees when it gives exactly your categories. Narrow them down with the "
                      "filters — “Mistake” finds the texts a model missed in one category or put in it wrongly — "
                      "and select a text to read it in full on the right.")
NO_SELECTION_TEXT = "Select a text in the table to read it here, with every model's answer."
NO_TEXTS_NOTE = "These results were saved without their texts, so only the answers can be shown."


class DocumentsPage(QWidget):
    """Empty until :meth:`show_result`; emits ``documentSelected(index)`` for the chosen document."""

    documentSelected = Signal(int)  # index among the test documents

    def __init__(self, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        """With a ``session`` the page follows its result and shows, under the text, which words
        pushed each decision (the explanation panel colours the text); without one it shows the
        plain text of what :meth:`show_result` was given."""
        super().__init__(parent)
        self.result: ExperimentResult | None = None
        self.table: DocumentsTable | None = None
        self._selected: int | None = None
        self.empty = EmptyState(EMPTY_TITLE, EMPTY_TEXT, "documents")
        self.empty_label = self.empty.label
        self.content = self._build_content()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.session = session
        self.explanations: ExplanationPanel | None = None
        if session is not None:
            self._follow(session)

    def _follow(self, session: StudySession) -> None:
        """Show the session's result, explain the chosen document, answer other steps' requests."""
        panel = self.explanations = ExplanationPanel(session=session)
        panel.errorRaised.connect(session.report_error)
        panel.statusMessage.connect(session.say)
        self.detail_area.layout().addWidget(panel)
        panel.widthWanted.connect(self.want_detail_width)
        self.text_browser.hide()  # the explanation shows the text, coloured
        self.documentSelected.connect(self._explain_document)
        self.filters.filterChanged.connect(lambda _f: panel.choose_model(self.filters.chosen_model() or ""))
        session.resultChanged.connect(self._result_changed)
        session.documentsWanted.connect(self._documents_wanted)
        session.cellWanted.connect(self._cell_wanted)

    def _result_changed(self, result: ExperimentResult | None) -> None:
        session = self.session
        if result is None:
            self.clear()
        else:
            self.show_result(result, session.test_metadata())
        self.explanations.set_result(result, session.model_folder)

    def _explain_document(self, index: int) -> None:
        result = self.result
        if result is not None and 0 <= index < len(result.test_texts):
            self.explanations.show_document(result.test_texts[index])

    def _documents_wanted(self, flt: DocumentFilter) -> None:
        """Another step asks for some documents (e.g. one group of texts): filter to them here."""
        column = flt.metadata_column
        if self.result is not None and column and (self.table is None or column not in self.table.metadata_columns()):
            self.show_result(self.result, self.session.test_metadata())  # the table came after the result
        self.set_filter(flt)

    def _cell_wanted(self, model: str, human: int | str, predicted: int | str) -> None:
        self.show_cell(model, human, predicted)
        self.explanations.choose_model(model)

    def cancel_jobs(self) -> None:
        if self.explanations is not None:
            self.explanations.cancel_jobs()

    # -- building ---------------------------------------------------------------------------------
    def _build_content(self) -> QWidget:
        panel = QWidget()
        intro = self.intro_label = QLabel(INTRO_TEXT, objectName="documentsIntro")
        intro.setWordWrap(True)
        intro.setStyleSheet(theme.SOFT_STYLE)
        self.note_label = QLabel(NO_TEXTS_NOTE, objectName="documentsNote")
        self.note_label.setWordWrap(True)
        self.note_label.setStyleSheet(theme.notice_style("caution"))
        self.note_label.hide()
        self.filters = DocumentFilterBar()
        self.filters.filterChanged.connect(self._apply_filter)
        self.view = DocumentsTableView()
        self.documents = self.view.documents
        self.documents.shownChanged.connect(self.filters.set_count)
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)

        self._reader_wish = 0  # pixels the reading pane's content asks for (want_detail_width)
        self.splitter = FittingSplitter(Qt.Orientation.Horizontal, self._table_width, name="documentsSplitter",
                                        stretch=(3, 2))
        self.splitter.addWidget(self.view)
        self.splitter.addWidget(self._build_reader())

        layout = QVBoxLayout(panel)
        layout.setContentsMargins(16, 12, 16, 10)
        layout.setSpacing(8)
        layout.addWidget(intro)
        layout.addWidget(self.note_label)
        layout.addWidget(self.filters)  # its filters wrap onto more lines in a narrow window
        layout.addWidget(self.splitter, 1)
        return panel

    def _build_reader(self) -> QWidget:
        self.reader_stack = QStackedWidget(objectName="documentsReader")
        self.reader_stack.setMinimumWidth(320)
        self.no_selection_label = QLabel(NO_SELECTION_TEXT, objectName="documentsNoSelection")
        self.no_selection_label.setWordWrap(True)
        self.no_selection_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_selection_label.setStyleSheet(f"{theme.HINT_STYLE} font-size: 13px; padding: 24px;")
        self.reader_stack.addWidget(self.no_selection_label)

        reader = QWidget()
        self.heading_label = QLabel("", objectName="documentHeading")
        self.heading_label.setWordWrap(True)
        self.heading_label.setTextFormat(Qt.TextFormat.RichText)
        self.heading_label.setStyleSheet("font-size: 14px;")
        self.details_label = QLabel("", objectName="documentDetails")
        self.details_label.setWordWrap(True)
        self.details_label.setStyleSheet(theme.NOTE_STYLE)
        self.text_browser = QTextBrowser(objectName="documentText")
        self.text_browser.setOpenLinks(False)
        self.text_browser.setStyleSheet("font-size: 13px;")
        answers_title = QLabel("The models' answers", objectName="documentAnswersTitle")
        answers_title.setStyleSheet(theme.BOLD_STYLE)
        self.answers_table = AnswersTable()
        self.detail_area = QWidget(objectName="documentDetailArea")  # for the coloured-words view
        detail_column = QVBoxLayout(self.detail_area)
        detail_column.setContentsMargins(0, 0, 0, 0)

        vbox(reader, self.heading_label, self.details_label, (self.text_browser, 3), answers_title,
             self.answers_table, self.detail_area, margins=(8, 0, 0, 0), spacing=6)
        self.reader = ScrollArea(reader, name="documentReaderScroll", sideways=False)  # a low window scrolls it
        self.reader_stack.addWidget(self.reader)
        return self.reader_stack

    # -- public API -------------------------------------------------------------------------------
    def show_result(self, result: ExperimentResult, metadata: pd.DataFrame | None = None) -> None:
        """List ``result``'s test documents; ``metadata``: extra spreadsheet columns, one row per
        test document in the same order (offered as the "Column" filter and shown in the table)."""
        self.result = result
        self.table = DocumentsTable.from_result(result, metadata)
        several = self.table.multi_label
        self.intro_label.setText(SEVERAL_INTRO_TEXT if several else INTRO_TEXT)
        self.answers_table.set_table(self.table)
        self._selected = None
        self.filters.set_table(self.table)
        self.documents.set_table(self.table, self.filters.current_filter())
        self.note_label.setVisible(len(self.table) > 0 and not any(self.table.texts))
        self._show_document(None)
        self.stack.setCurrentWidget(self.content)

    def clear(self) -> None:
        self.result = None
        self.table = None
        self._selected = None
        self.filters.set_table(None)
        self.documents.set_table(None)
        self._show_document(None)
        self.stack.setCurrentWidget(self.empty)

    def show_cell(self, model: str, human: int | str, predicted: int | str) -> None:
        """Show the documents of one confusion-matrix cell (as clicked on the Results step)."""
        self.filters.show_cell(model, human, predicted)

    def set_filter(self, flt: DocumentFilter) -> None:
        """Filter without the filter bar (the bar is not updated); mostly for other steps and tests."""
        self._apply_filter(flt)

    def selected_document(self) -> int | None:
        return self._selected

    def select_document(self, index: int) -> bool:
        """Select the document ``index`` in the table; False when the filters hide it."""
        row = self.documents.row_of(index)
        if row is None:
            return False
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.view.selectionModel().setCurrentIndex(self.documents.index(row, 0), flags)
        self.view.scrollTo(self.documents.index(row, 0))
        return True

    def shown_documents(self) -> list[int]:
        """The documents in the table, in the order shown."""
        return self.documents.shown_documents().tolist()

    def count_text(self) -> str:
        return self.filters.count()

    # -- layout -------------------------------------------------------------------------------------
    TABLE_SHARE = 0.64  # the table gets most of the width until the user moves the divider …
    NARROW = 900  # … unless the page is narrower: then the reading pane gets at least READER_SHARE
    READER_SHARE = 0.45
    TABLE_FLOOR = 260  # what the table keeps when the reading pane asks for more room

    def want_detail_width(self, pixels: int) -> None:
        """The view in ``detail_area`` needs ``pixels`` (e.g. the words of all documents: a chart
        beside a table): the reading pane gets them while the table keeps TABLE_FLOOR; 0: no wish."""
        margins = self.reader.widget().layout().contentsMargins()
        extra = margins.left() + margins.right() + self.reader.verticalScrollBar().sizeHint().width() + 4
        self._reader_wish = int(pixels) + extra if pixels > 0 else 0
        if not self.splitter.user_sized:
            self.splitter.fit(self.splitter.width() - self.splitter.handleWidth())
            return
        total = sum(self.splitter.sizes())
        reader = self.splitter.sizes()[1] if total else 0
        wanted = min(self._reader_wish, total - self.TABLE_FLOOR)
        if reader < wanted:  # the divider the user placed moves only as far as needed
            self.splitter.setSizes([total - wanted, wanted])

    def _table_width(self, total: int) -> int:
        share = self.TABLE_SHARE if total >= self.NARROW else 1 - self.READER_SHARE
        reader = max(total - int(total * share), min(self._reader_wish, total - self.TABLE_FLOOR))
        return total - reader

    # -- reacting ---------------------------------------------------------------------------------
    def _apply_filter(self, flt: DocumentFilter) -> None:
        if self.table is None:
            return
        keep = self._selected
        self.documents.set_filter(flt)
        if keep is not None and self.select_document(keep):
            self._show_document(keep)  # the same document, perhaps coloured for another model
        else:
            self._set_selected(None)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._set_selected(self.documents.document_at(current.row()) if current.isValid() else None)

    def _set_selected(self, document: int | None) -> None:
        if document == self._selected:
            return
        self._selected = document
        self._show_document(document)
        if document is not None:
            self.documentSelected.emit(document)

    def _show_document(self, index: int | None) -> None:
        if index is None or self.table is None:
            self.reader_stack.setCurrentWidget(self.no_selection_label)
            return
        document = self.table.document(index)
        self.heading_label.setText(self._heading(document))
        self.details_label.setText(self._details(document))
        self.details_label.setVisible(bool(self.details_label.text()))
        self.text_browser.setPlainText(document.text)
        self.answers_table.fill(document, self.table, self.documents.focus_model())
        self.reader_stack.setCurrentWidget(self.reader)

    @staticmethod
    def _heading(document: Document) -> str:
        where = f"Row {document.row}"
        if document.id is not None:
            where += f" · ID {html.escape(str(document.id))}"
        if document.human == NO_CATEGORY and not document.coded:
            return f"<b>{where}</b> — you coded it with none of the categories"
        return f"<b>{where}</b> — you coded it <b>{html.escape(document.human)}</b>"

    @staticmethod
    def _details(document: Document) -> str:
        parts = [f"{name}: {format_value(value)}" for name, value in document.metadata.items() if format_value(value)]
        return "  ·  ".join(parts)

    def answers(self) -> list[list[str]]:
        """The reading pane's answers table as the user reads it, row by row."""
        return self.answers_table.answers()
