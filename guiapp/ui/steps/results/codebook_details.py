"""What the Results step says of a language model with your codebook, beside what it says of every
model: its prompt sensitivity under the chart of all models (how much its answers depend on the
instruction's wording: Krippendorff's α between the wordings and the range of macro-F1, with the
run's one sentence), and in its details the language model with its weights' hash or the server's
digest, the chosen prompt in words, where its examples came from, answers outside the categories,
and — plainly — whether the texts left this computer. "Show the prompt…" opens the exact prompt
template it used, with its SHA-256, to read or copy.

The words come from :mod:`guiapp.core.export.codebook_facts`, which the exports use too.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from guiapp.core.experiment import ModelResult
from guiapp.core.export.codebook_facts import (
    CodebookRecord,
    PromptSensitivity,
    is_codebook_model,
    left_computer_sentence,
    model_line,
    outside_sentence,
    setting_words,
    short_hash,
    where_words,
)
from guiapp.ui import theme

CODEBOOK_TERMS = ["prompt sensitivity", "Krippendorff's alpha", "few-shot examples", "macro-F1", "fold",
                  "test text"]
SHOW_PROMPT = "Show the prompt…"


def sensitivity_overview(models: Sequence[ModelResult]) -> str:
    """A line per language model with your codebook that has a prompt-sensitivity report, and one per
    model whose texts left this computer; "" when there is none."""
    lines = []
    for model in models:
        if not is_codebook_model(model):
            continue
        report = PromptSensitivity.from_spec(model.spec)
        if report is not None:
            said = f"{report.words()}" if report.sentence else f"{report.short()}. {report.words()}"
            lines.append(f"Prompt sensitivity of {model.name}: {said}")
        left = left_computer_sentence(model)
        if left:
            lines.append(left)
    return "\n".join(lines)


def sensitivity_sentence(model: ModelResult) -> str:
    """The run's sentence on the model's prompt sensitivity ("" without a report)."""
    report = PromptSensitivity.from_spec(model.spec)
    return report.words().strip() if report is not None else ""


def summary_part(model: ModelResult) -> str:
    """For the chosen model's summary line: "a language model inside TextLab, prompt sensitivity α 0.74"."""
    report = PromptSensitivity.from_spec(model.spec)
    part = f"a language model {where_words(model)}"
    if report is not None:
        part += f", prompt sensitivity {report.short()}"
    return part


def details_text(model: ModelResult) -> str:
    """The chosen model's record in two or three plain sentences (see the module docstring); its prompt
    sensitivity stands in the summary line beside its score."""
    record = CodebookRecord.of(model)
    sentences = [f"Language model: {model_line(model)}."]
    prompt = setting_words(model) if model.chosen_params else ""
    digest = f" (SHA-256 {short_hash(record.prompt_sha256)})" if record.prompt_sha256 else ""
    if prompt or digest:
        examples = ""
        if record.k:
            seed = f", seed {record.seed}" if record.seed is not None else ""
            examples = f"; its few-shot examples came only from the training texts of the fold scored{seed}"
        sentences.append(f"Prompt: {prompt or 'as recorded'}{digest}{examples}.")
    if record.on_server and record.temperature is not None:
        sentences.append(f"Temperature {record.temperature:g}.")
    for sentence in (outside_sentence(model), left_computer_sentence(model)):
        if sentence:
            sentences.append(sentence)
    return " ".join(sentences)


def prompt_text(model: ModelResult) -> str:
    """The prompt template(s) the model used, as the researcher reads them; "" when not recorded."""
    record = CodebookRecord.of(model)
    prompts = record.prompts
    if len(prompts) < 2:
        return prompts[0] if prompts else ""
    parts = []
    for number, prompt in enumerate(prompts, 1):
        title = f"Question {number} of {len(prompts)}"
        parts.append(f"——— {title} ———\n{prompt}")
    return "\n\n".join(parts)


class PromptDialog(QDialog):
    """The exact prompt template of a language model with your codebook, to read and copy."""

    def __init__(self, model: ModelResult, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codebookPromptDialog")
        self.setWindowTitle(f"The prompt of {model.name}")
        record = CodebookRecord.of(model)
        intro = QLabel(
            "The model read this prompt for every text, with the text in the place of “{text}”. "
            + (f"Its SHA-256 is {record.prompt_sha256}: the same hash means the same prompt."
               if record.prompt_sha256 else ""), objectName="promptIntro", wordWrap=True)
        intro.setStyleSheet(theme.SOFT_STYLE)
        self.text = QPlainTextEdit(prompt_text(model), objectName="promptText", readOnly=True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = QPushButton("Copy the prompt", objectName="copyPrompt")
        copy.setToolTip("Copy the prompt to the clipboard, to paste it into your paper's appendix.")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.text.toPlainText()))
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(self.text, 1)
        column.addWidget(buttons)
        self.resize(760, 520)
