"""The codebook editor: the categories on the left (add one by name, remove one, change their order —
keys 1–9 code the first nine), and on the right the chosen category's definition and example texts.

The editor holds a :class:`~guiapp.core.coding.codebook.Codebook` and says when it changed
(``changed``, with a copy of the new codebook): at once for a category or an example added, removed or
moved, and once typing in the definition pauses. A name that is empty or already used is refused,
with the reason under the name field.

:meth:`CodebookEditor.merge` and :meth:`CodebookEditor.split` merge a category into another or split
it into parts (the Codebook tab's "Merge into…" and "Split into…", ``codebook_tab.py``, which also
keeps the codebook's versions).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.common.layouts import vbox
from guiapp.ui.common.scroll_area import ScrollArea

TYPING_PAUSE_MS = 300  # the definition is passed on once typing pauses this long
NAME = Qt.ItemDataRole.UserRole
KEYED = 9

LIST_STYLE = (
    f"QListWidget {{ background: {theme.WHITE}; border: 1px solid {theme.BORDER}; border-radius: 6px;"
    " padding: 4px; font-size: 14px; }"
    "QListWidget::item { padding: 6px 8px; border-radius: 4px; }"
    f"QListWidget::item:selected {{ background: {theme.SIDEBAR_SELECTED}; color: {theme.ACCENT}; }}"
)
EXAMPLES_STYLE = f"QListWidget#codebookExamples::item {{ border-bottom: 1px solid {theme.BORDER}; }}"
EDIT_STYLE = (f"QPlainTextEdit {{ background: {theme.WHITE}; border: 1px solid {theme.BORDER}; border-radius: 6px;"
              " padding: 6px; font-size: 14px; }")


def _item_text(position: int, name: str) -> str:
    return f"{position + 1}   {name}" if position < KEYED else f"     {name}"


class CodebookEditor(QWidget):
    """Edit a codebook; ``changed(Codebook)`` after every change."""

    changed = Signal(object)  # the new Codebook (a copy)
    chosenChanged = Signal()  # another category is shown on the right

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codebookEditor")
        self._codebook = Codebook()
        self._loading = False
        self._typing = QTimer(self, singleShot=True, interval=TYPING_PAUSE_MS)
        self._typing.timeout.connect(self._emit)

        # ----- left: the categories -----
        self._list = QListWidget(objectName="codebookCategories")
        self._list.setStyleSheet(LIST_STYLE)
        self._list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self._list.setToolTip("Your categories. Keys 1–9 code a text as the first nine; drag one to change "
                              "the order.")
        self._list.currentRowChanged.connect(self._show_chosen)
        self._list.model().rowsMoved.connect(self._reordered)
        self._up = QPushButton("↑", objectName="categoryUp", toolTip="Move the category up (it gets a lower key).")
        self._down = QPushButton("↓", objectName="categoryDown", toolTip="Move the category down.")
        self._remove = QPushButton("Remove", objectName="removeCategory",
                                   toolTip="Take the category out of the codebook. Texts already coded keep "
                                           "their coding.")
        self._up.clicked.connect(lambda: self._move(-1))
        self._down.clicked.connect(lambda: self._move(1))
        self._remove.clicked.connect(self._remove_category)
        for button in (self._up, self._down):
            button.setFixedWidth(34)
        self.name_field = QLineEdit(objectName="newCategoryName", placeholderText="New category name")
        self.name_field.returnPressed.connect(self.add_category)
        self.name_field.textEdited.connect(self._check_typed_name)
        self._add = QPushButton("Add category", objectName="addCategory")
        self._add.clicked.connect(self.add_category)
        self._name_problem = QLabel(objectName="categoryNameProblem", wordWrap=True)
        self._name_problem.setStyleSheet(f"{theme.ERROR_STYLE} font-size: 12px;")
        self._name_problem.hide()

        title = QLabel("Categories")
        title.setStyleSheet(theme.heading_style(15))
        moves = QHBoxLayout()
        moves.setSpacing(4)
        for button in (self._up, self._down):
            moves.addWidget(button)
        moves.addStretch(1)
        moves.addWidget(self._remove)
        adding = QHBoxLayout()
        adding.setSpacing(6)
        adding.addWidget(self.name_field, 1)
        adding.addWidget(self._add)
        left = QVBoxLayout()
        left.setSpacing(6)
        left.addWidget(title)
        left.addWidget(self._list, 1)
        left.addLayout(moves)
        left.addSpacing(6)
        left.addLayout(adding)
        left.addWidget(self._name_problem)
        left_panel = QWidget()
        left_panel.setLayout(left)
        left_panel.setMinimumWidth(230)
        left_panel.setMaximumWidth(340)

        # ----- right: the chosen category -----
        self._heading = QLabel(objectName="codebookCategoryName", wordWrap=True)
        self._heading.setStyleSheet(theme.heading_style(17))
        self._key_note = QLabel(objectName="codebookKeyNote")
        self._key_note.setStyleSheet(theme.MUTED_STYLE)
        self.definition = QPlainTextEdit(objectName="codebookDefinition")
        self.definition.setStyleSheet(EDIT_STYLE)
        self.definition.setPlaceholderText("What belongs in this category, and what does not — the rule "
                                           "another coder would follow.")
        self.definition.setMinimumHeight(110)
        self.definition.textChanged.connect(self._definition_typed)
        self._examples = QListWidget(objectName="codebookExamples")
        self._examples.setStyleSheet(LIST_STYLE + EXAMPLES_STYLE)
        self._examples.setWordWrap(True)
        self._examples.setMinimumHeight(120)
        self._examples.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                       | QAbstractItemView.EditTrigger.EditKeyPressed)
        self._examples.setToolTip("Texts that clearly belong in this category. Double-click one to change it.")
        self._examples.itemChanged.connect(self._example_edited)
        self._examples.currentRowChanged.connect(lambda _: self._update_buttons())
        self._no_examples = QLabel("No example texts yet: paste a text that clearly belongs here, then Add example.",
                                   objectName="codebookNoExamples", wordWrap=True)
        self._no_examples.setStyleSheet(f"{theme.HINT_STYLE} font-size: 12px;")
        self.example_field = QLineEdit(objectName="newExample", placeholderText="Paste or type an example text")
        self.example_field.returnPressed.connect(self.add_example)
        self._add_example = QPushButton("Add example", objectName="addExample")
        self._add_example.clicked.connect(self.add_example)
        self._remove_example = QPushButton("Remove example", objectName="removeExample")
        self._remove_example.clicked.connect(self._remove_chosen_example)

        definition_title = QLabel("Definition")
        definition_title.setStyleSheet(theme.BOLD_STYLE)
        examples_title = QLabel("Example texts")
        examples_title.setStyleSheet(theme.BOLD_STYLE)
        example_row = QHBoxLayout()
        example_row.setSpacing(6)
        example_row.addWidget(self.example_field, 1)
        example_row.addWidget(self._add_example)
        example_row.addWidget(self._remove_example)
        details = QWidget()
        vbox(details, self._heading, self._key_note, 6, definition_title, (self.definition, 2), 6, examples_title,
             self._no_examples, (self._examples, 3), example_row, margins=(4, 0, 4, 0), spacing=6)
        self._nothing = QLabel("Add a category on the left, then write what it means and give example texts.",
                               objectName="codebookNothingChosen", wordWrap=True,
                               alignment=Qt.AlignmentFlag.AlignCenter)
        self._nothing.setStyleSheet(f"font-size: 14px; {theme.text_style(theme.FAINT_TEXT)}")
        self._right = QStackedWidget()
        self._right.addWidget(self._nothing)
        self._right.addWidget(ScrollArea(details, name="codebookDetailsScroll", sideways=False))

        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(18)
        row.addWidget(left_panel)
        row.addWidget(self._right, 1)
        self._fill_list()

    # ----- the codebook ------------------------------------------------------------------------------
    def set_codebook(self, codebook: Codebook) -> None:
        """Edit ``codebook`` (a copy is kept); the category chosen before stays chosen if it is still
        there. Does not emit ``changed``."""
        self._typing.stop()
        chosen = self.chosen_name()
        self._codebook = codebook.with_categories(())
        self._fill_list(chosen)

    def codebook(self) -> Codebook:
        """A copy of the codebook as it is now, with what is being typed."""
        return self._codebook.with_categories(())

    def flush(self) -> None:
        """Pass on the definition being typed now, without waiting for typing to pause."""
        if self._typing.isActive():
            self._emit()

    def chosen_name(self) -> str | None:
        item = self._list.currentItem()
        return item.data(NAME) if item is not None else None

    def choose(self, name: str) -> None:
        """Show the category called ``name`` on the right."""
        for row in range(self._list.count()):
            if self._list.item(row).data(NAME) == name:
                self._list.setCurrentRow(row)
                return

    def name_problem(self) -> str:
        """Why the typed name cannot be added ("" when it can, or nothing was tried)."""
        return self._name_problem.text() if not self._name_problem.isHidden() else ""

    def examples(self) -> list[str]:
        """The example texts shown for the chosen category."""
        return [self._examples.item(row).text() for row in range(self._examples.count())]

    # ----- editing -----------------------------------------------------------------------------------
    def add_category(self) -> None:
        """Add the category typed in the name field, or say why it cannot be added."""
        name = " ".join(self.name_field.text().split())
        problem = self._problem_with(name)
        if problem:
            self._say_name_problem(problem)
            return
        self._say_name_problem("")
        self.name_field.clear()
        self._codebook.categories.append(CodebookCategory(name))
        self._fill_list(name)
        self._emit()
        self.definition.setFocus()

    def add_example(self) -> None:
        category = self._chosen_category()
        text = self.example_field.text().strip()
        if category is None or not text:
            return
        category.examples.append(text)
        self.example_field.clear()
        self._fill_examples(category)
        self._examples.setCurrentRow(self._examples.count() - 1)
        self._emit()

    def merge(self, source: str, target: str) -> None:
        """Merge ``source`` into ``target``: ``source`` leaves the codebook and its example texts join
        ``target``'s. Codings are not changed (the Codebook tab lists them to re-check).
        :class:`UserError` when either is not a category or they are the same."""
        names = self._codebook.names()
        for name in (source, target):
            if name not in names:
                raise UserError(f"“{name}” is not a category of the codebook.", "Choose one of its categories.")
        if source == target:
            raise UserError(f"“{source}” cannot be merged into itself.", "Choose another category to merge it into.")
        merged, into = self._codebook.category(source), self._codebook.category(target)
        into.examples.extend(example for example in merged.examples if example not in into.examples)
        self._codebook.categories.remove(merged)
        self._fill_list(target)
        self._emit()

    def split(self, source: str, parts: list[str]) -> list[str]:
        """Split ``source`` into ``parts`` (two or more names; ``source`` itself may be one of them and
        stays): the new parts are added where ``source`` was, with a definition that says where they
        come from, and ``source`` leaves the codebook unless it is a part. Returns the parts' names
        as kept. :class:`UserError` when a name is empty, taken by another category, or given twice."""
        names = self._codebook.names()
        if source not in names:
            raise UserError(f"“{source}” is not a category of the codebook.", "Choose one of its categories.")
        parts = [" ".join(part.split()) for part in parts]
        parts = [part for part in parts if part]
        if len(parts) < 2 or len({part.casefold() for part in parts}) != len(parts):
            raise UserError(f"“{source}” must be split into two or more different categories.",
                            "Name each part once, one name per line.")
        for part in parts:
            if part != source:
                problem = self._problem_with(part)
                if problem:
                    raise UserError(problem, "Name the part differently, or merge into that category instead.")
        position = names.index(source)
        old = self._codebook.categories[position]
        new = [old if part == source else CodebookCategory(part, f"Split from “{source}”. {old.definition}".strip())
               for part in parts]
        self._codebook.categories[position:position + 1] = new
        self._fill_list(parts[0])
        self._emit()
        return parts

    def _remove_chosen_example(self) -> None:
        category, row = self._chosen_category(), self._examples.currentRow()
        if category is None or not 0 <= row < len(category.examples):
            return
        del category.examples[row]
        self._fill_examples(category)
        self._examples.setCurrentRow(min(row, self._examples.count() - 1))
        self._emit()

    def _example_edited(self, item: QListWidgetItem) -> None:
        category = self._chosen_category()
        if self._loading or category is None:
            return
        row = self._examples.row(item)
        text = item.text().strip()
        if text:
            category.examples[row] = text
        else:  # emptied: the example goes
            del category.examples[row]
            self._fill_examples(category)
        self._emit()

    def _remove_category(self) -> None:
        row = self._list.currentRow()
        if not 0 <= row < len(self._codebook.categories):
            return
        del self._codebook.categories[row]
        remaining = self._codebook.names()
        self._fill_list(remaining[min(row, len(remaining) - 1)] if remaining else None)
        self._emit()

    def _move(self, step: int) -> None:
        row = self._list.currentRow()
        target = row + step
        categories = self._codebook.categories
        if not (0 <= row < len(categories) and 0 <= target < len(categories)):
            return
        categories[row], categories[target] = categories[target], categories[row]
        self._fill_list(categories[target].name)
        self._emit()

    def _reordered(self, *_args: object) -> None:
        """Dragged in the list: the codebook takes the list's order."""
        if self._loading:
            return
        by_name = {category.name: category for category in self._codebook.categories}
        order = [self._list.item(row).data(NAME) for row in range(self._list.count())]
        self._codebook.categories = [by_name[name] for name in order if name in by_name]
        QTimer.singleShot(0, self, self._renumber)  # once the drop has settled
        self._emit()

    def _renumber(self) -> None:
        self._fill_list(self.chosen_name())

    def _definition_typed(self) -> None:
        category = self._chosen_category()
        if self._loading or category is None:
            return
        category.definition = self.definition.toPlainText()
        self._list.currentItem().setToolTip(category.definition)
        self._typing.start()

    def _emit(self) -> None:
        self._typing.stop()
        self.changed.emit(self.codebook())

    # ----- names -------------------------------------------------------------------------------------
    def _problem_with(self, name: str) -> str:
        if not name:
            return "Type a name for the new category first."
        same = next((known for known in self._codebook.names() if known.casefold() == name.casefold()), None)
        if same == name:
            return f"“{name}” is already a category. Give the new one its own name."
        if same is not None:
            return f"“{same}” is already a category; a second one spelled “{name}” would be confused with it."
        return ""

    def _check_typed_name(self, typed: str) -> None:
        name = " ".join(typed.split())
        self._say_name_problem(self._problem_with(name) if name else "")

    def _say_name_problem(self, problem: str) -> None:
        self._name_problem.setText(problem)
        self._name_problem.setVisible(bool(problem))
        self.name_field.setStyleSheet(theme.FIELD_ERROR_STYLE if problem else "")

    # ----- showing -----------------------------------------------------------------------------------
    def _chosen_category(self) -> CodebookCategory | None:
        row = self._list.currentRow()
        return self._codebook.categories[row] if 0 <= row < len(self._codebook.categories) else None

    def _fill_list(self, chosen: str | None = None) -> None:
        self._loading = True
        self._list.clear()
        for position, category in enumerate(self._codebook.categories):
            item = QListWidgetItem(_item_text(position, category.name))
            item.setData(NAME, category.name)
            item.setToolTip(category.definition or "No definition yet.")
            self._list.addItem(item)
        self._loading = False
        names = self._codebook.names()
        row = names.index(chosen) if chosen in names else (0 if names else -1)
        self._list.setCurrentRow(row)
        self._show_chosen(row)

    def _show_chosen(self, row: int) -> None:
        if self._loading:
            return
        if self._typing.isActive():  # the definition typed a moment ago is passed on first
            self._emit()
        category = self._chosen_category()
        self._right.setCurrentIndex(0 if category is None else 1)
        self.chosenChanged.emit()
        if category is not None:
            self._heading.setText(category.name)
            self._key_note.setText(f"Key {row + 1} codes a text as this category." if row < KEYED
                                   else "Find it by typing its name in the list of all categories while coding.")
            self._loading = True
            self.definition.setPlainText(category.definition)
            self._loading = False
            self._fill_examples(category)
        self._update_buttons()

    def _fill_examples(self, category: CodebookCategory) -> None:
        self._loading = True
        self._examples.clear()
        for text in category.examples:
            item = QListWidgetItem(text)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            self._examples.addItem(item)
        self._loading = False
        self._no_examples.setVisible(not category.examples)
        self._update_buttons()

    def _update_buttons(self) -> None:
        row, count = self._list.currentRow(), self._list.count()
        self._up.setEnabled(row > 0)
        self._down.setEnabled(0 <= row < count - 1)
        self._remove.setEnabled(row >= 0)
        has_category = self._chosen_category() is not None
        self._add_example.setEnabled(has_category)
        self.example_field.setEnabled(has_category)
        self._remove_example.setEnabled(has_category and self._examples.currentRow() >= 0)
