"""The column-mapping form: which column holds the texts, which your categories, and so on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QLabel, QLineEdit, QWidget

from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.category_preview import category_preview
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui import theme
from guiapp.ui.common.column_check_list import ColumnCheckList
from guiapp.ui.common.layouts import STRETCH, vbox
from guiapp.ui.common.radio_choice import radio_choice
from guiapp.ui.steps.data.column_previews import column_preview, several_categories_hint, texts_hint

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

NONE_CHOICE = "— none —"
SEPARATORS = {"a space": " ", "a new line": "\n", "“ | ”": " | ", "“. ” (full stop)": ". "}


class MappingPanel(QWidget):
    """Edits a :class:`ColumnMapping`; emits ``mappingChanged`` (debounced) after each change.

    "A text can have several categories" (``multiLabel``) offers the two ways a table can hold them:
    one 0/1 column per category (``perCategoryColumns``, the columns ticked in ``categoryColumns``)
    or one column listing them (``oneListColumn``: the category column and ``labelSeparator``)."""

    mappingChanged = Signal(object)  # ColumnMapping

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._frame: pd.DataFrame | None = None
        self._fixes: CategoryFixes | None = None  # the study's category fixes: the hint counts as the check does
        self._indicator_guess: list[str] | None = None  # the table's 0/1 columns, found when first needed
        self._several_ready = False  # the list of category columns is filled for this table
        self._debounce = QTimer(self, singleShot=True, interval=250)
        self._debounce.timeout.connect(lambda: self.mappingChanged.emit(self.mapping()))

        intro = QLabel(
            "TextLab has guessed which column plays which role. Check the guesses and change "
            "anything that is not right; the report updates by itself.",
            objectName="mappingIntro",
        )
        intro.setWordWrap(True)

        self.text_list = ColumnCheckList("textColumns")
        self.text_list.setToolTip("Tick the column with your texts. Tick several to join them into one text (e.g. title and body).")
        self.separator = QComboBox(objectName="textSeparator")
        self.separator.addItems(list(SEPARATORS))
        self.separator.setToolTip("What goes between the parts when several text columns are joined.")
        self.separator_label = QLabel("Join them with")
        self.category = self._combo("categoryColumn", "The column with the categories you coded by hand. Rows left empty count as “not yet coded”.")
        self.id_column = self._combo("idColumn", "Optional: a column that names each text (a document number). It is carried into exports.")
        self.split = self._combo("splitColumn", "Optional: a column saying which texts are for training and which for the final test (values like “train” and “test”). Without it TextLab sets aside a random test set.")
        self.metadata = ColumnCheckList("metadataColumns")
        self.metadata.setToolTip("Optional: columns to keep for later, e.g. to compare groups of texts or to include in "
                                 "exports. Columns that already have a role above are not listed.")
        self._build_several_categories()

        self.hints = {name: QLabel(objectName=f"{name}Hint") for name in ("text", "category", "id", "split")}
        for hint in self.hints.values():
            hint.setWordWrap(True)
            hint.setStyleSheet(f"{theme.HINT_STYLE} font-size: 11px;")

        texts = QGroupBox("Your texts")
        form = QFormLayout(texts)
        form.addRow(self.text_list)
        form.addRow(self.hints["text"])
        form.addRow(self.separator_label, self.separator)
        coding = QGroupBox("Your coding")
        self._coding_form = form2 = QFormLayout(coding)
        form2.addRow(self.several)
        form2.addRow(self.layout_choice)
        form2.addRow(self.category_columns)
        form2.addRow("Category column", self.category)
        form2.addRow("Separated by", self.label_separator)
        form2.addRow(self.hints["category"])
        optional = QGroupBox("Optional")
        form3 = QFormLayout(optional)
        form3.addRow("ID column", self.id_column)
        form3.addRow(self.hints["id"])
        form3.addRow("Train/test column", self.split)
        form3.addRow(self.hints["split"])
        form3.addRow(QLabel("Keep for later (group comparisons, export):"))
        form3.addRow(self.metadata)

        vbox(self, intro, texts, coding, optional, STRETCH)

        self.text_list.itemChanged.connect(self._changed)
        self.metadata.itemChanged.connect(self._changed)
        self.category_columns.itemChanged.connect(self._changed)
        for combo in (self.separator, self.id_column, self.split):
            combo.currentIndexChanged.connect(self._changed)
        self.category.currentIndexChanged.connect(self._category_column_changed)
        self.several.toggled.connect(self._several_toggled)
        self.per_column.toggled.connect(self._layout_chosen)
        self.label_separator.textEdited.connect(self._changed)
        self._show_several_categories()

    def _build_several_categories(self) -> None:
        """The check box, the two layouts of several categories, the list of 0/1 columns, the separator."""
        self.several = QCheckBox("A text can have several categories", objectName="multiLabel")
        self.several.setToolTip("Tick this when one text can belong to more than one category at once, e.g. a "
                                "speech about both the economy and health.")
        self._layouts, (self.per_column, self.one_list) = radio_choice(
            self,
            ("One column per category (1 = has it)", "perCategoryColumns",
             "Your table has a column for each category, with 1 (or yes) where the text has that category and 0 "
             "where it has not. The column's name is the category's name."),
            ("One column lists the categories", "oneListColumn",
             "One column holds all the categories of a text, e.g. “economy; health”."))
        self.layout_choice = QWidget(objectName="categoryLayoutChoice")
        vbox(self.layout_choice, self.per_column, self.one_list, margins=(22, 0, 0, 0), spacing=2)
        self.category_columns = ColumnCheckList("categoryColumns", max_height=200, fit=True)
        self.category_columns.setToolTip("Tick one column for each category. Columns that hold only 0 and 1 "
                                         "were ticked for you. Columns with your texts, IDs or train/test are not listed.")
        self.label_separator = QLineEdit(objectName="labelSeparator")
        self.label_separator.setMaximumWidth(70)
        self.label_separator.setToolTip("The sign written between a text's categories in that column, e.g. “;” in "
                                        "“economy; health”. TextLab guessed it from the column; change it if it is wrong. "
                                        "Spaces around the categories do not matter.")

    def _combo(self, name: str, tip: str) -> QComboBox:
        combo = QComboBox(objectName=name)
        combo.setToolTip(tip)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(14)
        return combo

    # -- public ----------------------------------------------------------------------------
    def set_table(self, frame: pd.DataFrame, mapping: ColumnMapping) -> None:
        """Show the columns of ``frame`` and select ``mapping`` (without emitting a change)."""
        self._frame = frame
        self._indicator_guess = None
        columns = [str(c) for c in frame.columns]
        widgets = (self.text_list, self.metadata, self.separator, self.category, self.id_column, self.split,
                   self.several, self.per_column, self.one_list, self.category_columns, self.label_separator)
        for widget in widgets:
            widget.blockSignals(True)
        self.text_list.set_columns(columns, mapping.text_columns)
        self.metadata.set_columns(columns, mapping.metadata_columns)
        for combo, chosen in ((self.category, mapping.category_column), (self.id_column, mapping.id_column), (self.split, mapping.split_column)):
            combo.clear()
            combo.addItem(NONE_CHOICE)
            combo.addItems(columns)
            combo.setCurrentIndex(combo.findText(chosen) if chosen in columns else 0)
        separator = next((label for label, value in SEPARATORS.items() if value == mapping.text_separator), None)
        self.separator.setCurrentText(separator or next(iter(SEPARATORS)))
        several = bool(mapping.multi_label)
        self.several.setChecked(several)
        self._several_ready = several
        if several:  # the study's own choice, as it was kept
            self.category_columns.set_columns(columns, mapping.category_columns)
            per_column = bool(mapping.category_columns) or not mapping.category_column
            (self.per_column if per_column else self.one_list).setChecked(True)
            self.label_separator.setText(mapping.label_separator)
        else:
            self.category_columns.clear()
            self.label_separator.clear()
        for widget in widgets:
            widget.blockSignals(False)
        self._offer_free_columns()
        self._show_several_categories()
        self._update_hints()

    def set_category_fixes(self, fixes: CategoryFixes | None) -> None:
        """The study's category fixes (merges, trimmed spaces, left out): the category hint then
        counts the categories after them, as the data check does (no change is emitted)."""
        self._fixes = fixes
        self._update_hints()

    def category_hint(self) -> str:
        return self.hints["category"].text()

    def mapping(self) -> ColumnMapping:
        def chosen(combo: QComboBox) -> str | None:
            return None if combo.currentIndex() <= 0 else combo.currentText()

        several = self.several.isChecked()
        per_column = several and self.per_column.isChecked()
        return ColumnMapping(
            text_columns=self.text_list.checked(),
            category_column=None if per_column else chosen(self.category),
            id_column=chosen(self.id_column),
            split_column=chosen(self.split),
            metadata_columns=self.metadata.checked(),
            text_separator=SEPARATORS[self.separator.currentText()],
            multi_label=several,
            category_columns=self.category_columns.checked() if per_column else [],
            label_separator=self._label_separator() if several and not per_column else ColumnMapping.label_separator,
        )

    # -- internals -------------------------------------------------------------------------
    def _changed(self, *_args) -> None:
        self._offer_free_columns()
        self._update_hints()
        self._debounce.start()

    def _several_toggled(self, several: bool) -> None:
        """Ticked: offer the two layouts, the 0/1 columns pre-ticked; unticked: the one category column
        as it was."""
        if several and not self._several_ready and self._frame is not None:
            self._several_ready = True
            guess = self._indicator_columns()
            self.category_columns.set_columns([str(c) for c in self._frame.columns], guess)
            self._offer_free_columns()
            self.category_columns.set_checked(guess)  # the guess, less columns that have another role
            self._set_layout(len(guess) >= 2)  # a study of several categories needs at least two columns
        self._show_several_categories()
        self._changed()

    def _set_layout(self, per_column: bool) -> None:
        for button in (self.per_column, self.one_list):
            button.blockSignals(True)
        (self.per_column if per_column else self.one_list).setChecked(True)
        for button in (self.per_column, self.one_list):
            button.blockSignals(False)
        if not per_column and not self.label_separator.text():
            self._guess_label_separator()

    def _layout_chosen(self, _per_column: bool) -> None:
        if self.one_list.isChecked() and not self.label_separator.text():
            self._guess_label_separator()
        self._show_several_categories()
        self._changed()

    def _category_column_changed(self, _index: int) -> None:
        if self.several.isChecked() and self.one_list.isChecked():
            self._guess_label_separator()  # another column: its own separator
        self._changed()

    def _guess_label_separator(self) -> None:
        from guiapp.core.study.label_sets import guess_label_separator

        column = self.category.currentText() if self.category.currentIndex() > 0 else None
        if self._frame is None or column is None or column not in self._frame.columns:
            return
        self.label_separator.setText(guess_label_separator(self._frame[column]))

    def _label_separator(self) -> str:
        return self.label_separator.text() or ColumnMapping.label_separator

    def _indicator_columns(self) -> list[str]:
        """The table's columns that look like one 0/1 column per category (found once per table)."""
        if self._indicator_guess is None:
            from guiapp.core.study.label_sets import indicator_like_columns

            self._indicator_guess = [str(c) for c in indicator_like_columns(self._frame)] if self._frame is not None else []
        return self._indicator_guess

    def _show_several_categories(self) -> None:
        """Show the controls of the chosen layout only."""
        several = self.several.isChecked()
        per_column = several and self.per_column.isChecked()
        form = self._coding_form
        form.setRowVisible(self.layout_choice, several)
        form.setRowVisible(self.category_columns, per_column)
        form.setRowVisible(self.category, not per_column)
        form.setRowVisible(self.label_separator, several and not per_column)

    def _offer_free_columns(self) -> None:
        """"Keep for later" lists only the columns without another role (text, category, ID, split);
        the category columns only those that are not texts, IDs or train/test."""
        if self._frame is None:
            return
        mapping = self.mapping()
        everything = {str(c) for c in self._frame.columns}
        texts_and_ids = {*mapping.text_columns, mapping.id_column, mapping.split_column}
        self.category_columns.offer_only(everything - texts_and_ids)
        used = {*texts_and_ids, mapping.category_column, *mapping.category_columns}
        self.metadata.offer_only(everything - used)

    def _update_hints(self) -> None:
        mapping = self.mapping()
        several = len(mapping.text_columns) > 1
        self.separator.setVisible(several)
        self.separator_label.setVisible(several)
        frame = self._frame
        if frame is None:
            return
        self.hints["text"].setText(texts_hint(frame, mapping.text_columns))
        for key, column in (("category", mapping.category_column), ("id", mapping.id_column), ("split", mapping.split_column)):
            if key == "category" and mapping.multi_label:
                text = several_categories_hint(frame, mapping, self._indicator_columns, self.per_column.isChecked(),
                                               self._fixes)
            elif not column:
                text = ""
            elif key == "category":  # counted as the data check counts it, after the study's fixes
                text = category_preview(frame[column], self._fixes).sentence()
            else:
                text = column_preview(frame[column])
            self.hints[key].setText(text)
            self.hints[key].setVisible(bool(text))
