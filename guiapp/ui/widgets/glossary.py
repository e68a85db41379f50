"""Plain-word explanations of technical terms, and a label that attaches them as tooltips.

Every technical term on screen gets one plain sentence (DESIGN.md, "Words on screen").
:class:`GlossaryLabel` shows ordinary text; the known terms in it are underlined and the label's
tooltip lists their explanations, so hovering anywhere over the sentence explains its jargon.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

# term -> one plain sentence. Keys are matched case-insensitively, longest first; the plural
# forms are matched too ("folds", "subword tokens", "Transformers").
TERMS: dict[str, str] = {
    "cross-validation": (
        "A fair way to test a model: the coded texts are split into equal parts (folds); the model "
        "is trained on all parts but one and checked on the one left out, in turn for every part."
    ),
    "fold": (
        "One of the equal parts the coded texts are split into for cross-validation; each part is "
        "used once to check a model trained on the others."
    ),
    "subword token": (
        "The pieces a Transformer cuts text into: common words are one piece, rarer words are "
        "split into several pieces, so a text has more tokens than words."
    ),
    "tokenizer": "The part of a Transformer model that cuts text into subword tokens.",
    "Transformer": (
        "A modern kind of language model (like BERT) that reads a text as a whole; it can only "
        "read a limited number of subword tokens at once, and cuts off the rest."
    ),
    "duplicate": "A text that appears in more than one row, word for word.",
    "category": "One of the codes you gave the texts, such as a topic or a sentiment.",
}
# other words for the same thing: word -> term in TERMS
ALIASES: dict[str, str] = {"token": "subword token"}
TERM_LINK_COLOR = "#1f4e79"


def _pattern(terms: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    # optional plural "s"; not inside a longer word
    return re.compile(rf"(?<![\w-])({alternatives})(s?)(?![\w])", re.IGNORECASE)


def terms_in(text: str, terms: list[str] | None = None) -> list[str]:
    """The glossary terms a text uses, in order of first appearance (each once)."""
    pattern = _pattern(terms or [*TERMS, *ALIASES])
    found: list[str] = []
    for match in pattern.finditer(text):
        key = _key(match.group(1))
        if key and key not in found:
            found.append(key)
    return found


def _key(word: str) -> str | None:
    """The glossary term a matched word stands for (aliases resolved)."""
    for alias, term in ALIASES.items():
        if alias.lower() == word.lower():
            return term
    for term in TERMS:
        if term.lower() == word.lower():
            return term
    return None


def explain(terms: list[str]) -> str:
    """A tooltip that explains the given terms, one line each."""
    lines = []
    for term in dict.fromkeys(ALIASES.get(t, t) for t in terms):
        lines.append(f"{term[0].upper()}{term[1:]}: {TERMS[term]}")
    return "\n".join(lines)


class GlossaryLabel(QLabel):
    """A word-wrapped label whose technical terms are underlined and explained in its tooltip.

    ``terms`` restricts which glossary entries are marked (default: the technical ones, not
    everyday words like "category"). The shown text is available as :meth:`plain_text`.
    """

    TECHNICAL = ["cross-validation", "fold", "subword token", "token", "tokenizer", "Transformer"]

    def __init__(self, text: str = "", parent=None, *, terms: list[str] | None = None) -> None:
        super().__init__(parent)
        self._terms = list(terms) if terms is not None else list(self.TECHNICAL)
        self._plain = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.set_plain_text(text)

    def plain_text(self) -> str:
        """The text as the user reads it (without markup)."""
        return self._plain

    def explained_terms(self) -> list[str]:
        return terms_in(self._plain, self._terms) if self._plain else []

    def set_plain_text(self, text: str, *, bold_prefix: str = "") -> None:
        """Show ``text``; ``bold_prefix`` (e.g. "What to do:") is shown bold before it."""
        self._plain = f"{bold_prefix} {text}".strip() if bold_prefix else text
        escaped = html.escape(text)
        marked: set[str] = set()

        def mark(match: re.Match[str]) -> str:
            key = _key(match.group(1))
            if key is None or key in marked:
                return match.group(0)
            marked.add(key)
            return f'<span style="color:{TERM_LINK_COLOR}; text-decoration: underline;">{match.group(0)}</span>'

        if self._terms and text:
            escaped = _pattern(self._terms).sub(mark, escaped)
        prefix = f"<b>{html.escape(bold_prefix)}</b> " if bold_prefix else ""
        self.setText(prefix + escaped.replace("\n", "<br>"))
        found = self.explained_terms()
        self.setToolTip(explain(found) if found else "")
        self.setCursor(Qt.CursorShape.WhatsThisCursor if found else Qt.CursorShape.ArrowCursor)
