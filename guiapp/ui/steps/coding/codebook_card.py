"""What the codebook says about one category, shown beside the text being coded: its definition and
a few of its example texts, in small, quiet type so the text being coded stays the main thing."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QWidget

from guiapp.core.coding.codebook import CodebookCategory
from guiapp.ui import theme
from guiapp.ui.common.layouts import STRETCH, vbox
from guiapp.ui.common.scroll_area import ScrollArea, fill

NO_DEFINITION = "No definition yet — add one in the codebook."
NOTHING_CHOSEN = "Point at a category to see what the codebook says about it."
SHOWN_EXAMPLES = 5
EXAMPLE_LENGTH = 240  # characters of an example shown before "…"


def _shortened(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXAMPLE_LENGTH else text[:EXAMPLE_LENGTH - 1].rstrip() + "…"


class CodebookCard(QWidget):
    """The definition and examples of one category (``show_category``), or a quiet line (``clear``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codebookCard")
        frame = QFrame(objectName="codebookCardFrame")
        frame.setStyleSheet(theme.card_style("codebookCardFrame", theme.PANEL_TINT))
        self._caption = QLabel("From your codebook", objectName="codebookCardCaption")
        self._caption.setStyleSheet(f"{theme.MUTED_STYLE} font-size: 11px;")
        self._title = QLabel(objectName="codebookCardTitle", wordWrap=True)
        self._title.setStyleSheet(f"{theme.heading_style(14)} {theme.text_style(theme.HEADING_INK)}")
        self._definition = QLabel(objectName="codebookCardDefinition", wordWrap=True)
        self._definition.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._examples_title = QLabel("Examples", objectName="codebookCardExamplesTitle")
        self._examples_title.setStyleSheet(f"{theme.BOLD_STYLE} {theme.MUTED_STYLE} font-size: 12px;")
        self._examples = QLabel(objectName="codebookCardExamples", wordWrap=True)
        self._examples.setTextFormat(Qt.TextFormat.RichText)
        self._examples.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._examples.setStyleSheet(f"{theme.text_style(theme.NOTE_TEXT)} font-size: 12px;")

        content = QWidget()
        content.setStyleSheet("background: transparent;")
        vbox(content, self._caption, self._title, self._definition, 6, self._examples_title, self._examples,
             STRETCH, margins=(12, 10, 12, 12), spacing=4)
        scroll = ScrollArea(content, name="codebookCardScroll", sideways=False)
        scroll.setStyleSheet("QScrollArea#codebookCardScroll { background: transparent; }")
        scroll.viewport().setAutoFillBackground(False)
        fill(frame, scroll)
        fill(self, frame)
        self._category: CodebookCategory | None = None
        self.clear()

    def show_category(self, category: CodebookCategory | None) -> None:
        """Show what the codebook says about ``category`` (None: nothing chosen)."""
        if category is None:
            self.clear()
            return
        self._category = category
        self._title.setText(category.name)
        self._title.show()
        definition = category.definition.strip()
        self._definition.setText(definition or NO_DEFINITION)
        quiet = theme.FAINT_TEXT if not definition else theme.SOFT_TEXT
        self._definition.setStyleSheet(f"{theme.text_style(quiet)} font-size: 13px;"
                                       + ("" if definition else " font-style: italic;"))
        examples = [text for text in category.examples if text.strip()]
        items = "".join(f"<li style='margin-bottom: 4px;'>{html.escape(_shortened(text))}</li>"
                        for text in examples[:SHOWN_EXAMPLES])
        more = len(examples) - SHOWN_EXAMPLES
        more_line = f"<p style='color:{theme.FAINT_TEXT};'>… and {more} more in the codebook</p>" if more > 0 else ""
        self._examples.setText(f"<ul style='margin-left: -24px;'>{items}</ul>{more_line}" if examples else "")
        self._examples_title.setVisible(bool(examples))
        self._examples.setVisible(bool(examples))

    def clear(self, message: str = "") -> None:
        """Show only a quiet line (default: point at a category)."""
        self._category = None
        self._title.hide()
        self._definition.setText(message or NOTHING_CHOSEN)
        self._definition.setStyleSheet(f"{theme.text_style(theme.FAINT_TEXT)} font-size: 13px;")
        self._examples_title.hide()
        self._examples.hide()

    # ----- what the researcher sees (for the page and tests) ----------------------------------------
    def category_name(self) -> str | None:
        return self._category.name if self._category is not None else None

    def definition_text(self) -> str:
        return self._definition.text()

    def example_texts(self) -> list[str]:
        """The examples shown (shortened as on screen)."""
        if self._category is None:
            return []
        return [_shortened(text) for text in self._category.examples if text.strip()][:SHOWN_EXAMPLES]
