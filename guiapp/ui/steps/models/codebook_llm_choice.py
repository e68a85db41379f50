"""The card "Language model with your codebook" in the Models step's "Few or no coded texts" group.

A generative language model reads each text with the codebook (each category's name, definition and
examples: the Coding step's, with the "Category descriptions…" editor's sentences, as the zero-shot
models read them) and names the category. The card, not ticked at first, holds:

* where the model runs (:mod:`.codebook_llm_where`): inside TextLab (a causal language model's folder or
  Hugging Face id, downloaded once with consent) or on a language-model server (Ollama or
  OpenAI-compatible), with the researcher's consent for a server that is not this computer;
* the prompt settings (:mod:`.codebook_llm_prompt_settings`: examples per category to try, TextLab's
  instruction wordings or the researcher's own, the sensitivity report), summed up in a sentence;
* "See the prompt…" (:mod:`.codebook_prompt_preview`): the exact prompt for a sample text.

It builds the study's :class:`ModelSpec` (``codebook_llm`` × ``in_textlab`` or ``server``) and takes one
over from an opened study, keeping the options it does not show (a device, a batch size, a server's
temperature, samples and timeout) as the study wrote them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QWidget,
)

from guiapp.core.models.llm.codebook_options import (
    CODEBOOK_LLM,
    DEFAULT_SENSITIVITY,
    FAMILY_TITLE,
    IN_TEXTLAB,
    IN_TEXTLAB_OPTIONS,
    SERVER,
    SERVER_OPTIONS,
)
from guiapp.core.study.sections import ModelSpec
from guiapp.ui import theme
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.steps.models.codebook_llm_prompt_settings import PromptSettings, PromptSettingsDialog
from guiapp.ui.steps.models.codebook_llm_where import DEFAULT_ADDRESS, InTextLabFields, ServerFields
from guiapp.ui.steps.models.codebook_prompt_preview import EXAMPLE_TEXT, PromptPreviewDialog
from guiapp.ui.steps.models.ticked_models import Pair, ToggleCard, show_ticked

IN_TEXTLAB_PAIR: Pair = (CODEBOOK_LLM, IN_TEXTLAB)
SERVER_PAIR: Pair = (CODEBOOK_LLM, SERVER)
CODEBOOK_PAIRS: tuple[Pair, ...] = (IN_TEXTLAB_PAIR, SERVER_PAIR)
TERMS = ["zero-shot", "GPU"]
SENTENCE = (
    "A generative language model reads each text together with your codebook — each category's definition and "
    "examples — and names the category, with a probability for each. It is tested on the same coded texts as the "
    "other models, so you see how far it gets with your codebook. Large models are slow without a GPU. Check its "
    "answers against your own coding: never treat its labels as the truth."
)
WHERE_TIPS = {
    IN_TEXTLAB: "TextLab opens the language model itself: your texts stay on this computer.",
    SERVER: "A language-model server you run (Ollama, llama.cpp's llama-server, vLLM, LM Studio) answers; on "
            "this computer your texts stay here.",
}
UNKNOWN_TIME = "time unknown"
RUN_STEP_NOTE = "The Run step shows the time left once the run starts."
UNKNOWN_TIME_TIP = ("TextLab cannot estimate this model's time yet: it depends on the language model's size, the "
                    f"graphics card and the server. {RUN_STEP_NOTE}")


class CodebookSource(Protocol):
    """Where the card reads the codebook: the "Few or no coded texts" group (its descriptions editor)."""

    changed: Any

    def categories(self) -> list[str]: ...

    def descriptions(self) -> dict[str, str]: ...

    def examples(self, kept: Mapping[str, Sequence[str]] | None = None) -> dict[str, list[str]]: ...


class CodebookLlmChoice(ToggleCard):
    """The card (a click on its empty part ticks it); ``changed`` when it is ticked or a setting is edited."""

    changed = Signal()

    def __init__(self, codebook: CodebookSource, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="fewShotCard")
        self.setProperty("ticked", False)
        self._codebook = codebook
        self._kept: dict[str, ModelSpec] = {}  # by classifier: what an opened study wrote
        self.settings = PromptSettings()
        # the sample text for the prompt preview (text, how to name it), whether a text has several
        # categories, and the study's seed: set by the Models step
        self.sample: Callable[[], tuple[str, str]] = lambda: (EXAMPLE_TEXT, "a short example text")
        self.multi_label: Callable[[], bool] = lambda: False
        self.seed: Callable[[], int] = lambda: 0
        self.settings_dialog: PromptSettingsDialog | None = None
        self.preview_dialog: PromptPreviewDialog | None = None

        self.box = QCheckBox(FAMILY_TITLE, objectName="model_codebook_llm")
        self.box.setStyleSheet("QCheckBox { font-weight: 600; } QCheckBox::indicator { width: 18px; height: 18px; }")
        self.box.setToolTip(f"Compare this model with the others.\n{SENTENCE}")
        self.box.toggled.connect(self._toggled)
        self.estimate_label = QLabel("", objectName="estimate_codebook_llm")
        self.estimate_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        sentence = GlossaryLabel(SENTENCE, terms=TERMS)
        sentence.setObjectName("sentence_codebook_llm")
        sentence.setStyleSheet(theme.MUTED_STYLE)

        self.local_radio = QRadioButton("On this computer, inside TextLab", objectName="codebookInTextLab",
                                        toolTip=WHERE_TIPS[IN_TEXTLAB])
        self.server_radio = QRadioButton("A language-model server", objectName="codebookOnServer",
                                         toolTip=WHERE_TIPS[SERVER])
        self.local_radio.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.local_radio)
        group.addButton(self.server_radio)
        self.local_radio.toggled.connect(self._where_changed)
        where_row = QHBoxLayout()
        where_row.setSpacing(14)
        where_row.addWidget(QLabel("Runs:"))
        where_row.addWidget(self.local_radio)
        where_row.addWidget(self.server_radio)
        where_row.addStretch(1)
        self.local = InTextLabFields()
        self.local.changed.connect(self._edited)
        self.server = ServerFields()
        self.server.changed.connect(self._edited)

        self.codebook_label = muted_note("", "codebookSummary")
        self.prompt_label = QLabel("", objectName="codebookPromptSummary", wordWrap=True)
        self.settings_button = QPushButton("Prompt settings…", objectName="codebookPromptSettingsButton",
                                           clicked=self.open_settings,
                                           toolTip="Choose how many coded examples per category to try, the "
                                                   "instruction's wording, and the report on other wordings.")
        self.preview_button = QPushButton("See the prompt…", objectName="codebookSeePrompt", clicked=self.open_preview,
                                          toolTip="Read the exact prompt the model gets for a text of your study.")
        prompt_row = QHBoxLayout()
        prompt_row.setSpacing(8)
        prompt_row.addWidget(self.prompt_label, 1)
        prompt_row.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignTop)
        prompt_row.addWidget(self.preview_button, 0, Qt.AlignmentFlag.AlignTop)
        self.problem_label = QLabel("", objectName="codebookProblem", wordWrap=True)
        self.problem_label.setStyleSheet(theme.text_style(theme.REASON))

        body = self.lay_out(self.box, self.estimate_label)
        body.addWidget(sentence)
        body.addLayout(where_row)
        body.addWidget(self.local)
        body.addWidget(self.server)
        body.addWidget(self.codebook_label)
        body.addLayout(prompt_row)
        body.addWidget(self.problem_label)
        codebook.changed.connect(self.show_codebook)
        self._where_changed()
        self.show_codebook()

    # -- ticks -------------------------------------------------------------------------------------------
    def classifier(self) -> str:
        return SERVER if self.server_radio.isChecked() else IN_TEXTLAB

    def pair(self) -> Pair:
        return (CODEBOOK_LLM, self.classifier())

    def is_checked(self) -> bool:
        return self.box.isChecked()

    def checked(self) -> list[Pair]:
        return [self.pair()] if self.box.isChecked() else []

    def set_checked(self, checked: bool) -> None:
        self.box.blockSignals(True)
        self.box.setChecked(checked)
        self.box.blockSignals(False)
        self._restyle()

    def set_estimate(self, text: str, tip: str = "") -> None:
        self.estimate_label.setText(text)
        self.estimate_label.setToolTip(tip)

    def estimate(self) -> str:
        return self.estimate_label.text()

    # -- the spec ----------------------------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """The model's options as the study file writes them."""
        classifier = self.classifier()
        allowed = IN_TEXTLAB_OPTIONS if classifier == IN_TEXTLAB else SERVER_OPTIONS
        kept = self._kept.get(classifier) or next(iter(self._kept.values()), None)
        options = {key: copy.deepcopy(value) for key, value in (kept.representation_options if kept else {}).items()
                   if key in allowed and key not in ("descriptions", "examples", "instruction")}
        descriptions = self._codebook.descriptions()
        if descriptions:
            options["descriptions"] = descriptions
        examples = self._codebook.examples(kept.representation_options.get("examples") if kept else None)
        if examples:
            options["examples"] = examples
        if self.settings.own_instruction is not None:
            options["instruction"] = self.settings.own_instruction
        options["sensitivity"] = self.settings.sensitivity
        if classifier == IN_TEXTLAB:
            options["model"] = self.local.model()
        else:
            options.update(model=self.server.model(), address=self.server.address(), protocol=self.server.protocol(),
                           texts_may_leave_computer=self.server.consent())
        return options

    def model_spec(self) -> ModelSpec:
        kept = self._kept.get(self.classifier())
        return ModelSpec(representation=CODEBOOK_LLM, classifier=self.classifier(),
                         representation_options=self.options(), grid=self.settings.grid(),
                         name=kept.name if kept is not None else "")

    def model_specs(self) -> list[ModelSpec]:
        return [self.model_spec()] if self.box.isChecked() else []

    def load(self, models: Sequence[ModelSpec]) -> list[str]:
        """Tick the study's first language model with the codebook and take over its settings; returns
        what could not be shown, in words."""
        notes: list[str] = []
        self._kept = {}
        first = models[0] if models else None
        if len(models) > 1:
            notes.append(f"The study has {len(models)} language models with your codebook: only the first is shown.")
        if first is not None:
            self._kept[first.classifier] = first
            options = first.representation_options
            self.server_radio.setChecked(first.classifier == SERVER)
            self.local_radio.setChecked(first.classifier != SERVER)
            model = str(options.get("model") or "")
            if first.classifier == SERVER:
                self.server.set_values(str(options.get("address") or DEFAULT_ADDRESS),
                                       str(options.get("protocol") or "ollama"), model,
                                       bool(options.get("texts_may_leave_computer")))
            else:
                self.local.set_model(model)
            self.settings = settings_from(first)
        else:
            self.settings = PromptSettings()
        self.set_checked(first is not None)
        self._where_changed()
        return notes

    # -- problems ----------------------------------------------------------------------------------------
    def problem(self) -> str:
        """Why the ticked card cannot run as set ("" when it can, or when it is not ticked)."""
        if not self.box.isChecked():
            return ""
        return self._problem()[0]

    def _problem(self) -> tuple[str, str]:
        where = self.server if self.classifier() == SERVER else self.local
        found = where.problem()
        if found[0]:
            return found
        return self.settings.problem(), ""

    # -- dialogs -----------------------------------------------------------------------------------------
    def open_settings(self) -> PromptSettingsDialog:
        dialog = PromptSettingsDialog(self.settings, self)
        dialog.accepted.connect(lambda d=dialog: self.set_settings(d.settings()))
        dialog.finished.connect(dialog.deleteLater)
        self.settings_dialog = dialog
        dialog.open()
        return dialog

    def set_settings(self, settings: PromptSettings) -> None:
        self.settings = settings
        self._edited()

    def open_preview(self) -> PromptPreviewDialog:
        text, source = self.sample()
        dialog = PromptPreviewDialog(self.options(), self._codebook.categories(), self.settings.variants(),
                                     multi_label=self.multi_label(), seed=self.seed(), text=text, text_source=source,
                                     parent=self)
        dialog.finished.connect(dialog.deleteLater)
        self.preview_dialog = dialog
        dialog.open()
        return dialog

    def cancel_jobs(self) -> None:
        """Stop a download or a question to the server (the window is closing, or a run starts)."""
        self.local.cancel()
        self.server.cancel()

    # -- showing -----------------------------------------------------------------------------------------
    def show_codebook(self) -> None:
        categories = self._codebook.categories()
        described = self._codebook.descriptions()
        with_examples = self._codebook.examples()
        if not categories:
            text = "Its codebook: the categories appear once your data is checked."
        else:
            text = f"Its codebook: {len(described)} of {len(categories)} categories defined"
            text += f", {len(with_examples)} with example texts" if with_examples else ""
            rest = len(categories) - len(described)
            text += (f"; {rest} known by {'its name' if rest == 1 else 'their names'} only" if rest else "")
            text += (". Write definitions on the Coding step or with “Category descriptions…” above (the same as "
                     "the zero-shot models').")
        self.codebook_label.setText(text)

    def _show(self) -> None:
        self.prompt_label.setText(self.settings.summary())
        problem, hint = self._problem()
        self.problem_label.setText(" ".join([problem, hint]).strip())
        download_offered = self.classifier() == IN_TEXTLAB and self.local.download.isVisibleTo(self)
        self.problem_label.setVisible(self.box.isChecked() and bool(problem) and not download_offered)

    def _where_changed(self) -> None:
        local = self.classifier() == IN_TEXTLAB
        self.local.setVisible(local)
        self.server.setVisible(not local)
        self._edited()

    def _edited(self) -> None:
        self._show()
        self.changed.emit()

    def _toggled(self) -> None:
        self._restyle()
        self._edited()

    def _restyle(self) -> None:
        ticked = self.box.isChecked()
        show_ticked(self, ticked)
        self.estimate_label.setStyleSheet(
            f"{theme.text_style(theme.ACCENT)} {theme.BOLD_STYLE}" if ticked else theme.MUTED_STYLE)
        self._show()


def settings_from(model: ModelSpec) -> PromptSettings:
    """The prompt settings a study's model gives (its grid's defaults where it names none)."""
    from guiapp.core.errors import UserError
    from guiapp.core.models.llm.codebook_options import normalise_codebook_grid

    own = model.representation_options.get("instruction")
    own = own if isinstance(own, str) and own.strip() else None
    try:
        grid = normalise_codebook_grid(model.grid, own_instruction=own is not None)
    except UserError:
        grid = normalise_codebook_grid({}, own_instruction=own is not None)
    sensitivity = model.representation_options.get("sensitivity")
    return PromptSettings(k=list(grid["k"]), wordings=[0] if own is not None else list(grid["instruction"]),
                          own_instruction=own,
                          sensitivity=sensitivity if isinstance(sensitivity, int) and not isinstance(sensitivity, bool)
                          else DEFAULT_SENSITIVITY)


def codebook_models(models: Sequence[ModelSpec]) -> list[ModelSpec]:
    """A study's language models with the codebook, in order."""
    return [model for model in models if (model.representation, model.classifier) in CODEBOOK_PAIRS]


def study_descriptions(models: Sequence[ModelSpec]) -> dict[str, str] | None:
    """The categories' sentences a study gives its first language model with the codebook (None: none)."""
    found = codebook_models(models)
    table = found[0].representation_options.get("descriptions") if found else None
    return {str(key): str(value) for key, value in table.items()} if isinstance(table, dict) else None
