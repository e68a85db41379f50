"""The column-mapping form: which column holds the texts, which your categories, and so on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.category_preview import category_preview
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui import theme

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

NONE_CHOICE = "— none —"
SEPARATORS = {"a space": " ", "a new line": "\n", "“ | ”": " | ", "“. ” (full stop)": ". "}
_PREVIEW_ROWS = 5000


def column_preview(series: pd.Series) -> str:
    """A short description of a column's content: a few distinct values and how many there are."""
    head = series.iloc[:_PREVIEW_ROWS].dropna()
    if head.empty:
        return "empty in the first rows"
    values = head.astype(str).str.strip()
    values = values[values != ""]
    distinct = values.unique()
    examples = ", ".join(f"“{_short(v)}”" for v in distinct[:3])
    where = f" in the first {_PREVIEW_ROWS:,} rows" if len(series) > _PREVIEW_ROWS else ""
    return f"e.g. {examples}  ({len(distinct):,} different values{where})"


def text_column_preview(series: pd.Series) -> str:
    """How the texts of a column look: typical length and an example opening."""
    head = series.iloc[:_PREVIEW_ROWS].dropna().astype(str)
    head = head[head.str.strip() != ""]
    if head.empty:
        return "empty in the first rows"
    words = head.str.count(r"\S+")
    where = f" (first {_PREVIEW_ROWS:,} rows)" if len(series) > _PREVIEW_ROWS else ""
    return f"Typically {words.median():,.0f} words per text{where}, e.g. “{_short(head.iloc[0], 60)}”"


def _short(value: str, limit: int = 28) -> str:
    value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


class _CheckList(QListWidget):
    """A list of columns with check boxes."""

    def __init__(self, object_name: str) -> None:
        super().__init__(objectName=object_name)
        self.setMaximumHeight(120)

    def set_columns(self, columns: list[str], checked: list[str]) -> None:
        self.blockSignals(True)
        self.clear()
        for column in columns:
            item = QListWidgetItem(column)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if column in checked else Qt.CheckState.Unchecked)
            self.addItem(item)
        self.blockSignals(False)

    def checked(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count())
                if self.item(i).checkState() == Qt.CheckState.Checked and not self.item(i).isHidden()]

    def offer_only(self, offered: set[str]) -> None:
        """Hide (and untick) the columns not in ``offered``; show the others again."""
        self.blockSignals(True)
        for i in range(self.count()):
            item = self.item(i)
            hidden = item.text() not in offered
            if hidden and item.checkState() == Qt.CheckState.Checked:
                item.setCheckState(Qt.CheckState.Unchecked)
            item.setHidden(hidden)
        self.blockSignals(False)

    def shown(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count()) if not self.item(i).isHidden()]


class MappingPanel(QWidget):
    """Edits a :class:`ColumnMapping`; emits ``mappingChanged`` (debounced) after each change."""

    mappingChanged = Signal(object)  # ColumnMapping

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._frame: pd.DataFrame | None = None
        self._fixes: CategoryFixes | None = None  # the study's category fixes: the hint counts as the check does
        self._debounce = QTimer(self, singleShot=True, interval=250)
        self._debounce.timeout.connect(lambda: self.mappingChanged.emit(self.mapping()))

        intro = QLabel(
            "TextLab has guessed which column plays which role. Check the guesses and change "
            "anything that is not right; the report updates by itself.",
            objectName="mappingIntro",
        )
        intro.setWordWrap(True)

        self.text_list = _CheckList("textColumns")
        self.text_list.setToolTip("Tick the column with your texts. Tick several to join them into one text (e.g. title and body).")
        self.separator = QComboBox(objectName="textSeparator")
        self.separator.addItems(list(SEPARATORS))
        self.separator.setToolTip("What goes between the parts when several text columns are joined.")
        self.separator_label = QLabel("Join them with")
        self.category = self._combo("categoryColumn", "The column with the categories you coded by hand. Rows left empty count as “not yet coded”.")
        self.id_column = self._combo("idColumn", "Optional: a column that names each text (a document number). It is carried into exports.")
        self.split = self._combo("splitColumn", "Optional: a column saying which texts are for training and which for the final test (values like “train” and “test”). Without it TextLab sets aside a random test set.")
        self.metadata = _CheckList("metadataColumns")
        self.metadata.setToolTip("Optional: columns to keep for later, e.g. to compare groups of texts or to include in "
                                 "exports. Columns that already have a role above are not listed.")

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
        form2 = QFormLayout(coding)
        form2.addRow("Category column", self.category)
        form2.addRow(self.hints["category"])
        optional = QGroupBox("Optional")
        form3 = QFormLayout(optional)
        form3.addRow("ID column", self.id_column)
        form3.addRow(self.hints["id"])
        form3.addRow("Train/test column", self.split)
        form3.addRow(self.hints["split"])
        form3.addRow(QLabel("Keep for later (group comparisons, export):"))
        form3.addRow(self.metadata)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(texts)
        layout.addWidget(coding)
        layout.addWidget(optional)
        layout.addStretch(1)

        self.text_list.itemChanged.connect(self._changed)
        self.metadata.itemChanged.connect(self._changed)
        for combo in (self.separator, self.category, self.id_column, self.split):
            combo.currentIndexChanged.connect(self._changed)

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
        columns = [str(c) for c in frame.columns]
        widgets = (self.text_list, self.metadata, self.separator, self.category, self.id_column, self.split)
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
        for widget in widgets:
            widget.blockSignals(False)
        self._offer_free_columns()
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

        return ColumnMapping(
            text_columns=self.text_list.checked(),
            category_column=chosen(self.category),
            id_column=chosen(self.id_column),
            split_column=chosen(self.split),
            metadata_columns=self.metadata.checked(),
            text_separator=SEPARATORS[self.separator.currentText()],
        )

    # -- internals -------------------------------------------------------------------------
    def _changed(self, *_args) -> None:
        self._offer_free_columns()
        self._update_hints()
        self._debounce.start()

    def _offer_free_columns(self) -> None:
        """"Keep for later" lists only the columns without another role (text, category, ID, split)."""
        if self._frame is None:
            return
        mapping = self.mapping()
        used = {*mapping.text_columns, mapping.category_column, mapping.id_column, mapping.split_column}
        self.metadata.offer_only({str(c) for c in self._frame.columns} - used)

    def _update_hints(self) -> None:
        mapping = self.mapping()
        several = len(mapping.text_columns) > 1
        self.separator.setVisible(several)
        self.separator_label.setVisible(several)
        frame = self._frame
        if frame is None:
            return
        texts = mapping.text_columns
        self.hints["text"].setText(
            "Tick at least one column." if not texts else (text_column_preview(frame[texts[0]]) if len(texts) == 1 else f"{len(texts)} columns will be joined into one text.")
        )
        for key, column in (("category", mapping.category_column), ("id", mapping.id_column), ("split", mapping.split_column)):
            if not column:
                text = ""
            elif key == "category":  # counted as the data check counts it, after the study's fixes
                text = category_preview(frame[column], self._fixes).sentence()
            else:
                text = column_preview(frame[column])
            self.hints[key].setText(text)
            self.hints[key].setVisible(bool(column))
