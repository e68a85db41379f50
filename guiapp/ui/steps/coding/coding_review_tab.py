"""The Coding step's "Codings to check": a button that asks for the codings the models doubt, and the
list of them (``review_panel.py``), each kept or changed. Texts of a second file are numbered apart
from the table's rows, so each doubt is named by (where it comes from, row)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QPushButton, QWidget

from guiapp.core.coding.coding_record import SOURCES
from guiapp.ui.common.layouts import vbox
from guiapp.ui.steps.coding.review_panel import ReviewPanel

TABLE, SECOND_FILE = SOURCES


class CodingReviewTab(QWidget):
    checkRequested = Signal()
    kept = Signal(str, object)  # where the text comes from ("table" or "second file"), its row
    changed = Signal(str, object, str)  # where from, row, the category it is to have

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.panel = ReviewPanel()
        self.panel.keep.connect(lambda key: self.kept.emit(*_source_and_row(key)))
        self.panel.change.connect(lambda key, category: self.changed.emit(*_source_and_row(key), category))
        self.button = QPushButton("Check the codings", objectName="checkCodings")
        self.button.setEnabled(False)
        self.button.setToolTip("Look for codings that the quick model, trained without each text, "
                               "places in another category.")
        self.button.clicked.connect(self.checkRequested)
        vbox(self, (self.button, 0), (self.panel, 1))
        self.layout().setAlignment(self.button, Qt.AlignmentFlag.AlignLeft)

    def show_readiness(self, counts: Mapping[str, int], trained_on: tuple[int, int] | None) -> None:
        """Before the codings are checked: what the check would look at now, and what the quick model
        last learnt from (``counts``: coded texts per category; ``trained_on``: (coded texts,
        categories), None before it is trained)."""
        from guiapp.core.coding.review import readiness_sentence

        self.panel.set_waiting(readiness_sentence(dict(counts), trained_on))

    def show_review(self, found, table_rows: Mapping, file_rows: Mapping, file_label: str) -> None:  # noqa: ANN001
        """Show a coding loop's review (``found``): ``table_rows``/``file_rows``: row → the row Excel shows,
        in the table and in the second file (called ``file_label``)."""
        names: dict = dict(table_rows)
        doubts = []
        for doubt in found.doubts:
            if doubt.source == SECOND_FILE:
                key = (SECOND_FILE, doubt.row)
                names[key] = f"{file_rows.get(doubt.row, doubt.row)} of {file_label}"
                doubt = replace(doubt, row=key)
            doubts.append(doubt)
        self.panel.set_review(replace(found, doubts=tuple(doubts)), row_names=names)


def _source_and_row(key) -> tuple[str, object]:  # noqa: ANN001 — a table row, or (SECOND_FILE, row)
    if isinstance(key, tuple) and len(key) == 2 and key[0] == SECOND_FILE:
        return SECOND_FILE, key[1]
    return TABLE, key
