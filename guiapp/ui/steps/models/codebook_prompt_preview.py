""""See the prompt…": the exact prompt the language model with your codebook reads for a sample text.

The prompt is built by the engine itself (``codebook_model_for`` and ``CodebookPrompt.sample``) from the
codebook as it is now (the Coding step's definitions and examples, with the "Category descriptions…"
editor's sentences) and the prompt settings. The coded training texts shown as examples are drawn only
when the study runs, from the texts the model is not scored on; here their places are marked. The
researcher picks which prompt variant to read; the text is read-only and can be selected and copied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.core.models.llm.codebook_options import IN_TEXTLAB, codebook_llm_options, describe_codebook_params
from guiapp.ui import theme
from guiapp.ui.common.muted_note import muted_note

EXAMPLE_TEXT = "The government will raise taxes on fuel next year to pay for new hospitals."
PREVIEW_MODEL = "the model you choose"  # the prompt does not depend on the model


def first_coded_text(frame: Any, mapping: Any) -> tuple[str, str]:
    """The first coded text of the table (its text columns joined as the study joins them), and how to
    name it; a short example text when there is none."""
    from guiapp.core.tables.cell_values import category_labels, text_values

    fallback = EXAMPLE_TEXT, "a short example text (your table has no coded text yet)"
    if frame is None or mapping is None or not mapping.text_columns:
        return fallback
    columns = [column for column in mapping.text_columns if column in frame.columns]
    if not columns:
        return fallback
    head = frame.head(5_000)
    coded = None
    if mapping.category_column and mapping.category_column in head.columns:
        coded = category_labels(head[mapping.category_column]).notna()
    elif mapping.multi_label and mapping.category_columns:
        coded = head[[c for c in mapping.category_columns if c in head.columns]].notna().any(axis=1)
    texts = [text_values(head[column]) for column in columns]
    for position in range(len(head)):
        if coded is not None and not bool(coded.iloc[position]):
            continue
        text = mapping.text_separator.join(part for values in texts if (part := values.iloc[position].strip()))
        if text:
            return text[:2_000], f"the first coded text of your table (row {position + 1})"
    return fallback


def example_slot(category: str, number: int) -> str:
    return f"‹coded training text {number} of {category}, drawn when the study runs›"


def prompt_text(options: Mapping[str, Any], categories: Sequence[str], point: Mapping[str, int], *,
                multi_label: bool, seed: int, text: str) -> str:
    """The exact prompt for ``text`` with the prompt variant ``point`` (``k``, ``instruction``), the
    examples' places marked; a :class:`UserError` when the codebook cannot make a prompt."""
    from guiapp.core.models.llm.codebook_options import codebook_model_for
    from guiapp.core.models.llm.codebook_prompt import FewShotExample

    filled = codebook_llm_options(IN_TEXTLAB, {key: value for key, value in options.items()
                                               if key in ("descriptions", "examples", "instruction", "sensitivity")}
                                  | {"model": PREVIEW_MODEL})
    model = codebook_model_for(IN_TEXTLAB, filled, list(categories), dict(point), multi_label=multi_label, seed=seed)
    k = int(point.get("k", 0))
    slots = [FewShotExample(example_slot(name, number), (name,))
             for number in range(1, k + 1) for name in model.categories]
    return model.prompt.with_examples(slots).sample(text)


def slots_note(k: int, categories: int) -> str:
    if k == 0:
        return ("No coded texts are shown to the model with this prompt (zero-shot): only the instruction and the "
                "codebook.")
    return (f"{k} coded training text{'s' if k != 1 else ''} per category ({k * categories} in all) will be shown "
            "where the ‹…› places are, each with its category, drawn with the study's seed only from the texts the "
            "model is not scored on; the texts it is scored on never appear among them.")


class PromptPreviewDialog(QDialog):
    """The prompt for ``text`` under each of ``variants``, chosen in a list."""

    def __init__(self, options: Mapping[str, Any], categories: Sequence[str], variants: Sequence[Mapping[str, int]],
                 *, multi_label: bool, seed: int, text: str, text_source: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codebookPromptPreview")
        self.setWindowTitle("The prompt of the language model with your codebook")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.resize(900, 720)
        self._options, self._categories = dict(options), list(categories)
        self._multi_label, self._seed, self._text = multi_label, seed, text
        title = QLabel("What the language model reads", objectName="promptPreviewTitle")
        title.setStyleSheet(theme.heading_style(16))
        intro = QLabel(f"The exact prompt for {text_source}, built from your codebook as it is now (the Coding "
                       "step's definitions and examples, and the “Category descriptions…”). Each text of the study "
                       "gets the same prompt with its own text at the end; the model answers with one of the "
                       "categories' names" + (" — or, where a text can have several categories, yes or no for each"
                                              if multi_label else "") + ".", wordWrap=True,
                       objectName="promptPreviewIntro")
        self.variant_combo = QComboBox(objectName="promptVariant")
        for point in variants:
            self.variant_combo.addItem(describe_codebook_params(point), dict(point))
        self.variant_combo.currentIndexChanged.connect(self.show_variant)
        variant_row = QHBoxLayout()
        variant_row.addWidget(QLabel("Prompt to show:"))
        variant_row.addWidget(self.variant_combo, 1)
        self.slots_label = muted_note("", "promptSlotsNote")
        self.view = QPlainTextEdit(objectName="promptText", readOnly=True)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.view.setFont(font)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                          | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(title)
        column.addWidget(intro)
        column.addLayout(variant_row)
        column.addWidget(self.slots_label)
        column.addWidget(self.view, 1)
        column.addWidget(buttons)
        self.show_variant()

    def prompt(self) -> str:
        return self.view.toPlainText()

    def show_variant(self) -> None:
        point = self.variant_combo.currentData() or {"k": 0, "instruction": 0}
        try:
            text = prompt_text(self._options, self._categories, point, multi_label=self._multi_label,
                               seed=self._seed, text=self._text)
        except UserError as error:
            text = f"No prompt can be made from the codebook as it is: {error.message} {error.hint or ''}".strip()
        self.view.setPlainText(text)
        self.slots_label.setText(slots_note(int(point.get("k", 0)), len(self._categories)))
