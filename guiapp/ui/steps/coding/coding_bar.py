"""The bar above the text being coded: who codes, where the texts come from, how the next text is
chosen, which quick model learns meanwhile, "Export codings…", and "Export coding sheet…" / "Import
coding sheet…" for coders who code in Excel (``coding_sheet_dialogs.py``). It holds the choices; the Coding
step acts on them."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QPushButton, QWidget

from guiapp.core.coding.coding_record import SOURCES
from guiapp.core.coding.quick_model import (
    BAG_OF_WORDS,
    EMBEDDINGS,
    KIND_WORDS,
    KINDS,
    bundled_model_installed,
    default_kind,
)
from guiapp.core.coding.strategies import STRATEGIES, STRATEGY_WORDS
from guiapp.ui import theme
from guiapp.ui.common.flow_layout import FlowRow, together
from guiapp.ui.common.layouts import vbox

CODER_KEY = "coding/coder"
KIND_KEY = "coding/model"
NOT_INSTALLED = ("The bundled sentence model is not installed, so the quick model uses the bag of words. "
                 "Reinstall TextLab to learn from sentence embeddings.")
CODER_CHARACTERS = (12, 28)  # the name field shows at least / at most about this many characters
AUTO = "auto"
AUTO_WORDS = ("Suggested", "At random until two categories have five codings each, then where the model is least sure.")
TABLE, SECOND_FILE = SOURCES
CHOOSE_FILE = "choose"  # the item that asks for a second file of texts
TABLE_WORDS = "Uncoded rows of your table"
CHOOSE_WORDS = "Texts from another file…"


class CodingBar(QWidget):
    strategyChosen = Signal(str)  # "auto" or one of STRATEGIES
    kindChosen = Signal(str)  # the quick model's features
    sourceChosen = Signal(str)  # "table" or "second file"
    fileWanted = Signal()  # "Texts from another file…"
    exportRequested = Signal()
    sheetExportRequested = Signal()  # "Export coding sheet…"
    sheetImportRequested = Signal()  # "Import coding sheet…"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.coder_edit = QLineEdit(str(QSettings().value(CODER_KEY, "") or ""), objectName="coderName")
        self.coder_edit.setPlaceholderText("your name or initials")
        self.coder_edit.setToolTip("Recorded with every coding, so that two coders' work can be told apart.")
        self.coder_edit.editingFinished.connect(self._remember_coder)
        self.coder_edit.textChanged.connect(lambda _text: self._fit_coder())
        self._fit_coder()

        self.source_combo = QComboBox(objectName="codingSource")
        self.source_combo.setToolTip("Which texts to code: the rows of your table without a category, or the texts "
                                     "of another file (their codings join your study; neither file is changed).")
        self.source_combo.activated.connect(self._source_activated)
        self._source = TABLE
        self.set_second_file(None)

        self.strategy_combo = QComboBox(objectName="codingStrategy")
        self.strategy_combo.addItem(AUTO_WORDS[0], AUTO)
        self.strategy_combo.setItemData(0, AUTO_WORDS[1], Qt.ItemDataRole.ToolTipRole)
        for name in STRATEGIES:
            label, tip = STRATEGY_WORDS[name]
            self.strategy_combo.addItem(label, name)
            self.strategy_combo.setItemData(self.strategy_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.strategy_combo.setToolTip("How TextLab chooses the next text. Every choice is recorded with the chance "
                                       "it had, so that shares estimated later can correct for it.")
        self.strategy_combo.currentIndexChanged.connect(lambda _i: self.strategyChosen.emit(self.strategy()))

        self.kind_combo = QComboBox(objectName="codingModel")
        for kind in KINDS:
            label, tip = KIND_WORDS[kind]
            self.kind_combo.addItem(label, kind)
            self.kind_combo.setItemData(self.kind_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.kind_combo.setToolTip("The quick model that learns while you code and suggests the next text.")
        self.kind_note = QLabel("(sentence model not installed)", objectName="codingModelNote")
        self.kind_note.setStyleSheet(theme.HINT_STYLE)
        self.kind_note.setToolTip(NOT_INSTALLED)
        self._offer_kinds()
        self.kind_combo.currentIndexChanged.connect(lambda _i: self._kind_changed())

        self.export_button = QPushButton("Export codings…", objectName="exportCodings")
        self.export_button.setToolTip("Save your table with every coding made here (coder, time, how the text was "
                                      "chosen, flags) as an Excel or CSV file. Your spreadsheet is not changed.")
        self.export_button.clicked.connect(self.exportRequested)
        self.sheet_export_button = QPushButton("Export coding sheet…", objectName="exportCodingSheet")
        self.sheet_export_button.setToolTip("Write an Excel workbook for a coder who codes without TextLab: their "
                                            "texts, a drop-down of the categories and the codebook.")
        self.sheet_export_button.clicked.connect(self.sheetExportRequested)
        self.sheet_import_button = QPushButton("Import coding sheet…", objectName="importCodingSheet")
        self.sheet_import_button.setToolTip("Read a coding sheet a coder filled in back into this project; "
                                            "importing the same sheet twice adds nothing.")
        self.sheet_import_button.clicked.connect(self.sheetImportRequested)
        self.export_note = QLabel(objectName="exportNote", wordWrap=True)
        self.export_note.setStyleSheet(f"color: {theme.GOOD_TEXT};")
        self.export_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.export_note.hide()
        row = FlowRow(spacing=14, line_spacing=6)  # a narrow window puts the choices on two lines
        for widget in (together(QLabel("Coder:"), self.coder_edit), together(QLabel("Texts:"), self.source_combo),
                       together(QLabel("Next text:"), self.strategy_combo),
                       together(QLabel("Learning model:"), self.kind_combo, self.kind_note), self.export_button,
                       together(self.sheet_export_button, self.sheet_import_button)):
            row.add_widget(widget)
        vbox(self, row, self.export_note, margins=(0, 0, 0, 0))  # what was saved where: a line of its own

    # -- the choices ------------------------------------------------------------------------------------
    def coder(self) -> str:
        return self.coder_edit.text().strip()

    def set_coder(self, name: str) -> None:
        self.coder_edit.setText(name)
        self._remember_coder()

    def _remember_coder(self) -> None:
        QSettings().setValue(CODER_KEY, self.coder())
        self.coder_edit.setCursorPosition(0)  # a long name shows its start, not its end

    def _fit_coder(self) -> None:
        """The name field as wide as the name (within bounds), so that a name is seen whole."""
        edit = self.coder_edit
        metrics = edit.fontMetrics()
        least, most = (metrics.averageCharWidth() * n for n in CODER_CHARACTERS)
        needed = max(metrics.horizontalAdvance(edit.text()), metrics.horizontalAdvance(edit.placeholderText()))
        edit.setFixedWidth(min(max(needed, least), most) + 24)  # the field's frame and margins

    def show_export(self, words: str) -> None:
        """Say where the codings were saved, and how many (beside "Export codings…")."""
        self.export_note.setText(words)
        self.export_note.setToolTip(words)
        self.export_note.setVisible(bool(words))

    # -- the quick model ---------------------------------------------------------------------------------
    def _offer_kinds(self) -> None:
        """Sentence embeddings where the bundled model is installed (or the researcher's last choice);
        else the bag of words, with a note that says why."""
        installed = bundled_model_installed()
        model = self.kind_combo.model()
        embeddings = self.kind_combo.findData(EMBEDDINGS)
        model.item(embeddings).setEnabled(installed)
        if not installed:
            self.kind_combo.setItemText(embeddings, f"{KIND_WORDS[EMBEDDINGS][0]} (not installed)")
            self.kind_combo.setItemData(embeddings, NOT_INSTALLED, Qt.ItemDataRole.ToolTipRole)
        remembered = str(QSettings().value(KIND_KEY, "") or "")
        kind = remembered if remembered in KINDS and (installed or remembered != EMBEDDINGS) else default_kind()
        if kind == EMBEDDINGS and not installed:
            kind = BAG_OF_WORDS
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(kind))
        self.kind_note.setVisible(not installed)

    def _kind_changed(self) -> None:
        QSettings().setValue(KIND_KEY, self.kind())
        self.kindChosen.emit(self.kind())

    def strategy(self) -> str:
        return self.strategy_combo.currentData()

    def kind(self) -> str:
        return self.kind_combo.currentData()

    def source(self) -> str:
        return self._source

    def set_second_file(self, name: str | None) -> None:
        """The second file of texts offered (None: none opened); the texts come from the table again
        when it is removed."""
        combo = self.source_combo
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(TABLE_WORDS, TABLE)
        if name:
            combo.addItem(f"Texts of {name}", SECOND_FILE)
        combo.addItem(CHOOSE_WORDS, CHOOSE_FILE)
        if not name and self._source == SECOND_FILE:
            self._source = TABLE
        combo.setCurrentIndex(combo.findData(self._source))
        combo.blockSignals(False)

    def set_source(self, source: str) -> None:
        """Show ``source`` as chosen (when it is offered) without announcing it."""
        index = self.source_combo.findData(source)
        if index >= 0:
            self._source = source
            self.source_combo.setCurrentIndex(index)

    def _source_activated(self, index: int) -> None:
        chosen = self.source_combo.itemData(index)
        if chosen == CHOOSE_FILE:
            self.source_combo.setCurrentIndex(self.source_combo.findData(self._source))  # until a file is read
            self.fileWanted.emit()
        elif chosen != self._source:
            self._source = chosen
            self.sourceChosen.emit(chosen)
