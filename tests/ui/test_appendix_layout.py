"""The methods appendix as Qt prints it to PDF: the model table's short headings stay on one line
on an A4 page (no "Ran k")."""

from __future__ import annotations

from PySide6.QtCore import QSizeF
from PySide6.QtGui import QTextDocument

from guiapp.core.export.appendix_data import build_appendix
from guiapp.core.export.appendix_html import render_appendix_html
from tests.ui.sample_results import sample_result

A4_TEXT_WIDTH = (210 - 36) / 25.4 * 96  # A4 less the 18 mm margins the PDF is printed with, at 96 dpi


def _lines_of(document: QTextDocument, text: str) -> int:
    block = document.begin()
    while block.isValid():
        if block.text() == text:
            return block.layout().lineCount()
        block = block.next()
    raise AssertionError(f"no heading {text!r}")


def test_the_short_headings_of_the_model_table_stay_on_one_line(qapp):
    document = QTextDocument()
    document.setHtml(render_appendix_html(build_appendix(sample_result())))
    for width in (A4_TEXT_WIDTH, 420):
        document.setPageSize(QSizeF(width, 1200))
        document.size()  # lays the page out
        for heading in ("Rank", "Macro-F1", "Accuracy"):
            assert _lines_of(document, heading) == 1, (heading, width)
