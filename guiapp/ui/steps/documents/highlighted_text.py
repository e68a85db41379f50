"""One explained document: its own text with each word coloured by how it pushed the model.

The coloured text comes from :func:`guiapp.core.export.highlight_html.explanation_html`, the same
HTML the export writes, so what the researcher sees here is what ends up in a report. Hovering a
word shows its exact score (the HTML ``title`` becomes the character's tooltip in Qt).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QHelpEvent, QTextCursor
from PySide6.QtWidgets import QLabel, QTextBrowser, QToolTip, QVBoxLayout, QWidget

from guiapp.core.explain.attribution import Attribution, Faithfulness
from guiapp.core.export.highlight_html import (
    explanation_html,
    legend_text,
    method_name,
    top_words_lines,
    unseen_note,
)
from guiapp.ui.theme import FAINT_TEXT, NOTE_TEXT
from guiapp.ui.steps.documents.explanation_terms import ATTRIBUTION_TIP, FAITHFULNESS_TIP

EMPTY_TEXT = "Choose a document to see which of its words pushed the model toward a category."


class HighlightedText(QWidget):
    """A heading (model, category, probability) and the coloured text with its explanations."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._heading = QLabel()
        self._heading.setWordWrap(True)
        self._heading.setTextFormat(Qt.TextFormat.RichText)
        self._heading.setToolTip(ATTRIBUTION_TIP)
        self._browser = QTextBrowser()
        self._browser.setOpenLinks(False)
        self._browser.setOpenExternalLinks(False)
        self._browser.setReadOnly(True)
        self._browser.document().setDocumentMargin(10)
        self._browser.viewport().installEventFilter(self)
        self._browser.viewport().setMouseTracking(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self._heading)
        layout.addWidget(self._browser, 1)
        self._attribution: Attribution | None = None
        self._faithfulness: Faithfulness | None = None
        self._html = ""
        self.clear()

    # ----- public API -------------------------------------------------------------------------
    def show_attribution(self, text: str, attribution: Attribution, faithfulness: Faithfulness | None = None) -> None:
        """Show ``text`` coloured by ``attribution``; ``faithfulness`` adds how far to trust it."""
        self._attribution = attribution
        self._faithfulness = faithfulness
        self._heading.setText(
            f"<b>Why {html.escape(attribution.model)} leans toward “{html.escape(attribution.target_name)}”</b>"
            f" &nbsp;<span style='color:{NOTE_TEXT};'>(probability {attribution.probability:.2f} · "
            f"{html.escape(method_name(attribution))})</span>"
        )
        self._heading.show()
        self._html = explanation_html(text, attribution, faithfulness)
        self._browser.setHtml(self._html)

    def clear(self, message: str = "") -> None:
        """Show nothing but a grey message (default: how to get an explanation)."""
        self._attribution = None
        self._faithfulness = None
        self._html = ""
        self._heading.hide()
        self._browser.setHtml(f"<p style='color:{FAINT_TEXT};'>{html.escape(message or EMPTY_TEXT)}</p>")

    # ----- what the user sees (for tests and callers) -----------------------------------------
    def html(self) -> str:
        """The HTML shown (the same as the export writes), "" when cleared."""
        return self._html

    def plain_text(self) -> str:
        """Everything the browser shows, as text."""
        return self._browser.toPlainText()

    def heading(self) -> str:
        return self._heading.text()

    def legend(self) -> str:
        return legend_text(self._attribution) if self._attribution else ""

    def top_words(self) -> tuple[str, str]:
        return top_words_lines(self._attribution) if self._attribution else ("", "")

    def unseen_note(self) -> str:
        return unseen_note(self._attribution) if self._attribution else ""

    def tooltip_at(self, position: int) -> str:
        """The tooltip of the character at ``position`` of the shown document ("" if none)."""
        cursor = QTextCursor(self._browser.document())
        cursor.setPosition(min(position + 1, self._browser.document().characterCount() - 1))
        return cursor.charFormat().toolTip()

    def tooltip_of(self, word: str) -> str:
        """The tooltip of the first shown occurrence of ``word`` (searched in the coloured text)."""
        found = self._browser.document().find(word)
        if found.isNull():
            return ""
        return self.tooltip_at(found.selectionStart())

    def browser(self) -> QTextBrowser:
        return self._browser

    # ----- hover ------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._browser.viewport() and event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            cursor = self._browser.cursorForPosition(event.pos())
            tip = cursor.charFormat().toolTip()
            if not tip and self._faithfulness is not None and "trust" in cursor.block().text():
                tip = FAITHFULNESS_TIP
            if tip:
                QToolTip.showText(event.globalPos(), tip, self._browser.viewport())
            else:
                QToolTip.hideText()
            return True
        return super().eventFilter(watched, event)
