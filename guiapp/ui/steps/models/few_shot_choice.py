"""The "Few or no coded texts" group of the Models step: the zero-shot models and SetFit.

Three tickable cards below the fine-tuned Transformer, none ticked at first:

- zero-shot by similarity: the bundled sentence model compares each text with a sentence per
  category (``zero_shot`` × ``similarity``);
- zero-shot by NLI: a natural-language-inference model already on this computer judges, for each
  category, whether "This text is about …" holds (``zero_shot`` × ``nli``: the model's id or folder and
  the sentence's template are typed here);
- SetFit: the bundled sentence model fine-tuned on pairs of coded texts (``setfit`` × ``setfit``).

Both zero-shot models share the categories' sentences, written in the "Category descriptions…"
editor (:mod:`.category_descriptions`) and filled from the Coding step's codebook. The widget
builds the cards' :class:`ModelSpec` s and takes them over from an opened study, keeping what
this step does not show (a similarity model's temperature, SetFit's model) as the study wrote it;
SetFit's grid and training options are edited in the Advanced dialog, and the Models step puts
them into SetFit's spec.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from guiapp.core.models.few_shot_options import DEFAULT_TEMPLATE, SETFIT_OPTIONS
from guiapp.core.models.zero_shot.category_names import coded_names, coded_names_note
from guiapp.core.study.sections import FEW_SHOT_MODELS, ModelSpec
from guiapp.ui import theme
from guiapp.ui.steps.models.category_descriptions import CategoryDescriptionsDialog, merged_descriptions
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.steps.models.hub_download import HubDownloadRow, needs_download
from guiapp.ui.steps.models.ticked_models import (
    Pair,
    TickedModels,
    ToggleCard,
    section_column,
    show_ticked,
)

FEW_SHOT_PAIRS: tuple[Pair, ...] = FEW_SHOT_MODELS
SIMILARITY_PAIR, NLI_PAIR, SETFIT_PAIR = FEW_SHOT_PAIRS  # zero-shot by similarity, by NLI; SetFit
ZERO_SHOT = SIMILARITY_PAIR[0]
NLI_EXAMPLE = "facebook/bart-large-mnli"
TERMS = ["zero-shot", "NLI", "SetFit", "fine-tuning"]

TITLES: dict[Pair, str] = {
    SIMILARITY_PAIR: "No coded texts needed (zero-shot): similarity to your category descriptions",
    NLI_PAIR: "No coded texts needed (zero-shot): NLI model",
    SETFIT_PAIR: "Few coded texts (SetFit)",
}
SENTENCES: dict[Pair, str] = {
    SIMILARITY_PAIR: (
        "Compares the meaning of each text with the description of each category and gives the closest "
        "categories the highest chance. Uses the small language model that comes with TextLab "
        "(all-MiniLM-L6-v2) and works offline. It learns nothing from your coded texts: they only test it."
    ),
    NLI_PAIR: (
        "A language model trained to judge whether one sentence follows from another reads each text and "
        "checks, for each category, whether the sentence below is true of it. It learns nothing from your "
        "coded texts: they only test it. Large NLI models are slow without a GPU."
    ),
    SETFIT_PAIR: (
        "Fine-tunes the small language model that comes with TextLab (all-MiniLM-L6-v2) on pairs of your "
        "coded texts (same category or not), then learns your categories from it. Often good with as few as "
        "8 to 16 coded texts per category. It learns from many pairs per text, so without a GPU it takes minutes "
        "even on a few coded texts; with thousands it learns from a random "
        f"{SETFIT_OPTIONS['max_pairs']:,} pairs per epoch (Advanced…, SetFit tab)."
    ),
}
INTRO = (
    "When you have coded only a few texts, or none yet beyond the ones to test with. These models are "
    "tested on the same coded test texts as the others, so you can see how far they get."
)
NLI_NOTE = (
    "A folder on this computer, or the model's name on Hugging Face: a named model not on this computer yet is "
    "downloaded once with “Download now” (this needs the internet; your texts never leave the computer)."
)
MODEL_TIP = (
    "The NLI model to use: its name on Hugging Face (e.g. facebook/bart-large-mnli, roberta-large-mnli) "
    "if it was downloaded to this computer before, or the folder that holds it."
)
TEMPLATE_TIP = (
    "The sentence the NLI model checks against each text, once per category: {} is replaced by the "
    "category's description, or by its name when it has none. Write it in the language of your texts."
)


class FewShotChoice(TickedModels, QFrame):
    """The group's cards; emits ``changed`` when a card is ticked or a setting edited."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fewShotSection")
        self.setStyleSheet(theme.tickable_card_style("fewShotCard"))
        self._boxes: dict[Pair, QCheckBox] = {}
        self._cards: dict[Pair, QFrame] = {}
        self._estimates: dict[Pair, QLabel] = {}
        self._categories: list[str] = []
        self._definitions: dict[str, str] = {}  # the codebook's, per category
        self._examples: dict[str, list[str]] = {}  # the codebook's example texts, per category
        self._codebook_order: list[str] = []  # the codebook's categories, defined or not
        self._written: dict[str, str] = {}  # written in the editor or read from a study (an empty one counts)
        # what this step does not show, kept as an opened study wrote it (from its first model of each kind)
        self._kept: dict[Pair, ModelSpec] = {}
        self.dialog: CategoryDescriptionsDialog | None = None
        self._has_codebook_card = False  # the language model with your codebook reads the descriptions too

        title = QLabel("<b>Few or no coded texts</b>", objectName="fewShotTitle")
        title.setStyleSheet("font-size: 14px;")
        intro = muted_note(INTRO, "fewShotIntro")

        self.model_edit = QLineEdit(objectName="nliModel")
        self.model_edit.setPlaceholderText(f"e.g. {NLI_EXAMPLE}, or a folder")
        self.model_edit.setToolTip(MODEL_TIP)
        self.model_edit.setAccessibleName("NLI model name or folder")
        self.model_edit.textChanged.connect(self._edited)
        self.folder_button = QPushButton("Choose folder…", objectName="nliFolder")
        self.folder_button.setToolTip("Choose the folder on this computer that holds the NLI model.")
        self.folder_button.clicked.connect(self.choose_folder)
        self.template_edit = QLineEdit(DEFAULT_TEMPLATE, objectName="nliTemplate")
        self.template_edit.setToolTip(TEMPLATE_TIP)
        self.template_edit.setAccessibleName("Sentence checked for each category")
        self.template_edit.textChanged.connect(self._edited)
        self.nli_problem = QLabel("", objectName="nliProblem")
        self.nli_problem.setWordWrap(True)
        self.nli_problem.setStyleSheet(theme.text_style(theme.REASON))
        self.nli_problem.hide()
        note = muted_note(NLI_NOTE, "nliNote")
        nli_fields = QGridLayout()
        nli_fields.setHorizontalSpacing(8)
        nli_fields.setVerticalSpacing(6)
        model_label = QLabel("NLI model:")
        model_label.setBuddy(self.model_edit)
        model_label.setToolTip(MODEL_TIP)
        template_label = QLabel("Sentence per category:")
        template_label.setBuddy(self.template_edit)
        template_label.setToolTip(TEMPLATE_TIP)
        nli_fields.addWidget(model_label, 0, 0)
        nli_fields.addWidget(self.model_edit, 0, 1)
        nli_fields.addWidget(self.folder_button, 0, 2)
        nli_fields.addWidget(note, 1, 1, 1, 2)
        nli_fields.addWidget(template_label, 2, 0)
        nli_fields.addWidget(self.template_edit, 2, 1)
        nli_fields.addWidget(self.nli_problem, 3, 1, 1, 2)
        # a named NLI model not on this computer yet: downloaded once, with consent
        self.nli_download = HubDownloadRow(self.nli_model, "nli")
        self.nli_download.finished.connect(self._edited)
        nli_fields.addWidget(self.nli_download, 4, 1, 1, 2)
        nli_fields.setColumnStretch(1, 1)

        self.descriptions_button = QPushButton("Category descriptions…", objectName="descriptionsButton")
        self.descriptions_button.setToolTip(
            "Say in a few words what each category is about. Both zero-shot models know your categories "
            "only from these descriptions (a category without one is described by its name).")
        self.descriptions_button.clicked.connect(self.open_descriptions)
        self.descriptions_label = muted_note("", "descriptionsSummary")
        descriptions_row = QHBoxLayout()
        descriptions_row.setSpacing(10)
        descriptions_row.addWidget(self.descriptions_button)
        descriptions_row.addWidget(self.descriptions_label, 1)

        column = section_column(self, title, intro, spacing=6)
        column.addWidget(self._make_card(SIMILARITY_PAIR))
        column.addWidget(self._make_card(NLI_PAIR, nli_fields))
        column.addLayout(descriptions_row)
        column.addSpacing(2)
        column.addWidget(self._make_card(SETFIT_PAIR))
        self._column = column
        self._show_descriptions()
        self._show_problem()

    def _make_card(self, pair: Pair, details: QGridLayout | None = None) -> QFrame:
        card = ToggleCard(objectName="fewShotCard")
        card.setProperty("ticked", False)
        box = QCheckBox(TITLES[pair], objectName=f"model_{pair[0]}_{pair[1]}")
        box.setStyleSheet("QCheckBox { font-weight: 600; } QCheckBox::indicator { width: 18px; height: 18px; }")
        box.setToolTip(f"Compare this model with the others.\n{SENTENCES[pair]}")
        box.toggled.connect(lambda _checked, p=pair: self._toggled(p))
        card.box = box
        estimate = QLabel("", objectName=f"estimate_{pair[0]}_{pair[1]}")
        estimate.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        sentence = GlossaryLabel(SENTENCES[pair], terms=TERMS)
        sentence.setObjectName(f"sentence_{pair[0]}_{pair[1]}")
        sentence.setStyleSheet(theme.MUTED_STYLE)
        body = card.lay_out(box, estimate)
        body.addWidget(sentence)
        if details is not None:
            body.addLayout(details)
        self._boxes[pair] = box
        self._cards[pair] = card
        self._estimates[pair] = estimate
        return card

    def add_card(self, card: QWidget) -> None:
        """Add a card with its own settings at the end of the group (the language model with your codebook)."""
        self._column.addSpacing(2)
        self._column.addWidget(card)
        self._has_codebook_card = True
        self._show_descriptions()

    # -- ticks ---------------------------------------------------------------------------------------
    def available(self) -> list[Pair]:
        return list(FEW_SHOT_PAIRS)

    def _ticks_set(self) -> None:
        self._show_problem()

    def set_estimate(self, pair: Pair, text: str, tip: str = "") -> None:
        self._estimates[pair].setText(text)
        self._estimates[pair].setToolTip(tip)

    def estimate(self, pair: Pair) -> str:
        return self._estimates[pair].text()

    # -- settings ------------------------------------------------------------------------------------
    def nli_model(self) -> str:
        return self.model_edit.text().strip()

    def template(self) -> str:
        return self.template_edit.text().strip() or DEFAULT_TEMPLATE

    def set_categories(self, categories: Sequence[str]) -> None:
        """The study's categories (from the Data step's check)."""
        self._categories = list(categories)
        self._show_descriptions()

    def set_codebook(self, definitions: Mapping[str, str], examples: Mapping[str, Sequence[str]] | None = None) -> None:
        """The Coding step's definitions, per category in the codebook's order (they fill the sentences
        not written here), and its example texts (the zero-shot models read them with the sentences)."""
        self._codebook_order = list(definitions)
        self._definitions = {name: text for name, text in definitions.items() if str(text).strip()}
        self._examples = {name: kept for name, texts in (examples or {}).items()
                          if (kept := [str(text).strip() for text in texts if str(text).strip()])}
        self._show_descriptions()
        self.changed.emit()

    def categories(self) -> list[str]:
        """The categories to describe: the study's, in the codebook's order where it has them."""
        if not self._categories:
            return list(dict.fromkeys([*self._definitions, *self._written]))
        ordered = [name for name in self._codebook_order if name in self._categories]
        return ordered + [name for name in self._categories if name not in ordered]

    def descriptions(self) -> dict[str, str]:
        """The sentence of each described category, as the zero-shot models get it."""
        return merged_descriptions(self.categories(), self._written, self._definitions)

    def examples(self, kept: Mapping[str, Sequence[str]] | None = None) -> dict[str, list[str]]:
        """The example texts of each category, as the zero-shot models get them: the codebook's, and
        for the categories it gives none, those ``kept`` from an opened study."""
        merged = {**{str(name): [str(text) for text in ([texts] if isinstance(texts, str) else texts)]
                     for name, texts in (kept or {}).items()}, **self._examples}
        categories = self.categories() if self._categories else list(merged)
        return {name: merged[name] for name in categories if merged.get(name)}

    def set_descriptions(self, written: Mapping[str, str]) -> None:
        """Sentences written in the editor (an empty one leaves its category to its name)."""
        self._written = {name: " ".join(str(text).split()) for name, text in written.items()}
        self._show_descriptions()
        self.changed.emit()

    def problem(self) -> str:
        """Why the ticked cards cannot run as set ("" when they can)."""
        if NLI_PAIR not in self.checked():
            return ""
        if not self.nli_model():
            return f"Type the name of the NLI model (e.g. {NLI_EXAMPLE}) or choose its folder."
        template = self.template_edit.text().strip()
        rest = template.replace("{}", "", 1)
        if template and ("{}" not in template or "{" in rest or "}" in rest):
            return (f"The sentence the NLI model checks needs {{}} once, where the category goes, and no other "
                    f"curly brackets, e.g. “{DEFAULT_TEMPLATE}”.")
        return self._nli_absent()[0]

    # -- specs -----------------------------------------------------------------------------------------
    def model_specs(self) -> list[ModelSpec]:
        return [self.model_spec(pair) for pair in self.checked()]

    def model_spec(self, pair: Pair) -> ModelSpec:
        """The card's model as the study file writes it."""
        kept = self._kept.get(pair)
        options = dict(kept.representation_options) if kept is not None else {}
        grid = copy.deepcopy(kept.grid) if kept is not None else {}
        if pair[0] == ZERO_SHOT:
            options.pop("descriptions", None)
            descriptions = self.descriptions()
            if descriptions:
                options["descriptions"] = descriptions
            examples = self.examples(options.pop("examples", None))
            if examples:
                options["examples"] = examples
        if pair == NLI_PAIR:
            options["model"] = self.nli_model()
            options["template"] = self.template()
        return ModelSpec(representation=pair[0], classifier=pair[1], representation_options=options, grid=grid,
                         name=kept.name if kept is not None else "")

    def load(self, models: Sequence[ModelSpec]) -> list[str]:
        """Tick the study's few-shot models and take over their settings; returns what could not be
        shown, in words (a second model of the same kind, differing sentences)."""
        notes: list[str] = []
        self._kept = {}
        pairs: list[Pair] = []
        descriptions: dict[str, str] | None = None
        for model in models:
            pair = (model.representation, model.classifier)
            if pair in self._kept:
                notes.append(f"The study has more than one “{TITLES[pair]}”: only the first is shown.")
                continue
            self._kept[pair] = model
            pairs.append(pair)
            if pair[0] == ZERO_SHOT:
                found = {str(k): str(v) for k, v in (model.representation_options.get("descriptions") or {}).items()}
                if descriptions is None:
                    descriptions = found
                elif found != descriptions:
                    notes.append("The two zero-shot models describe the categories differently; this step "
                                 "keeps the first model's descriptions for both.")
        nli = self._kept.get(NLI_PAIR)
        for edit, value in ((self.model_edit, str(nli.representation_options.get("model") or "") if nli else ""),
                            (self.template_edit, str(nli.representation_options.get("template") or DEFAULT_TEMPLATE)
                             if nli else DEFAULT_TEMPLATE)):
            edit.blockSignals(True)
            edit.setText(value)
            edit.blockSignals(False)
        # a study's sentences replace what was written here; the codebook still fills the categories it left out
        self._written = dict(descriptions or {})
        self._show_descriptions()
        self.set_checked(pairs)
        return notes

    # -- the editor ------------------------------------------------------------------------------------
    def open_descriptions(self) -> CategoryDescriptionsDialog:
        """Open the editor (window-modal); OK keeps its sentences."""
        dialog = CategoryDescriptionsDialog(self.categories(), self.descriptions(), self._definitions,
                                            self.template(), self, with_examples=bool(self._examples))
        dialog.accepted.connect(lambda d=dialog: self.set_descriptions(d.descriptions()))
        dialog.finished.connect(dialog.deleteLater)
        self.dialog = dialog
        dialog.open()
        return dialog

    def choose_folder(self) -> str:
        path = QFileDialog.getExistingDirectory(self, "Choose the folder that holds the NLI model")
        if path:
            self.model_edit.setText(path)
        return path

    # -- showing ----------------------------------------------------------------------------------------
    def _show_descriptions(self) -> None:
        categories = self.categories()
        described = self.descriptions()
        if not categories:
            text = "Both zero-shot models use these descriptions; the categories appear once your data is checked."
        elif not described:
            text = (f"None of the {len(categories)} categories has a description yet: the zero-shot models "
                    "know them by their names only.")
        else:
            from_codebook = sum(1 for name, sentence in described.items() if self._definitions.get(name) == sentence)
            where = (" (from your codebook)" if from_codebook == len(described)
                     else f" ({from_codebook} from your codebook)" if from_codebook else "")
            rest = len(categories) - len(described)
            text = (f"{len(described)} of {len(categories)} categories described{where}"
                    + (f"; {rest} known by {'its name' if rest == 1 else 'their names'} only." if rest else "."))
        coded = coded_names([name for name in categories if name not in described])
        if coded:  # "1", "12": a code tells the model nothing
            text += f" {coded_names_note(coded)}"
        examples = len([name for name in self._examples if name in categories])
        if categories and examples:
            text += (f" The codebook's example texts of {examples} categor{'y are' if examples == 1 else 'ies are'} "
                     "read with the descriptions.")
        if categories:
            text += (" Used by both zero-shot models above and the language model with your codebook below."
                     if self._has_codebook_card else " Used by both zero-shot models above.")
        self.descriptions_label.setText(text)

    def _show_problem(self) -> None:
        problem = self.problem()
        if problem and NLI_PAIR in self.checked():
            problem = " ".join([problem, self._nli_absent()[1]]).strip()
        self.nli_problem.setText(problem)
        # a model to download: the download row below says so, with its button
        self.nli_problem.setVisible(bool(problem) and not self.nli_download.isVisibleTo(self))

    def _nli_absent(self) -> tuple[str, str]:
        """Why the NLI model cannot be found on this computer, and what to do ("" when it is there, or
        when only the run can tell), looked for where the run looks."""
        from guiapp.core.models.transformers.sources.resolve import is_local_path

        name = self.nli_model()
        try:
            if is_local_path(name):
                if Path(name).expanduser().is_dir():
                    return "", ""
                return f"There is no folder {name} on this computer.", "Choose the folder that holds the NLI model."
        except (OSError, ValueError):  # an odd name: the run says what is wrong with it
            return "", ""
        if not needs_download(name):
            return "", ""
        return (f"The NLI model {name} is not on this computer.",
                "Download it once with “Download now” below (this needs the internet), or choose the folder that "
                "holds it.")

    def _edited(self) -> None:
        if not self.nli_download.is_busy():
            self.nli_download.refresh()
        self._show_problem()
        self.changed.emit()

    def cancel_jobs(self) -> None:
        """Stop a download of the NLI model (the window is closing)."""
        self.nli_download.cancel()

    def _restyle(self, pair: Pair) -> None:
        ticked = self._boxes[pair].isChecked()
        show_ticked(self._cards[pair], ticked)
        self._estimates[pair].setStyleSheet(
            f"{theme.text_style(theme.ACCENT)} {theme.BOLD_STYLE}" if ticked else theme.MUTED_STYLE)
