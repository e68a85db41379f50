"""Disagreements: the texts a coding team's coders coded differently, settled one by one by an
adjudicator.

The list shows each text the coders disagree on (still to settle, or all of them), with every
coder's category in the team's order. Below it the chosen text is shown in full; the adjudicator
picks its category (a button per category of the codebook, number keys 1–9, or "Another…"), adds a
comment and confirms (Enter); "Take back" removes a decision. A decision is kept with the team
(``Team.adjudicate``) and wins over every coder in the study's coding; nothing a coder entered is
ever changed. At the top: the team's rule for texts no one settled (``Team.set_fallback``) and how
many texts of the study came from which rule (``StudyCodings.sentence``).
"""

from __future__ import annotations

from collections.abc import Hashable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from guiapp.core.coding.adjudication import FIRST_CODER, LEAVE_OUT, MAJORITY, Adjudication, Disagreement, disagreements
from guiapp.core.coding.coding_record import SOURCES
from guiapp.core.coding.team import codings_by_coder
from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.common.flow_layout import FlowRow
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.section_title import section_title
from guiapp.ui.common.when_shown import WhenShown
from guiapp.ui.session.study_session import StudySession

TABLE, SECOND_FILE = SOURCES
TITLE = "Disagreements"
STILL_TO_SETTLE, ALL = "Still to settle", "All disagreements"
RULE_CHOICES = (  # (what the researcher reads, the team's fallback)
    ("use the category most of their coders gave", MAJORITY),
    ("use the first coder's category", FIRST_CODER),
    ("leave the text out of the study", LEAVE_OUT),
)
NO_TEAM = "Add coders with Team… above to code as a team; the texts they code differently are settled here."
ROW_COLUMN, TEXT_COLUMN = 0, 1
MAX_KEYS = 9


class DisagreementsView(QWidget):
    """The team's disagreements with the adjudicator's controls."""

    statusMessage = Signal(str)

    def __init__(self, session: StudySession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("disagreementsView")
        self.session = session
        self._shown: list[Disagreement] = []
        self._coders: list[str] = []
        self._texts: dict = {}  # row → its text, of the source shown
        self._row_names: dict = {}  # row → the row the spreadsheet shows
        self._picked: str | None = None
        self._category_buttons: list[QPushButton] = []

        self.note = QLabel(objectName="disagreementsIntro")
        self.note.setWordWrap(True)
        self.note.setStyleSheet(theme.MUTED_STYLE)
        self.rule_combo = QComboBox(objectName="fallbackCombo")
        for words, fallback in RULE_CHOICES:
            self.rule_combo.addItem(words, fallback)
        self.rule_combo.setToolTip("What the study uses for a text its coders coded differently while no one has "
                                   "settled it yet. A decision made here always wins.")
        self.rule_combo.activated.connect(self._rule_chosen)
        self.sentence = QLabel(objectName="studyCodingsSentence")
        self.sentence.setWordWrap(True)
        self.sentence.setStyleSheet(theme.headline_style("studyCodingsSentence"))
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.source_combo = QComboBox(objectName="disagreementsSource")
        self.source_combo.activated.connect(lambda _index: self.refresh())
        self.filter_combo = QComboBox(objectName="disagreementsFilter")
        self.filter_combo.addItems([STILL_TO_SETTLE, ALL])
        self.filter_combo.activated.connect(lambda _index: self.refresh())
        rule_line = hbox(None, QLabel("Texts the coders disagree on that no one settled:"), self.rule_combo, STRETCH,
                         QLabel("Show:"), self.filter_combo, self.source_combo, spacing=8)

        self.table = QTableWidget(0, 2, objectName="disagreementsList")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setHighlightSections(False)
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.itemSelectionChanged.connect(self._show_chosen)
        self.table.installEventFilter(self)

        self.text_box = QPlainTextEdit(objectName="disagreementText")
        self.text_box.setReadOnly(True)
        self.text_box.setStyleSheet("font-size: 14px;")
        self.text_box.installEventFilter(self)
        self.coders_line = QLabel(objectName="disagreementCoders")
        self.coders_line.setWordWrap(True)
        self.coders_line.setTextFormat(Qt.TextFormat.RichText)
        self.decision_line = QLabel(objectName="disagreementDecision")
        self.decision_line.setWordWrap(True)
        self.decision_line.setStyleSheet(theme.SOFT_STYLE)
        self.buttons_row = FlowRow(spacing=6, line_spacing=4)  # many categories wrap onto more lines, never squeezed
        self.other_button = QPushButton("Another…", objectName="otherCategory")
        self.other_button.setToolTip("A category the codebook does not have yet.")
        self.other_button.clicked.connect(self._ask_other)
        self.adjudicator_edit = QLineEdit(objectName="adjudicatorName")
        self.adjudicator_edit.setPlaceholderText("your name")
        self.adjudicator_edit.setMaximumWidth(180)
        self.comment_edit = QLineEdit(objectName="adjudicationComment")
        self.comment_edit.setPlaceholderText("why this category (optional)")
        self.comment_edit.returnPressed.connect(self.settle)
        self.settle_button = QPushButton("Settle  (Enter)", objectName="settleButton")
        self.settle_button.clicked.connect(self.settle)
        self.take_back_button = QPushButton("Take back", objectName="takeBackButton")
        self.take_back_button.setToolTip("Remove the decision: the text is settled by the team's rule again.")
        self.take_back_button.clicked.connect(self.take_back)
        decide = QWidget()
        vbox(decide, self.coders_line, (self.text_box, 1), self.decision_line,
             hbox(None, QLabel("Category:", alignment=Qt.AlignmentFlag.AlignTop), (self.buttons_row, 1),
                  self.other_button, spacing=6),
             hbox(None, QLabel("Adjudicator:"), self.adjudicator_edit, QLabel("Comment:"), (self.comment_edit, 1),
                  self.settle_button, self.take_back_button, spacing=6),
             margins=(0, 6, 0, 0), spacing=6)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(decide)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        self.empty = QLabel(objectName="disagreementsEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet(f"{theme.text_style(theme.FAINT_TEXT)} font-size: 14px; padding: 30px;")
        self.keys_hint = QLabel("Number keys pick a category, Enter settles, the arrow keys move between texts.")
        self.keys_hint.setStyleSheet(theme.HINT_STYLE)
        vbox(self, section_title(TITLE), self.note, rule_line, self.sentence, (self.splitter, 1), (self.empty, 1),
             self.keys_hint, margins=(0, 0, 0, 0), spacing=8)
        self._when_shown = WhenShown(self, self.refresh)
        session.codingsChanged.connect(self._when_shown.now_or_when_shown)
        session.codebookChanged.connect(self._when_shown.now_or_when_shown)
        session.dataChanged.connect(self._when_shown.now_or_when_shown)
        self.refresh()

    # ----- what the researcher sees (for tests and the page) ----------------------------------------
    def source(self) -> str:
        return self.source_combo.currentData() or TABLE

    def listed_rows(self) -> list[Hashable]:
        return [d.row for d in self._shown]

    def listed(self) -> list[list[str]]:
        """The list as shown: row, text, each coder's category, the decision."""
        return [[self.table.item(r, c).text() if self.table.item(r, c) else "" for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]

    def category_buttons(self) -> list[QPushButton]:
        return list(self._category_buttons)

    def current_row(self) -> Hashable | None:
        index = self.table.currentRow()
        return self._shown[index].row if 0 <= index < len(self._shown) else None

    def choose(self, row: Hashable) -> None:
        """Select the text of ``row`` in the list."""
        self.table.selectRow(self.listed_rows().index(row))

    def pick(self, category: str) -> None:
        """Pick ``category`` for the chosen text (confirm with :meth:`settle`)."""
        self._picked = category
        for button in self._category_buttons:
            button.setChecked(button.property("category") == category)
        self._say_picked()

    # ----- the team's rule ------------------------------------------------------------------------------
    def _rule_chosen(self, index: int) -> None:
        team = self.session.codings.team
        if team is None:
            return
        fallback = self.rule_combo.itemData(index)
        if fallback == team.fallback:
            return
        team.set_fallback(fallback)
        self.statusMessage.emit(f"Texts the coders disagree on that no one settled: {self.rule_combo.itemText(index)}.")
        self.session.codings_changed()

    # ----- deciding -------------------------------------------------------------------------------------
    def settle(self) -> None:
        """Record the picked category for the chosen text, then go on to the next one."""
        team, row = self.session.codings.team, self.current_row()
        if team is None or row is None:
            return
        if self._picked is None:
            self.statusMessage.emit("Pick the category the text belongs to first (a number key or a button).")
            return
        try:
            decision = Adjudication(self._picked, " ".join(self.adjudicator_edit.text().split()),
                                    self.comment_edit.text().strip())
        except UserError as error:
            self.statusMessage.emit(str(error))
            return
        index = self.table.currentRow()
        team.adjudicate(row, decision, self.source())
        self.statusMessage.emit(f"Row {self._row_names.get(row, row)} settled as “{decision.category}”.")
        self._after_change(index, row)

    def take_back(self) -> None:
        """Remove the decision on the chosen text: the team's rule settles it again."""
        team, row = self.session.codings.team, self.current_row()
        if team is None or row is None or row not in team.adjudications_of(self.source()):
            return
        index = self.table.currentRow()
        team.adjudicate(row, None, self.source())
        self.statusMessage.emit(f"The decision on row {self._row_names.get(row, row)} is taken back.")
        self._after_change(index, row)

    def _after_change(self, index: int, row: Hashable) -> None:
        self.session.codings_changed()  # the study's coding changed, and the project is saved
        self.refresh()
        if not self._shown:
            return
        rows = self.listed_rows()
        if row in rows and self.filter_combo.currentText() == ALL:
            index = rows.index(row) + 1  # go on to the next text
        self.table.selectRow(min(index, len(rows) - 1))

    def _ask_other(self) -> None:
        category = self.ask_other_category()
        if category:
            self.pick(category)

    def ask_other_category(self) -> str:
        """The name of a category the codebook lacks (empty: none given)."""
        text, ok = QInputDialog.getText(self, "Another category", "The category this text belongs to:")
        return " ".join(text.split()) if ok else ""

    # ----- keys -----------------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 — Qt's name
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and self._handle_key(event):
            return True
        return super().eventFilter(watched, event)

    def _handle_key(self, event: QKeyEvent) -> bool:
        key = event.key()
        if Qt.Key.Key_1 <= key <= Qt.Key.Key_9 and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            number = key - Qt.Key.Key_1
            if number < len(self._category_buttons):
                self.pick(self._category_buttons[number].property("category"))
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.settle()
            return True
        return False

    # ----- drawing --------------------------------------------------------------------------------------
    def refresh(self) -> None:
        log = self.session.codings
        team = log.team
        self._fill_sources()
        if team is None or not team.is_team:
            self._show_empty(NO_TEAM)
            self.sentence.hide()
            self.rule_combo.setEnabled(False)
            return
        self.rule_combo.setEnabled(True)
        self.rule_combo.setCurrentIndex(max(0, self.rule_combo.findData(team.fallback)))
        if not self.adjudicator_edit.text():
            self.adjudicator_edit.setText(team.active)
        source = self.source()
        self.sentence.setText(log.study_codings(source).sentence())
        self.sentence.show()
        self._read_texts(source)
        everything = disagreements(codings_by_coder(log.entries, source), team.adjudications_of(source),
                                   coders=team.coders)
        still = [d for d in everything if d.adjudication is None]
        self.note.setText(f"{len(everything):,} of the texts coded by two coders or more were coded differently; "
                          f"{len(everything) - len(still):,} settled, {len(still):,} still to settle. Pick the "
                          "category each belongs to: your decision counts in the study, and every coder's own "
                          "coding is kept as it was.")
        shown = everything if self.filter_combo.currentText() == ALL else still
        if not shown:
            self._show_empty("Every text the coders coded differently is settled." if everything else
                             "The coders have coded no text differently yet.")
            return
        self.empty.hide()
        self.splitter.show()
        self.keys_hint.show()
        chosen = self.current_row()
        self._coders = [coder for coder in team.coders if any(coder in dict(d.categories) for d in shown)]
        self._coders += [c for d in shown for c, _ in d.categories if c not in self._coders]
        self._fill_table(shown)
        self._fill_buttons()
        rows = self.listed_rows()
        self.table.selectRow(rows.index(chosen) if chosen in rows else 0)
        self._show_chosen()

    def _fill_sources(self) -> None:
        from guiapp.core.coding.second_file import file_name

        second = self.session.coding_texts
        wanted = [("Texts of your table", TABLE)]
        if second is not None:
            wanted.append((f"Texts of {file_name(second)}", SECOND_FILE))
        now = [(self.source_combo.itemText(i), self.source_combo.itemData(i)) for i in range(self.source_combo.count())]
        if now != wanted:
            current = self.source()
            self.source_combo.clear()
            for words, source in wanted:
                self.source_combo.addItem(words, source)
            self.source_combo.setCurrentIndex(max(0, self.source_combo.findData(current)))
        self.source_combo.setVisible(len(wanted) > 1)

    def _read_texts(self, source: str) -> None:
        from guiapp.core.predict.new_texts import texts_of
        from guiapp.core.tables.rows import spreadsheet_rows

        frame = self.session.coding_texts if source == SECOND_FILE else self.session.frame
        mapping = self.session.mapping
        self._texts, self._row_names = {}, {}
        if frame is None or not mapping.text_columns:
            return
        try:
            texts = texts_of(frame, mapping)
        except UserError:
            return
        self._texts = dict(zip(frame.index, texts, strict=True))
        self._row_names = dict(zip(frame.index, spreadsheet_rows(frame).tolist(), strict=True))

    def _show_empty(self, words: str) -> None:
        self._shown = []
        self.table.setRowCount(0)
        self.splitter.hide()
        self.keys_hint.hide()
        self.empty.setText(words)
        self.empty.show()
        if self.session.codings.team is None or not self.session.codings.team.is_team:
            self.note.setText("")

    def _fill_table(self, shown: list[Disagreement]) -> None:
        self._shown = shown
        titles = ["Row", "Text", *self._coders, "Decision"]
        self.table.blockSignals(True)
        self.table.clear()
        self.table.setColumnCount(len(titles))
        self.table.setHorizontalHeaderLabels(titles)
        self.table.setRowCount(len(shown))
        for index, found in enumerate(shown):
            by_coder = dict(found.categories)
            text = self._texts.get(found.row, "")
            decision = found.adjudication.category if found.adjudication is not None else ""
            cells = [str(self._row_names.get(found.row, found.row)), " ".join(str(text).split()),
                     *(by_coder.get(coder, "–") for coder in self._coders), decision]
            for column, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if column == TEXT_COLUMN:
                    item.setToolTip(str(text))
                if column == len(cells) - 1 and decision:
                    item.setForeground(Qt.GlobalColor.darkGreen)
                self.table.setItem(index, column, item)
        header = self.table.horizontalHeader()
        for column in range(len(titles)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch if column == TEXT_COLUMN
                                        else QHeaderView.ResizeMode.ResizeToContents)
        self.table.blockSignals(False)

    def _categories(self) -> list[str]:
        names = list(self.session.codebook.names())
        for found in self._shown:
            names += [category for _, category in found.categories if category not in names]
        return names

    def _fill_buttons(self) -> None:
        names = self._categories()
        if [b.property("category") for b in self._category_buttons] == names:
            return
        for button in self._category_buttons:
            button.setParent(None)
            button.deleteLater()
        self._category_buttons = []
        for number, name in enumerate(names, start=1):
            label = f"{number}  {name}" if number <= MAX_KEYS else name
            button = QPushButton(label)
            button.setCheckable(True)
            button.setProperty("category", name)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            category = self.session.codebook.category(name)
            button.setToolTip(category.definition if category is not None and category.definition else name)
            button.clicked.connect(lambda _checked=False, n=name: self.pick(n))
            self.buttons_row.add_widget(button)
            self._category_buttons.append(button)

    def _show_chosen(self) -> None:
        index = self.table.currentRow()
        if not 0 <= index < len(self._shown):
            return
        found = self._shown[index]
        self.text_box.setPlainText(str(self._texts.get(found.row, "")) or "(the text is not in the table open now)")
        coded = " · ".join(f"{coder}: <b>{_escaped(category)}</b>" for coder, category in found.categories)
        self.coders_line.setText(f"Row {_escaped(str(self._row_names.get(found.row, found.row)))} — {coded}")
        decision = found.adjudication
        self.take_back_button.setEnabled(decision is not None)
        self.comment_edit.setText(decision.comment if decision is not None else "")
        self._picked = None
        if decision is not None:
            self.pick(decision.category)
        else:
            self.pick_nothing()
        self.table.setFocus()

    def pick_nothing(self) -> None:
        self._picked = None
        for button in self._category_buttons:
            button.setChecked(False)
        self._say_picked()

    def _say_picked(self) -> None:
        index = self.table.currentRow()
        decision = self._shown[index].adjudication if 0 <= index < len(self._shown) else None
        if decision is not None:
            who = f" by {decision.adjudicator}" if decision.adjudicator else ""
            why = f": “{decision.comment}”" if decision.comment else ""
            settled = f"Settled as “{decision.category}”{who}{why}."
            self.decision_line.setText(settled if self._picked in (None, decision.category)
                                       else f"{settled} Enter changes it to “{self._picked}”.")
        elif self._picked is not None:
            self.decision_line.setText(f"Picked “{self._picked}”: press Enter or Settle to record it.")
        else:
            self.decision_line.setText("Not settled yet: pick a category.")


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
