"""The "Category descriptions" editor of the Models step: a few words per category for the zero-shot models.

A zero-shot model never learns from the coded texts: it knows the categories only from these
descriptions (a category left empty is described by its name). The editor lists the study's
categories, each with a field for its sentence; when the Coding step has a codebook, the fields are
first filled from its definitions, and a button fills them from it again.

:func:`merged_descriptions` is the rule the Models step keeps to: the sentences written here win,
the codebook's definitions fill the rest, and an empty sentence is left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from guiapp.ui import theme
from guiapp.ui.common.layouts import hbox, vbox
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.common.scroll_area import ScrollArea

INTRO = (
    "The zero-shot models never learn from your coded texts: they know your categories only from "
    "these descriptions. Say in a few plain words what a text of each category is about, in the language "
    "of your texts; the NLI model reads it inside “{phrased}”, so words that complete that sentence work "
    "best. A category left empty is described by its name alone."
)
FIELD_TIP = (
    "What a text of “{name}” is about. The similarity model compares each text with it; the NLI model "
    "checks whether “{phrased}” is true of each text. Concrete words work best, e.g. “taxes, prices, jobs "
    "and the state budget”."
)


def merged_descriptions(categories: Sequence[str], written: Mapping[str, str],
                        definitions: Mapping[str, str]) -> dict[str, str]:
    """Each category's sentence: the one written in the editor (even an emptied one), else the
    codebook's definition; empty sentences are left out. Without ``categories`` (the data is not
    checked yet) every written or defined category is kept."""
    names = list(categories) or list(dict.fromkeys([*definitions, *written]))
    merged = {}
    for name in names:
        sentence = written[name] if name in written else definitions.get(name, "")
        sentence = " ".join(str(sentence).split())
        if sentence:
            merged[name] = sentence
    return merged


def _phrased(template: str, words: str) -> str:
    """The NLI model's sentence with ``words`` in place of {} (the default sentence when it has none)."""
    return (template if "{}" in template else "This text is about {}.").replace("{}", words, 1)


class CategoryDescriptionsDialog(QDialog):
    """One field per category; OK keeps :meth:`descriptions` (the caller reads it on ``accepted``)."""

    def __init__(self, categories: Sequence[str], descriptions: Mapping[str, str],
                 definitions: Mapping[str, str], template: str = "This text is about {}.",
                 parent: QWidget | None = None, *, with_examples: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("categoryDescriptions")
        self.setWindowTitle("Category descriptions")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.resize(780, 560)
        self._definitions = {name: text for name, text in definitions.items() if text.strip()}
        self.fields: dict[str, QLineEdit] = {}

        title = QLabel("Describe your categories", objectName="descriptionsTitle")
        title.setStyleSheet(theme.heading_style(16))
        intro = QLabel(INTRO.format(phrased=_phrased(template, "…")), objectName="descriptionsIntro")
        intro.setWordWrap(True)
        self.codebook_note = muted_note("", "descriptionsCodebookNote")
        self.codebook_button = QPushButton("Use the codebook's definitions", objectName="descriptionsFromCodebook")
        self.codebook_button.setToolTip(
            "Put the definitions written on the Coding step back into the fields (categories without a "
            "definition keep what is written here).")
        self.codebook_button.clicked.connect(self.fill_from_codebook)
        known = [name for name in categories if name in self._definitions]
        note = (f"Filled in from your codebook (Coding step): {len(known)} of {len(categories)} "
                f"categor{'y has' if len(known) == 1 else 'ies have'} a definition there." if known else "")
        if with_examples:
            note += " The codebook's example texts are read with these descriptions too."
        self.codebook_note.setText(note.strip())
        self.codebook_note.setVisible(bool(note))
        self.codebook_button.setVisible(bool(known))

        rows = QWidget(objectName="descriptionsRows")
        grid = QGridLayout(rows)
        grid.setContentsMargins(0, 0, 8, 0)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(8)
        grid.setColumnStretch(1, 1)
        for column, heading in enumerate(("Category", "What a text of this category is about")):
            label = QLabel(heading)
            label.setStyleSheet(f"{theme.BOLD_STYLE} {theme.MUTED_STYLE}")
            grid.addWidget(label, 0, column)
        for row, name in enumerate(categories, 1):
            label = QLabel(name, objectName=f"descriptionName_{row}")
            label.setWordWrap(True)
            label.setMinimumWidth(190)
            label.setMaximumWidth(260)
            label.setStyleSheet(theme.BOLD_STYLE)
            field = QLineEdit(objectName=f"description_{row}")
            field.setText(str(descriptions.get(name, "")))
            field.setPlaceholderText(f"Left empty: the model reads “{_phrased(template, name)}”")
            field.setToolTip(FIELD_TIP.format(name=name, phrased=_phrased(template, "…")))
            field.setAccessibleName(f"Description of {name}")
            field.setCursorPosition(0)
            label.setBuddy(field)
            grid.addWidget(label, row, 0, Qt.AlignmentFlag.AlignVCenter)
            grid.addWidget(field, row, 1)
            self.fields[name] = field
        grid.setRowStretch(len(categories) + 1, 1)
        if not categories:
            empty = QLabel("The categories appear here once your data is checked on the Data step.",
                           objectName="descriptionsEmpty")
            empty.setStyleSheet(theme.MUTED_STYLE)
            grid.addWidget(empty, 1, 0, 1, 2)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setToolTip(
            "Keep these descriptions for both zero-shot models (they are saved with the study).")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        vbox(self, title, intro, hbox(None, (self.codebook_note, 1), self.codebook_button, spacing=10),
             (ScrollArea(rows, sideways=False), 1), buttons, margins=(20, 16, 20, 14), spacing=10)

    def descriptions(self) -> dict[str, str]:
        """Every category's sentence as written now ("" where the field is empty)."""
        return {name: " ".join(field.text().split()) for name, field in self.fields.items()}

    def fill_from_codebook(self) -> None:
        """Put the codebook's definitions into the fields of the categories that have one."""
        for name, field in self.fields.items():
            if name in self._definitions:
                field.setText(self._definitions[name])
                field.setCursorPosition(0)
