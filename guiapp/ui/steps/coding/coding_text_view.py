"""The text being coded, large and readable, with the keys that code it.

One text at a time: why it was chosen, its other columns as a short "name: value" line, the text
itself, and the categories as numbered buttons — keys 1–9 code the first nine, a list that finds a
category by typing holds them all when there are more. S skips the text, Z or Ctrl+Z takes back the
last coding, F flags the text ("unsure", "ask colleague") with a comment. A text already coded shows
its category highlighted, and a coding that was changed says what it was before.

Where a text can have several categories (``show_text(..., several=True)``) the categories are check
boxes: keys 1–9 (or a click, or the list) tick and untick them, and Enter or "Done" records the
ticked set — none ticked is a coding too, "none of these categories", and the line under the boxes
says so before it is recorded.

The view records nothing: it says what the researcher asked for through its signals, and the page
decides what happens next. It answers once per text shown — after a coding or a skip, further keys
wait for the next :meth:`CodingTextView.show_text` — so a double press never codes a text twice.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QKeyCombination, QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextBlockFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QComboBox,
    QCompleter,
    QFrame,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QWidget,
)

from guiapp.ui import theme
from guiapp.ui.steps.coding.flag_dialog import FlagDialog
from guiapp.ui.common.flow_layout import FlowRow, together
from guiapp.ui.common.layouts import hbox, vbox

KEYED = 9  # categories 1–9 have a key and a button; more are found in the list
_SHORT_VALUE = 80  # characters of a metadata value shown before "…"

CATEGORY_BUTTON_STYLE = (
    f"QPushButton {{ background: {theme.WHITE}; border: 1px solid {theme.BORDER}; border-radius: 6px;"
    f" padding: 7px 14px; font-size: 14px; color: {theme.INK}; }}"
    f"QPushButton:hover {{ background: {theme.PANEL_TINT}; border-color: {theme.TICKED_BORDER}; }}"
    f"QPushButton:pressed {{ background: {theme.SIDEBAR_SELECTED}; }}"
    f"QPushButton:focus {{ border-color: {theme.ACCENT}; }}"
    f'QPushButton[current="true"] {{ background: {theme.TICKED_BACKGROUND}; border: 2px solid {theme.ACCENT};'
    f" color: {theme.ACCENT}; font-weight: 600; padding: 6px 13px; }}"
)
LABEL_SET_STYLE = (  # several categories per text: check boxes as large as the buttons
    f"QCheckBox {{ background: {theme.WHITE}; border: 1px solid {theme.BORDER}; border-radius: 6px;"
    f" padding: 7px 12px; font-size: 14px; color: {theme.INK}; spacing: 8px; }}"
    f"QCheckBox:hover {{ background: {theme.PANEL_TINT}; border-color: {theme.TICKED_BORDER}; }}"
    f"QCheckBox:checked {{ background: {theme.TICKED_BACKGROUND}; border: 2px solid {theme.ACCENT};"
    f" color: {theme.ACCENT}; font-weight: 600; padding: 6px 11px; }}"
)
DONE_BUTTON_STYLE = (
    f"QPushButton {{ background: {theme.ACCENT}; border: 1px solid {theme.ACCENT}; border-radius: 6px;"
    f" padding: 7px 18px; font-size: 14px; color: {theme.WHITE}; font-weight: 600; }}"
    f"QPushButton:disabled {{ background: {theme.PAGE}; color: {theme.DISABLED_LINK}; border-color: {theme.BORDER}; }}"
)
SINGLE_KEYS = "Keys: 1–9 code · S skip · Z undo · F flag"
SEVERAL_KEYS = "Keys: 1–9 tick · Enter done · S skip · Z undo · F flag"
ACTION_BUTTON_STYLE = (  # Skip, Undo, Flag: quieter than the categories
    f"QPushButton {{ background: {theme.WHITE}; border: 1px solid {theme.BORDER}; border-radius: 5px;"
    f" padding: 5px 14px; color: {theme.SOFT_TEXT}; }}"
    f"QPushButton:hover {{ background: {theme.PANEL_TINT}; border-color: {theme.TICKED_BORDER}; }}"
    f"QPushButton:focus {{ border-color: {theme.ACCENT}; }}"
    f"QPushButton:disabled {{ color: {theme.DISABLED_LINK}; background: {theme.PAGE}; }}"
)
TEXT_STYLE = (f"QTextBrowser#codingText {{ background: {theme.WHITE}; border: 1px solid {theme.BORDER};"
              f" border-radius: 6px; color: {theme.INK}; }}")
ACTION_BAR_STYLE = theme.top_rule_style("codingActions") + ACTION_BUTTON_STYLE
EMPTY_STYLE = (f"QLabel#codingEmpty {{ background: {theme.WHITE}; border: 1px solid {theme.BORDER}; border-radius: 6px;"
               f" padding: 24px; font-size: 16px; color: {theme.FAINT_TEXT}; }}")


def category_button_text(number: int, name: str) -> str:
    """The text of the button that codes ``name`` with key ``number``: "1 Health"."""
    return f"{number} {name}"


def metadata_line(metadata: Mapping[str, object]) -> str:
    """The text's other columns as one line: "Year: 2003 · Party: Democrat" (long values shortened)."""
    parts = []
    for name, value in metadata.items():
        shown = "" if value is None else " ".join(str(value).split())
        if len(shown) > _SHORT_VALUE:
            shown = shown[:_SHORT_VALUE - 1].rstrip() + "…"
        parts.append(f"{name}: {shown or '—'}")
    return " · ".join(parts)


class CodingTextView(QWidget):
    """One text to code; the keys work while the view or one of its parts has the focus."""

    coded = Signal(str)  # the category chosen for the text on screen
    labelSetCoded = Signal(list)  # several categories per text: the ticked categories ([] for none of them)
    skipped = Signal()
    undoRequested = Signal()
    flagged = Signal(str, str)  # flag, comment
    categoryHovered = Signal(str)  # the pointer or the keyboard is on a category's button (for the codebook card)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codingTextView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._categories: list[str] = []
        self._current: str | None = None
        self._several = False  # check boxes and Done instead of one button per category
        self._ticked_beyond: list[str] = []  # ticked categories past the ninth (chosen in the list)
        self._answered = True  # nothing on screen to answer yet
        self._dialog: FlagDialog | None = None

        self._reason = QLabel(objectName="codingReason", wordWrap=True)
        self._reason.setStyleSheet(f"{theme.text_style(theme.INFO_TEXT)} font-size: 13px;")
        self._metadata = QLabel(objectName="codingMetadata", wordWrap=True)
        self._metadata.setStyleSheet(f"{theme.MUTED_STYLE} font-size: 12px;")
        self._metadata.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._browser = QTextBrowser(objectName="codingText")
        self._browser.setOpenLinks(False)
        self._browser.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self._browser.setStyleSheet(TEXT_STYLE)
        font = self._browser.font()
        font.setPixelSize(15)
        self._browser.setFont(font)
        self._browser.document().setDocumentMargin(18)
        self._status = QLabel(objectName="codingStatus", wordWrap=True)
        self._status_words = ""
        self._flag_note = QLabel(objectName="codingFlag", wordWrap=True)
        self._flag_note.setStyleSheet(f"{theme.notice_style('warning')} color: {theme.WARNING_TEXT};")

        self._buttons_row = FlowRow(spacing=8, line_spacing=8)
        self._buttons_row.setStyleSheet(CATEGORY_BUTTON_STYLE)
        self._buttons: list[QAbstractButton] = []
        self._done = QPushButton("Done (Enter)", objectName="doneButton")
        self._done.setStyleSheet(DONE_BUTTON_STYLE)
        self._done.setToolTip("Record the ticked categories for this text (Enter); with none ticked the text "
                              "is coded as having none of these categories.")
        self._done.clicked.connect(self._record_set)
        self._ticked_note = QLabel(objectName="tickedNote", wordWrap=True)
        self._ticked_note.setStyleSheet(theme.SOFT_STYLE)
        self._done_row = together(self._done, self._ticked_note)
        self._done_row.layout().addStretch(1)
        self._done_row.hide()
        self._finder = QComboBox(objectName="categoryFinder")
        self._finder.setEditable(True)
        self._finder.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self._finder.setMinimumContentsLength(28)
        self._finder.lineEdit().setPlaceholderText("Type to find a category…")
        self._finder.activated.connect(lambda index: self._choose(self._finder.itemText(index)))
        self._finder.lineEdit().installEventFilter(self)
        self._finder_hint = QLabel(objectName="categoryFinderHint")
        self._finder_hint.setStyleSheet(theme.ERROR_STYLE)
        self._finder_title = QLabel()
        self._finder_title.setStyleSheet(theme.SOFT_STYLE)
        self._finder_row = together(self._finder_title, self._finder, self._finder_hint)
        self._finder_row.layout().addStretch(1)

        self._skip = QPushButton("Skip (S)", objectName="skipButton")
        self._skip.setToolTip("Leave this text uncoded for now and go on to the next one (key S).")
        self._skip.clicked.connect(self._skip_text)
        self._undo = QPushButton("Undo (Z)", objectName="undoButton")
        self._undo.setToolTip("Take back your last coding or skip (key Z or Ctrl+Z).")
        self._undo.clicked.connect(self._ask_undo)
        self._flag = QPushButton("Flag… (F)", objectName="flagButton")
        self._flag.setToolTip("Mark this text to come back to — unsure, ask a colleague — with a comment (key F).")
        self._flag.clicked.connect(self.open_flag_dialog)
        keys_hint = QLabel(SINGLE_KEYS, objectName="codingKeysHint", wordWrap=True,
                           alignment=Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        keys_hint.setStyleSheet(f"{theme.HINT_STYLE} font-size: 12px;")
        self._keys_hint = keys_hint
        keys_hint.setMinimumWidth(90)  # a narrow window wraps the hint onto two lines rather than cutting it
        bar = QFrame(objectName="codingActions")
        bar.setStyleSheet(ACTION_BAR_STYLE)
        hbox(bar, self._skip, self._undo, self._flag, (keys_hint, 1), margins=(0, 10, 0, 0))

        self._empty = QLabel(objectName="codingEmpty", wordWrap=True, alignment=Qt.AlignmentFlag.AlignCenter)
        self._empty.setStyleSheet(EMPTY_STYLE)

        text_page = QWidget()
        self._code_title = QLabel("Code as:")
        self._code_title.setStyleSheet(theme.BOLD_STYLE)
        vbox(text_page, self._reason, self._metadata, (self._browser, 1), self._status, self._flag_note, 4,
             self._code_title, self._buttons_row, self._finder_row, self._done_row, margins=(0, 0, 0, 0), spacing=8)
        self._stack = QStackedWidget()
        self._stack.addWidget(text_page)
        self._stack.addWidget(self._empty)
        vbox(self, (self._stack, 1), bar, margins=(0, 0, 0, 0), spacing=10)
        self._shortcuts = self._install_keys()
        self.show_empty("There is no text to code yet.")

    # ----- what the page shows ----------------------------------------------------------------------
    def show_text(self, text: str, metadata: Mapping[str, object], categories: Sequence[str], *,
                  current: str | None = None, changed_from: str | None = None, reason: str = "",
                  flag: str = "", comment: str = "", several: bool = False,
                  ticked: Sequence[str] = ()) -> None:
        """Show ``text`` to code. ``current``: its category now (highlighted); ``changed_from``: the
        category it had before it was changed; ``reason``: why it was chosen; ``flag``/``comment``:
        a flag it already carries. ``several``: a text can have several categories — check boxes
        (``ticked`` ticked at first) and Done."""
        had_focus = self._holds_focus()
        focused = QApplication.focusWidget()
        typing = focused is not None and (focused is self._finder or self._finder.isAncestorOf(focused))
        self._categories = [str(category) for category in dict.fromkeys(categories)]
        self._current = current
        self._several = several
        self._answered = False
        self._reason.setText(reason)
        self._reason.setVisible(bool(reason))
        self._metadata.setText(metadata_line(metadata))
        self._metadata.setVisible(bool(metadata))
        self._set_text(text)
        self._show_status(current, changed_from)
        self._show_flag(flag, comment)
        self._build_buttons(ticked)
        self._stack.setCurrentIndex(0)
        self._set_keys(answering=True)
        if had_focus and (typing or not self._holds_focus()):  # the keys code the new text (typed digits
            self.setFocus()  # would go into the list's field; the button clicked last is gone)

    def show_empty(self, message: str) -> None:
        """Show ``message`` instead of a text (nothing left to code, no texts); Undo still works."""
        had_focus = self._holds_focus()
        self._answered = True
        self._current = None
        self._status_words = ""
        self._empty.setText(message)
        self._stack.setCurrentIndex(1)
        self._set_keys(answering=False)
        if had_focus and not self._holds_focus():  # a disabled button gave the focus away: keep the keys here
            self.setFocus()

    def _holds_focus(self) -> bool:
        focused = QApplication.focusWidget()
        return focused is not None and (focused is self or self.isAncestorOf(focused))

    def set_can_undo(self, can_undo: bool) -> None:
        """Whether there is a coding to take back (Undo and its keys follow)."""
        had_focus = self._holds_focus()
        self._undo.setEnabled(can_undo)
        for shortcut in self._shortcuts["undo"]:
            shortcut.setEnabled(can_undo)
        if had_focus and not self._holds_focus():
            self.setFocus()

    # ----- what the researcher sees (for the page and tests) ----------------------------------------
    def text(self) -> str:
        return self._browser.toPlainText()

    def category_buttons(self) -> list[QAbstractButton]:
        """The numbered buttons (check boxes where a text can have several categories), in key order."""
        return list(self._buttons)

    def codes_several(self) -> bool:
        """Whether the text on screen takes several categories (check boxes and Done)."""
        return self._several

    def ticked(self) -> list[str]:
        """The ticked categories, in the order shown."""
        return [str(button.property("category")) for button in self._buttons if button.isChecked()] + \
            [name for name in self._ticked_beyond if name in self._categories]

    def done_button(self) -> QPushButton:
        return self._done

    def ticked_text(self) -> str:
        """The line next to Done: what Enter will record."""
        return self._ticked_note.text() if not self._done_row.isHidden() else ""

    def uses_category_list(self) -> bool:
        """Whether the categories are also offered in the list that finds one by typing (more than nine)."""
        return not self._finder_row.isHidden()

    def category_finder(self) -> QComboBox:
        return self._finder

    def status_text(self) -> str:
        """The line under the text, in plain words: its category now, and what it was before a change."""
        return self._status_words

    def reason_text(self) -> str:
        return self._reason.text() if not self._reason.isHidden() else ""

    def metadata_text(self) -> str:
        return self._metadata.text() if not self._metadata.isHidden() else ""

    def flag_text(self) -> str:
        return self._flag_note.text() if not self._flag_note.isHidden() else ""

    def empty_message(self) -> str:
        return self._empty.text() if self._stack.currentIndex() == 1 else ""

    def flag_dialog(self) -> FlagDialog | None:
        """The flag dialog while it is open."""
        return self._dialog if self._dialog is not None and self._dialog.isVisible() else None

    # ----- answering ---------------------------------------------------------------------------------
    def open_flag_dialog(self) -> None:
        """Ask for a flag and a comment for the text on screen (window-modal; ``flagged`` on Flag)."""
        if self._stack.currentIndex() != 0 or self.flag_dialog() is not None:
            return
        self._dialog = FlagDialog(self)
        self._dialog.accepted.connect(self._flag_given)
        self._dialog.finished.connect(lambda _: self.setFocus())
        self._dialog.open()

    def _flag_given(self) -> None:
        dialog = self._dialog
        if dialog is None:
            return
        flag, comment = dialog.flag(), " ".join(dialog.comment.text().split())
        self._show_flag(flag, comment)
        self.flagged.emit(flag, comment)

    def _choose(self, category: str) -> None:
        """A category chosen in the list (or typed): coded, or ticked/unticked where a text has several."""
        if self._several:
            self._toggle(category)
            self._finder.lineEdit().clear()
            self._finder.setCurrentIndex(-1)
        else:
            self._code(category)

    def _toggle(self, category: str) -> None:
        if self._answered or category not in self._categories:
            return
        button = next((b for b in self._buttons if b.property("category") == category), None)
        if button is not None:
            button.setChecked(not button.isChecked())  # _show_ticked follows through toggled
        elif category in self._ticked_beyond:
            self._ticked_beyond.remove(category)
            self._show_ticked()
        else:
            self._ticked_beyond.append(category)
            self._show_ticked()

    def _record_set(self) -> None:
        """Done or Enter: the ticked set is this text's coding (none ticked: none of these categories)."""
        if self._answered or not self._several:
            return
        self._answered = True
        self._finder_hint.clear()
        ticked = set(self.ticked())
        self.labelSetCoded.emit([name for name in self._categories if name in ticked])

    def _show_ticked(self) -> None:
        ticked = self.ticked()
        self._ticked_note.setText(
            "Ticked: " + ", ".join(ticked) + ". Enter records them." if ticked else
            "Nothing ticked: Enter records “none of these categories” for this text.")

    def _code(self, category: str) -> None:
        if self._several:
            self._toggle(category)
            return
        if self._answered or category not in self._categories:
            return
        self._answered = True
        self._finder_hint.clear()
        self.coded.emit(category)

    def _code_key(self, number: int) -> None:
        if number <= min(len(self._categories), KEYED):
            self._code(self._categories[number - 1])

    def _skip_text(self) -> None:
        if not self._answered:
            self._answered = True
            self.skipped.emit()

    def _ask_undo(self) -> None:
        if self._undo.isEnabled():
            self.undoRequested.emit()

    def _code_typed(self) -> None:
        """Return in the list: the category whose name was typed, or the only one that contains it."""
        typed = " ".join(self._finder.lineEdit().text().split()).casefold()
        if not typed:
            self._record_set()  # several categories: Enter in the empty list records the ticked ones
            return
        exact = [name for name in self._categories if name.casefold() == typed]
        partial = [name for name in self._categories if typed in name.casefold()]
        found = exact or (partial if len(partial) == 1 else [])
        if found:
            self._choose(found[0])
        elif partial:
            self._finder_hint.setText(f"{len(partial)} categories contain “{typed}”: choose one from the list.")
        else:
            self._finder_hint.setText(f"No category is called “{typed}”.")

    def keyPressEvent(self, event) -> None:  # noqa: ANN001, N802 — Qt's name
        """Enter records the ticked set (a key press no part of the view took, so a dialog's or the
        list's Enter stays theirs)."""
        if self._several and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.isAutoRepeat():
            self._record_set()
            event.accept()
            return
        super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._finder.lineEdit() and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._code_typed()
                return True
            if event.key() == Qt.Key.Key_Escape:
                self._finder.lineEdit().clear()
                self._finder_hint.clear()
                self.setFocus()
                return True
        elif event.type() in (QEvent.Type.Enter, QEvent.Type.FocusIn) and watched in self._buttons:
            self.categoryHovered.emit(watched.property("category"))
        return super().eventFilter(watched, event)

    # ----- parts ---------------------------------------------------------------------------------------
    def _install_keys(self) -> dict[str, list[QShortcut]]:
        def key(sequence: QKeySequence | str, slot) -> QShortcut:
            shortcut = QShortcut(QKeySequence(sequence), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.setAutoRepeat(False)  # holding a key down codes one text, not many
            shortcut.activated.connect(slot)
            return shortcut

        shortcuts: dict[str, list[QShortcut]] = {"answer": [], "undo": []}
        for number in range(1, KEYED + 1):
            digit = Qt.Key(Qt.Key.Key_0.value + number)
            for sequence in (QKeySequence(digit), QKeySequence(QKeyCombination(Qt.KeyboardModifier.KeypadModifier,
                                                                                digit))):
                shortcuts["answer"].append(key(sequence, lambda n=number: self._code_key(n)))
        shortcuts["answer"].append(key("S", self._skip_text))
        shortcuts["answer"].append(key("F", self.open_flag_dialog))
        shortcuts["undo"] = [key("Z", self._ask_undo), key("Ctrl+Z", self._ask_undo)]
        return shortcuts

    def _set_keys(self, answering: bool) -> None:
        for shortcut in self._shortcuts["answer"]:
            shortcut.setEnabled(answering)
        self._skip.setEnabled(answering)
        self._flag.setEnabled(answering)
        self._done.setEnabled(answering)

    def _set_text(self, text: str) -> None:
        if text.strip():
            self._browser.setPlainText(text)
            cursor = QTextCursor(self._browser.document())
            cursor.select(QTextCursor.SelectionType.Document)
            spacing = QTextBlockFormat()
            spacing.setLineHeight(145, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
            spacing.setBottomMargin(4)
            cursor.mergeBlockFormat(spacing)
        else:
            self._browser.setHtml(f"<p style='color:{theme.FAINT_TEXT};'><i>This text is empty.</i></p>")
        self._browser.verticalScrollBar().setValue(0)

    def _show_status(self, current: str | None, changed_from: str | None) -> None:
        self._status_words = ""
        if current is None:
            self._status.clear()
            self._status.hide()
            return
        self._status_words = f"Coded as {current}"
        words = f"Coded as <b>{html.escape(current)}</b>"
        kind = "news"
        if changed_from is not None and changed_from != current:
            self._status_words += f" — changed from {changed_from}"
            words += f" — changed from <b>{html.escape(changed_from)}</b>"
            kind = "caution"
        self._status.setText(words)
        self._status.setStyleSheet(f"QLabel#codingStatus {{ {theme.notice_style(kind)} }}")
        self._status.show()

    def _show_flag(self, flag: str, comment: str) -> None:
        words = f"Flagged: {flag}" + (f" — {comment}" if comment else "") if flag or comment else ""
        self._flag_note.setText(words)
        self._flag_note.setVisible(bool(words))

    def _build_buttons(self, ticked: Sequence[str] = ()) -> None:
        for button in self._buttons:
            button.removeEventFilter(self)
            button.setParent(None)
            button.deleteLater()
        self._buttons = []
        several = self._several
        self._buttons_row.setStyleSheet(LABEL_SET_STYLE if several else CATEGORY_BUTTON_STYLE)
        self._code_title.setText("Tick every category that fits, then Done:" if several else "Code as:")
        self._keys_hint.setText(SEVERAL_KEYS if several else SINGLE_KEYS)
        self._ticked_beyond = [name for name in ticked if name in self._categories[KEYED:]]
        for number, name in enumerate(self._categories[:KEYED], start=1):
            button: QAbstractButton
            if several:
                button = QCheckBox(category_button_text(number, name), objectName=f"categoryButton{number}")
                button.setChecked(name in ticked)
                button.setToolTip(f"Tick or untick “{name}” for this text (key {number}).")
                button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Enter stays Done, never a box's toggle
                button.toggled.connect(lambda _checked: self._show_ticked())
            else:
                button = QPushButton(category_button_text(number, name), objectName=f"categoryButton{number}")
                button.setToolTip(f"Code this text as “{name}” (key {number}).")
                button.clicked.connect(lambda _=False, category=name: self._code(category))
            button.setProperty("category", name)
            button.setProperty("current", name == self._current)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.installEventFilter(self)
            self._buttons_row.add_widget(button)
            self._buttons.append(button)
        self._finder.clear()
        self._finder.addItems(self._categories)
        self._finder.setCurrentIndex(-1)
        self._finder.lineEdit().clear()
        self._finder_hint.clear()
        completer = QCompleter(self._categories, self._finder)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self._finder.setCompleter(completer)
        self._finder_title.setText(f"All {len(self._categories)} categories:")
        self._finder_row.setVisible(len(self._categories) > KEYED)
        self._done_row.setVisible(several)
        if several:
            self._show_ticked()
