"""The Codebook tab's list of codings to re-check: texts coded under an older definition of a category
that has changed since (edited, removed, merged into another or split; ``core/coding/recheck_list.py``),
each with the row, the text, the category, the version it was coded under and what changed.

"Keep" codes the chosen texts again with the same category under the current version; "Change…"
codes the chosen text with another category of the current codebook. Either adds a coding (the
earlier one stays in the record, nothing is overwritten) and takes the text off the list. In a
coding team the list holds the codings of the coder who codes now (the team's active coder), so no
coder sees another's coding.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QWidget,
)

from guiapp.core.coding.coding_record import SOURCES
from guiapp.core.coding.recheck_list import RecheckItem, codings_to_recheck
from guiapp.ui import theme
from guiapp.ui.common.read_only_table import read_only_table
from guiapp.ui.common.layouts import vbox

__all__ = ["RecheckPanel"]

TABLE, SECOND_FILE = SOURCES
COLUMNS = ("Row", "Text", "Coded as", "Under version", "What changed since")
TEXT_CHARS = 160


class RecheckPanel(QWidget):
    """Codings made under a definition that changed since; ``rechecked(sentence)`` after Keep or Change."""

    rechecked = Signal(str)

    def __init__(self, session, parent: QWidget | None = None) -> None:  # noqa: ANN001 — a StudySession
        super().__init__(parent)
        self.setObjectName("recheckPanel")
        self.session = session
        self.items: list[RecheckItem] = []
        title = QLabel("Codings to re-check")
        title.setStyleSheet(theme.heading_style(15))
        self.summary = QLabel(objectName="recheckSummary", wordWrap=True)
        self.summary.setStyleSheet(theme.MUTED_STYLE)
        self.table = read_only_table(COLUMNS, "recheckTable", widths=((0, 50), (2, 110), (3, 90)), stretch=(1, 4))
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.keep_button = QPushButton("Keep", objectName="recheckKeep",
                                       toolTip="The chosen texts keep their category: each is coded again with it "
                                               "under the current version of the codebook.")
        self.change_button = QPushButton("Change…", objectName="recheckChange",
                                         toolTip="Code the chosen text with another category of the current codebook.")
        self.keep_button.clicked.connect(lambda: self.keep(self.chosen()))
        self.change_button.clicked.connect(self._ask_change)
        buttons = QHBoxLayout()
        buttons.addWidget(self.keep_button)
        buttons.addWidget(self.change_button)
        buttons.addStretch(1)
        vbox(self, title, self.summary, (self.table, 1), buttons, margins=(0, 0, 0, 0), spacing=6)
        session.codingsChanged.connect(self.refresh)
        session.codebookChanged.connect(self.refresh)
        self.refresh()

    # ----- what is listed --------------------------------------------------------------------------
    def coder(self) -> str | None:
        """Whose codings are listed: the team's active coder, or None for the study's (one coder)."""
        log = self.session.codings
        return log.team.active if log.team_mode else None

    def refresh(self) -> None:
        log = self.session.codings
        self.items = codings_to_recheck(log, coder=self.coder())
        texts = {source: self._texts(source) for source in {item.source for item in self.items}}
        rows = {source: self._row_names(source) for source in texts}
        self.table.setRowCount(len(self.items))
        for position, item in enumerate(self.items):
            text = texts[item.source].get(item.row, "")
            shown = str(rows[item.source].get(item.row, item.row))
            if item.source == SECOND_FILE:
                shown += " (second file)"
            cells = (shown, _short(text), item.category, str(item.version), item.what_changed())
            for column, value in enumerate(cells):
                cell = QTableWidgetItem(value)
                cell.setToolTip(text if column == 1 else value)
                self.table.setItem(position, column, cell)
        self.table.resizeRowsToContents()
        self.summary.setText(self._sentence(log))
        self._update_buttons()

    def _sentence(self, log) -> str:  # noqa: ANN001 — a CodingLog
        if log.history is None or log.history.current.number == 1:
            return ("Once the codebook has a second version, texts coded under an earlier definition of a category "
                    "that changed are listed here to re-check.")
        whose = f"{self.coder()}'s codings: " if self.coder() else ""
        if not self.items:
            return f"{whose}None to re-check: every coding fits version {log.history.current.number}."
        n = len(self.items)
        return (f"{whose}{n:,} text{'s were' if n != 1 else ' was'} coded under an earlier definition of a "
                "category that changed. Choose one or more, then Keep the category or Change… it; the earlier "
                "coding stays in the record.")

    def _texts(self, source: str) -> dict:
        from guiapp.core.predict.new_texts import texts_of

        frame = self.session.coding_texts if source == SECOND_FILE else self.session.frame
        mapping = self.session.mapping
        if frame is None or mapping is None:
            return {}
        try:
            return dict(zip(frame.index, texts_of(frame, mapping), strict=True))
        except Exception:  # noqa: BLE001 — column roles that do not fit the table (yet): rows without text
            return {}

    def _row_names(self, source: str) -> dict:
        from guiapp.core.tables.rows import spreadsheet_rows

        frame = self.session.coding_texts if source == SECOND_FILE else self.session.frame
        return dict(zip(frame.index, spreadsheet_rows(frame), strict=True)) if frame is not None else {}

    # ----- keeping and changing ---------------------------------------------------------------------
    def chosen(self) -> list[RecheckItem]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.items[row] for row in rows if row < len(self.items)]

    def keep(self, items: list[RecheckItem]) -> None:
        """Code each of ``items`` again with its category (or categories) under the current version."""
        items = [item for item in items if self._still_a_category(item)]
        if not items:
            return
        log = self.session.codings
        for item in items:
            if item.several:
                log.record(item.row, None, labels=item.categories, coder=item.coder, chosen_by="review",
                           source=item.source)
            else:
                log.record(item.row, item.category, coder=item.coder, chosen_by="review", source=item.source)
        self.session.codings_changed()
        n = len(items)
        self.rechecked.emit(f"Kept {n:,} coding{'s' if n != 1 else ''} under version {log.history.current.number} "
                            "of the codebook.")

    def change(self, item: RecheckItem, category: str) -> None:
        """Code ``item``'s text as ``category`` under the current version."""
        log = self.session.codings
        log.record(item.row, category, coder=item.coder, chosen_by="review", source=item.source)
        self.session.codings_changed()
        self.rechecked.emit(f"Changed the coding of a text from “{item.category}” to “{category}” under version "
                            f"{log.history.current.number} of the codebook.")

    def _still_a_category(self, item: RecheckItem) -> bool:
        names = set(self.session.codebook.names())
        missing = [category for category in item.categories if category not in names]
        if missing:
            self.summary.setText(f"“{missing[0]}” is no longer in the codebook, so the text cannot keep it. "
                                 "Use Change… to give it a category of the current codebook.")
            self.summary.setStyleSheet(theme.ERROR_STYLE)
            return False
        self.summary.setStyleSheet(theme.MUTED_STYLE)
        return True

    def _ask_change(self) -> None:
        chosen = self.chosen()
        if len(chosen) != 1:
            return
        item = chosen[0]
        names = self.session.codebook.names()
        merged = [c.others[0] for c in item.changes if c.kind == "merged into" and c.others]
        start = names.index(merged[-1]) if merged and merged[-1] in names else 0
        category, ok = QInputDialog.getItem(self, "Change the coding",
                                            f"The text was coded “{item.category}”. Its category now:", names,
                                            start, False)
        if ok and category:
            self.change(item, category)

    def _update_buttons(self) -> None:
        chosen = self.chosen()
        self.keep_button.setEnabled(bool(chosen))
        self.change_button.setEnabled(len(chosen) == 1 and bool(self.session.codebook.names()))


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS - 1] + "…"

