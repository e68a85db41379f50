"""The prompt settings of the language model with your codebook, and the "Prompt settings…" dialog.

:class:`PromptSettings` is what the study file writes as the model's grid and options: the numbers
of coded training texts shown per category to try (``k``; 0 = zero-shot), TextLab's instruction
wordings to try or the researcher's own instruction, and how many wordings answer the test texts for
the prompt-sensitivity report. :class:`PromptSettingsDialog` edits them with clicks (and the own
instruction's text); :meth:`PromptSettings.summary` says them in one sentence for the card.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.errors import UserError
from guiapp.core.models.llm.codebook_options import CODEBOOK_GRID, DEFAULT_SENSITIVITY, GRID_HELP, OPTION_HELP
from guiapp.core.models.llm.codebook_prompt import INSTRUCTIONS, check_instruction
from guiapp.core.models.llm.prompt_examples import MAX_PER_CATEGORY
from guiapp.ui import theme
from guiapp.ui.common.muted_note import muted_note

K_CHOICES = (0, 1, 2, 4, 8)  # the numbers of examples per category offered with a click
WORDING_NAMES = ("TextLab's instruction", "Its second wording", "Its third wording")
INTRO = (
    "The language model reads your instruction, then the codebook (each category's name, definition and example "
    "texts), then, if you like, a few of your coded training texts with their categories, and finally the text to "
    "code. Every combination you tick below is tested on the same folds, like the settings of any other model, and "
    "the best one is used on the test texts."
)
K_NOTE = (
    "Coded training texts shown per category with their answers. They are drawn with the study's seed, only from "
    "the texts the model is not scored on. 0 shows none (zero-shot). Each extra value is one more round over the "
    "folds; larger numbers make every prompt longer and slower."
)
SENSITIVITY_NOTE = (
    "After the test, the test texts are answered again under other wordings of the instruction, to show how much "
    "the answers depend on the wording (their agreement and the spread of their scores). 1: no such report. Each "
    "wording is one more pass over the test texts."
)


@dataclass
class PromptSettings:
    """The prompt's grid and options as the study writes them."""

    k: list[int] = field(default_factory=lambda: list(CODEBOOK_GRID["k"]))
    wordings: list[int] = field(default_factory=lambda: list(CODEBOOK_GRID["instruction"]))  # TextLab's, by number
    own_instruction: str | None = None  # the researcher's own (replaces TextLab's wordings)
    sensitivity: int = DEFAULT_SENSITIVITY

    def grid(self) -> dict[str, list[int]]:
        """The grid as the study file writes it (no instruction numbers with an own instruction)."""
        if self.own_instruction is not None:
            return {"k": sorted(self.k)}
        return {"k": sorted(self.k), "instruction": sorted(self.wordings)}

    def variants(self) -> list[dict[str, int]]:
        """Every prompt variant tried, fewest examples first (instruction -1: the researcher's own)."""
        wordings = [-1] if self.own_instruction is not None else sorted(self.wordings)
        return [{"k": k, "instruction": wording} for k in sorted(self.k) for wording in wordings]

    def problem(self) -> str:
        if not self.k:
            return "Tick at least one number of examples per category in the prompt settings (0: none)."
        if self.own_instruction is None and not self.wordings:
            return "Tick at least one of TextLab's instructions in the prompt settings, or write your own."
        if self.own_instruction is not None:
            try:
                check_instruction(self.own_instruction)
            except UserError as error:
                return f"{error.message} {error.hint or ''}".strip()
        return ""

    def summary(self) -> str:
        """"Tries 0 and 2 examples per category with TextLab's instruction (2 prompts); the test texts are
        also answered under 3 wordings."""
        ks = sorted(self.k)
        if not ks:
            shown_k = "no number of examples yet"
        else:
            numbers = " and ".join([", ".join(map(str, ks[:-1])), str(ks[-1])]) if len(ks) > 1 else str(ks[0])
            shown_k = f"{numbers} example{'s' if ks != [1] else ''} per category" + (" (0: zero-shot)" if 0 in ks else "")
        if self.own_instruction is not None:
            wording = "your own instruction"
        elif not self.wordings:
            wording = "no instruction yet"
        elif self.wordings == [0]:
            wording = "TextLab's instruction"
        else:
            wording = f"{len(self.wordings)} wordings of TextLab's instruction"
        count = len(self.variants())
        text = f"Tries {shown_k} with {wording} ({count} prompt{'s' if count != 1 else ''} to compare)"
        if self.sensitivity > 1:
            text += f"; the test texts are also answered under {self.sensitivity} wordings to show how much the " \
                    "answers depend on the wording."
        else:
            text += "; no report on other wordings."
        return text


class PromptSettingsDialog(QDialog):
    """Edit :class:`PromptSettings`; OK keeps :meth:`settings` (read on ``accepted``)."""

    def __init__(self, settings: PromptSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codebookPromptSettings")
        self.setWindowTitle("Prompt settings: language model with your codebook")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.resize(780, 760)
        title = QLabel("How the language model is asked", objectName="promptSettingsTitle")
        title.setStyleSheet(theme.heading_style(16))
        intro = QLabel(INTRO, wordWrap=True)

        k_box = QGroupBox("Examples per category to try")
        k_box.setToolTip(GRID_HELP["k"])
        k_row = QHBoxLayout()
        self.k_boxes: dict[int, QCheckBox] = {}
        for k in sorted({*K_CHOICES, *settings.k}):
            if 0 <= k <= MAX_PER_CATEGORY:
                box = QCheckBox("0 (zero-shot)" if k == 0 else str(k), objectName=f"codebookK{k}")
                box.setChecked(k in settings.k)
                box.toggled.connect(self._show_problem)
                self.k_boxes[k] = box
                k_row.addWidget(box)
        k_row.addStretch(1)
        k_column = QVBoxLayout(k_box)
        k_column.addLayout(k_row)
        k_column.addWidget(muted_note(K_NOTE))

        wording_box = QGroupBox("The instruction")
        wording_box.setToolTip(GRID_HELP["instruction"])
        self.textlab_radio = QRadioButton("TextLab's instruction; try these wordings:", objectName="codebookTextLabWording")
        self.own_radio = QRadioButton("My own instruction:", objectName="codebookOwnWording")
        group = QButtonGroup(self)
        group.addButton(self.textlab_radio)
        group.addButton(self.own_radio)
        self.wording_boxes: list[QCheckBox] = []
        wording_grid = QGridLayout()
        wording_grid.setContentsMargins(24, 0, 0, 0)
        for number, text in enumerate(INSTRUCTIONS):
            box = QCheckBox(WORDING_NAMES[number] if number < len(WORDING_NAMES) else f"Wording {number + 1}",
                            objectName=f"codebookWording{number}")
            box.setChecked(number in settings.wordings)
            box.toggled.connect(self._show_problem)
            words = muted_note(f"“{text}”")
            wording_grid.addWidget(box, number, 0, Qt.AlignmentFlag.AlignTop)
            wording_grid.addWidget(words, number, 1)
            self.wording_boxes.append(box)
        wording_grid.setColumnStretch(1, 1)
        self.own_edit = QPlainTextEdit(objectName="codebookOwnInstruction")
        self.own_edit.setToolTip(OPTION_HELP["instruction"])
        self.own_edit.setPlainText(settings.own_instruction if settings.own_instruction is not None else INSTRUCTIONS[0])
        self.own_edit.setFixedHeight(90)
        self.own_edit.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.own_edit.textChanged.connect(self._show_problem)
        own_note = muted_note("Say what the model should do in the language of your texts. The codebook and how to "
                              "answer (the category's name only) are added after it by TextLab.")
        (self.own_radio if settings.own_instruction is not None else self.textlab_radio).setChecked(True)
        self.textlab_radio.toggled.connect(self._show_problem)
        wording_column = QVBoxLayout(wording_box)
        wording_column.addWidget(self.textlab_radio)
        wording_column.addLayout(wording_grid)
        wording_column.addWidget(self.own_radio)
        wording_column.addWidget(self.own_edit)
        wording_column.addWidget(own_note)

        sensitivity_box = QGroupBox("Does the wording matter?")
        sensitivity_box.setToolTip(OPTION_HELP["sensitivity"])
        self.sensitivity_spin = QSpinBox(objectName="codebookSensitivity", minimum=1, maximum=len(INSTRUCTIONS))
        self.sensitivity_spin.setValue(max(1, min(settings.sensitivity, len(INSTRUCTIONS))))
        self.sensitivity_spin.setSuffix(" wordings")
        sensitivity_row = QHBoxLayout()
        sensitivity_row.addWidget(QLabel("Answer the test texts under"))
        sensitivity_row.addWidget(self.sensitivity_spin)
        sensitivity_row.addStretch(1)
        sensitivity_column = QVBoxLayout(sensitivity_box)
        sensitivity_column.addLayout(sensitivity_row)
        sensitivity_column.addWidget(muted_note(SENSITIVITY_NOTE))

        self.problem_label = QLabel("", objectName="promptSettingsProblem", wordWrap=True)
        self.problem_label.setStyleSheet(theme.text_style(theme.REASON))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(title)
        column.addWidget(intro)
        column.addWidget(k_box)
        column.addWidget(wording_box)
        column.addWidget(sensitivity_box)
        column.addWidget(self.problem_label)
        column.addStretch(1)
        column.addWidget(self.buttons)
        self._show_problem()

    def settings(self) -> PromptSettings:
        own = self.own_edit.toPlainText().strip() if self.own_radio.isChecked() else None
        return PromptSettings(
            k=[k for k, box in self.k_boxes.items() if box.isChecked()],
            wordings=[number for number, box in enumerate(self.wording_boxes) if box.isChecked()],
            own_instruction=own,
            sensitivity=self.sensitivity_spin.value(),
        )

    def _show_problem(self) -> None:
        own = self.own_radio.isChecked()
        for box in self.wording_boxes:
            box.setEnabled(not own)
        self.own_edit.setEnabled(own)
        problem = self.settings().problem()
        self.problem_label.setText(problem)
        self.problem_label.setVisible(bool(problem))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problem)
