"""The filter bar above the Documents table: which documents to read, in plain words.

It only describes a :class:`DocumentFilter` and emits it (``filterChanged``); the table does the
filtering. Clicks and ticks emit at once; typing in the search box waits 200 ms after the last key,
so a search over 100,000 texts does not run for every letter.

Where a text can have several categories, "Your coding" and "Model's answer" keep the texts that
have the category (among others, or none of the categories), and "Mistake" keeps one category's
mistakes: the texts the model missed in it, or put in it wrongly.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.explain.documents import NO_CATEGORY, DocumentFilter, DocumentsTable, format_value
from guiapp.ui import theme
from guiapp.ui.common.flow_layout import FlowRow, together
from guiapp.ui.steps.documents.short_combo import fit_list, short_combo

ANY = "Any"
NO_COLUMN = "(none)"
TYPING_DELAY_MS = 200
MAX_SUGGESTIONS = 500  # distinct values offered while typing in the column filter
MODEL_TIP = ("The model whose answers “Only mistakes”, “Model's answer” and “Confidence” use; its answers "
             "are coloured in the table and listed first.")
MISTAKES_TIP = "Show only the texts where the model's answer differs from your coding."
CONFIDENCE_TIP = ("Confidence: how sure the model was of its answer, from 0 to 100 %. Keep only the texts whose "
                  "confidence lies in this range, e.g. 0 to 60 % for the answers it was unsure of.")
NO_CONFIDENCE_TIP = "This model does not say how sure it is of its answers, so there is no confidence to filter by."
SEVERAL_CONFIDENCE_TIP = ("Confidence: how sure the model was of its least sure yes-or-no over the categories, from 0 "
                          "to 100 %. Keep only the texts whose confidence lies in this range, e.g. 0 to 60 % for the "
                          "answers it was unsure of.")
SEARCH_TIP = "Show only the texts that contain these letters (capitals and accents do not matter)."
COLUMN_TIP = "Filter by another column of your spreadsheet, such as the party or the year."
SEVERAL_MISTAKES_TIP = ("Show only the texts where the model's categories differ from yours: it missed a category "
                        "you coded, or added one you did not.")
MISTAKE_TIP = ("One category's mistakes: “missed Economy” keeps the texts you coded Economy that the model did not "
               "put in Economy; “wrongly Economy” keeps those it put in Economy although you did not code them so.")
SEVERAL_HUMAN_TIP = "Show only the texts you gave this category (with or without others)."
SEVERAL_PREDICTED_TIP = "Show only the texts the model put in this category (with or without others)."
MISSED, WRONGLY = "missed", "wrongly"


def count_text(shown: int, total: int) -> str:
    if shown == total:
        return f"Showing all {total:,} documents" if total != 1 else "Showing the one document"
    return f"Showing {shown:,} of {total:,} documents"


def _label(text: str, tip: str = "") -> QLabel:
    label = QLabel(text)
    label.setToolTip(tip)
    return label


class DocumentFilterBar(QWidget):
    """Model, mistakes, categories, confidence, search, another column, "Clear filters", count."""

    filterChanged = Signal(object)  # a DocumentFilter

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._table: DocumentsTable | None = None
        self._quiet = False
        self._typing = QTimer(self, singleShot=True, interval=TYPING_DELAY_MS)
        self._typing.timeout.connect(self._emit)

        self.model_combo = short_combo("documentsModel", 22)
        self.model_combo.setToolTip(MODEL_TIP)
        self.mistakes_box = QCheckBox("Only mistakes", objectName="documentsMistakes")
        self.mistakes_box.setToolTip(MISTAKES_TIP)
        self.human_combo = short_combo("documentsHuman", 14)
        self.human_combo.setToolTip("Show only the texts you coded in this category.")
        self.predicted_combo = short_combo("documentsPredicted", 14)
        self.predicted_combo.setToolTip("Show only the texts the model put in this category.")
        self.mistake_combo = short_combo("documentsMistake", 16)  # several categories per text only
        self.mistake_combo.setToolTip(MISTAKE_TIP)
        self.low_spin = self._percent_spin("documentsConfidenceLow", 0)
        self.high_spin = self._percent_spin("documentsConfidenceHigh", 100)
        self.confidence_label = _label("Confidence", CONFIDENCE_TIP)
        self.search_edit = QLineEdit(objectName="documentsSearch")
        self.search_edit.setPlaceholderText("Search the texts…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setToolTip(SEARCH_TIP)
        self.search_edit.setMinimumWidth(220)
        self.column_combo = short_combo("documentsColumn", 12)
        self.column_combo.setToolTip(COLUMN_TIP)
        self.mode_combo = QComboBox(objectName="documentsColumnMode")
        self.mode_combo.addItem("contains", "contains")
        self.mode_combo.addItem("is", "equals")
        self.mode_combo.setToolTip("“contains”: the value appears anywhere in the cell; “is”: the cell is exactly it.")
        self.value_edit = QLineEdit(objectName="documentsColumnValue")
        self.value_edit.setPlaceholderText("value")
        self.value_edit.setClearButtonEnabled(True)
        self.value_edit.setMinimumWidth(120)
        self.clear_button = QPushButton("Clear filters", objectName="documentsClear")
        self.clear_button.setToolTip("Show every document again (the chosen model stays).")
        self.count_label = QLabel("", objectName="documentsCount")
        self.count_label.setStyleSheet(f"{theme.SOFT_STYLE} {theme.BOLD_STYLE}")

        self.column_box = together(_label("Column", COLUMN_TIP), self.column_combo, self.mode_combo, self.value_edit)
        self.mistake_box = together(_label("Mistake", MISTAKE_TIP), self.mistake_combo)
        # the filters wrap onto more lines in a narrow window instead of scrolling sideways
        flow = FlowRow(spacing=14, line_spacing=6)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(flow)
        for widget in (
            together(_label("Model", MODEL_TIP), self.model_combo),
            self.mistakes_box,
            together(_label("Your coding", "The category you gave the texts."), self.human_combo),
            together(_label("Model's answer", "The category the model chose."), self.predicted_combo),
            self.mistake_box,
            together(self.confidence_label, self.low_spin, _label("to"), self.high_spin),
            self.search_edit,
            self.column_box,
            self.clear_button,
            self.count_label,
        ):
            flow.add_widget(widget)

        self.model_combo.currentIndexChanged.connect(self._model_changed)
        for combo in (self.human_combo, self.predicted_combo, self.mistake_combo, self.column_combo, self.mode_combo):
            combo.currentIndexChanged.connect(self._emit)
        self.column_combo.currentIndexChanged.connect(self._column_changed)
        self.mistakes_box.toggled.connect(self._emit)
        self.low_spin.valueChanged.connect(self._low_changed)
        self.high_spin.valueChanged.connect(self._high_changed)
        self.search_edit.textChanged.connect(self._typing.start)
        self.search_edit.returnPressed.connect(self._emit)
        self.value_edit.textChanged.connect(self._typing.start)
        self.value_edit.returnPressed.connect(self._emit)
        self.clear_button.clicked.connect(self.clear_filters)
        self.set_table(None)

    @staticmethod
    def _percent_spin(name: str, value: int) -> QSpinBox:
        spin = QSpinBox(objectName=name)
        spin.setRange(0, 100)
        spin.setSuffix(" %")
        spin.setValue(value)
        spin.setToolTip(CONFIDENCE_TIP)
        return spin

    # ----- public API ----------------------------------------------------------------------------
    def set_table(self, table: DocumentsTable | None) -> None:
        """Offer the table's models, categories and extra columns; every filter starts cleared.
        Emits nothing: the caller shows the table with :meth:`current_filter`."""
        self._table = table
        self._quiet = True
        self.model_combo.clear()
        for name in table.model_names() if table else []:
            self.model_combo.addItem(name, name)
        several = bool(table and table.multi_label)
        for combo in (self.human_combo, self.predicted_combo):
            combo.clear()
            combo.addItem(ANY, None)
            for category in table.categories if table else []:
                combo.addItem(category, category)
            if several:
                combo.addItem(NO_CATEGORY, NO_CATEGORY)
        self.human_combo.setToolTip(SEVERAL_HUMAN_TIP if several else "Show only the texts you coded in this category.")
        self.predicted_combo.setToolTip(SEVERAL_PREDICTED_TIP if several else
                                        "Show only the texts the model put in this category.")
        self.mistakes_box.setToolTip(SEVERAL_MISTAKES_TIP if several else MISTAKES_TIP)
        self.mistake_combo.clear()
        self.mistake_combo.addItem(ANY, None)
        for category in table.categories if several else []:
            self.mistake_combo.addItem(f"missed {category}", f"{MISSED}:{category}")
            self.mistake_combo.setItemData(self.mistake_combo.count() - 1,
                                           f"The texts you coded {category} that the model did not put in {category}.",
                                           Qt.ItemDataRole.ToolTipRole)
            self.mistake_combo.addItem(f"wrongly {category}", f"{WRONGLY}:{category}")
            self.mistake_combo.setItemData(self.mistake_combo.count() - 1,
                                           f"The texts the model put in {category} that you did not code {category}.",
                                           Qt.ItemDataRole.ToolTipRole)
        self.mistake_box.setVisible(several)
        self.column_combo.clear()
        self.column_combo.addItem(NO_COLUMN, None)
        for name in table.metadata_columns() if table else []:
            self.column_combo.addItem(name, name)
        self.column_box.setVisible(bool(table and table.metadata_columns()))
        for combo in (self.model_combo, self.human_combo, self.predicted_combo, self.mistake_combo, self.column_combo):
            fit_list(combo)
        self._reset_values()
        self._quiet = False
        self._update_enabled()
        self.set_count(0, len(table) if table else 0)

    def current_filter(self) -> DocumentFilter:
        low, high = self.low_spin.value(), self.high_spin.value()
        ranged = (low, high) != (0, 100) and self.high_spin.isEnabled()
        column = self.column_combo.currentData()
        mistake = self.mistake_combo.currentData() if self._table is not None and self._table.multi_label else None
        kind, _, category = mistake.partition(":") if mistake else (None, None, None)
        return DocumentFilter(
            model=self.model_combo.currentData(),
            errors_only=self.mistakes_box.isChecked(),
            human=self.human_combo.currentData(),
            predicted=self.predicted_combo.currentData(),
            missed=category if kind == MISSED else None,
            wrongly=category if kind == WRONGLY else None,
            confidence=(low / 100, high / 100) if ranged else None,
            text=self.search_edit.text(),
            metadata_column=column,
            metadata_value=self.value_edit.text() if column else "",
            metadata_mode=self.mode_combo.currentData(),
        )

    def set_mistake(self, kind: str, category: str) -> None:
        """Choose one category's mistakes (``"missed"`` or ``"wrongly"``); emits once."""
        index = self.mistake_combo.findData(f"{kind}:{category}")
        if index >= 0:
            self.mistake_combo.setCurrentIndex(index)

    def chosen_model(self) -> str | None:
        return self.model_combo.currentData()

    def set_model(self, name: str) -> None:
        index = self.model_combo.findData(name)
        if index >= 0:
            self.model_combo.setCurrentIndex(index)

    def show_cell(self, model: str, human: int | str, predicted: int | str) -> None:
        """Show exactly one confusion-matrix cell: ``model``'s texts coded ``human`` and answered
        ``predicted`` (category indices or names); every other filter is cleared. Emits once."""
        if self._table is None:
            return
        human_name = self._table.categories[self._table.category_index(human)]
        predicted_name = self._table.categories[self._table.category_index(predicted)]
        self._quiet = True
        self.set_model(model)
        self._reset_values()
        self.human_combo.setCurrentIndex(self.human_combo.findData(human_name))
        self.predicted_combo.setCurrentIndex(self.predicted_combo.findData(predicted_name))
        self._quiet = False
        self._update_enabled()
        self._emit()

    def clear_filters(self) -> None:
        """Every filter back to "show all" (the chosen model stays); emits once."""
        self._quiet = True
        self._reset_values()
        self._quiet = False
        self._emit()

    def set_count(self, shown: int, total: int) -> None:
        self.count_label.setText(count_text(shown, total) if total else "")

    def count(self) -> str:
        return self.count_label.text()

    # ----- reacting ------------------------------------------------------------------------------
    def _reset_values(self) -> None:
        self._typing.stop()
        self.mistakes_box.setChecked(False)
        self.human_combo.setCurrentIndex(0)
        self.predicted_combo.setCurrentIndex(0)
        self.mistake_combo.setCurrentIndex(0)
        self.low_spin.setValue(0)
        self.high_spin.setValue(100)
        self.search_edit.clear()
        self.value_edit.clear()
        self.column_combo.setCurrentIndex(0)

    def _emit(self) -> None:
        if self._quiet:
            return
        self._typing.stop()
        self.filterChanged.emit(self.current_filter())

    def _model_changed(self) -> None:
        self._update_enabled()
        self._emit()

    def _low_changed(self, value: int) -> None:
        if value > self.high_spin.value():
            self.high_spin.blockSignals(True)
            self.high_spin.setValue(value)
            self.high_spin.blockSignals(False)
        self._emit()

    def _high_changed(self, value: int) -> None:
        if value < self.low_spin.value():
            self.low_spin.blockSignals(True)
            self.low_spin.setValue(value)
            self.low_spin.blockSignals(False)
        self._emit()

    def _column_changed(self) -> None:
        column = self.column_combo.currentData()
        self.mode_combo.setEnabled(column is not None)
        self.value_edit.setEnabled(column is not None)
        self.value_edit.setCompleter(None)
        if column is None or self._table is None or self._table.metadata is None:
            return
        values = {format_value(value) for value in self._table.metadata[column].dropna()}
        if len(values) <= MAX_SUGGESTIONS:
            completer = QCompleter(sorted(values, key=str.casefold), self.value_edit)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
            self.value_edit.setCompleter(completer)

    def _update_enabled(self) -> None:
        table, name = self._table, self.model_combo.currentData()
        has_models = bool(table and table.models)
        for widget in (self.model_combo, self.mistakes_box, self.predicted_combo, self.mistake_combo):
            widget.setEnabled(has_models)
        has_confidence = bool(has_models and name and table.model(name).has_confidence)  # type: ignore[union-attr]
        several = bool(table and table.multi_label)
        for widget in (self.low_spin, self.high_spin, self.confidence_label):
            widget.setEnabled(has_confidence)
            widget.setToolTip((SEVERAL_CONFIDENCE_TIP if several else CONFIDENCE_TIP) if has_confidence
                              else NO_CONFIDENCE_TIP)
        has_column = self.column_combo.currentData() is not None
        self.mode_combo.setEnabled(has_column)
        self.value_edit.setEnabled(has_column)
