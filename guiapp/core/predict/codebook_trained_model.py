"""A language model with your codebook opened from its folder (``codebook_model.json``), answering for
new texts like any trained model: the most likely category, or — where a text can have several
categories — every category whose P(yes) reaches its threshold (the study's, or one half).

The folder holds the codebook, the instruction, the drawn examples and where the language model runs,
not the language model itself (:mod:`guiapp.core.models.llm.model_file`). So opening checks, in
words, that the language model can still be reached without downloading anything: its folder is
where it was, or the Hugging Face model is on this computer, or the server's address is this
computer (or the researcher agreed that the texts leave it). Whether the weights are the ones the
model was saved with is checked when it first answers (their SHA-256 needs the files read whole);
a server that is down says so when it is asked.

A language model reads the whole prompt (the codebook, its examples and the text) for every text,
so it answers in small chunks (:attr:`CodebookTrainedModel.chunk_size`): the progress line moves and
Cancel stops within seconds. A new text that is one of the examples shown to the model is answered
too (the check that keeps examples apart from the texts a study scores does not apply to new texts),
and counted in :attr:`CodebookTrainedModel.among_examples`.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.predict.trained_model import TrainedModel

CHUNK_SIZE = 8  # texts per answer call (a batch of prompts): progress and Cancel between chunks
_WORDS = re.compile(r"\w+|[^\w\s]")


class CodebookTrainedModel(TrainedModel):
    """A :class:`~guiapp.core.models.llm.codebook_model.CodebookModel` as a trained model."""

    family = "codebook_llm"
    chunk_size = CHUNK_SIZE

    def __init__(self, name: str, codebook: Any) -> None:
        self.name, self.codebook = name, codebook
        self.categories = list(codebook.categories)
        self.multi_label = bool(codebook.multi_label)
        self.among_examples = 0  # new texts that were among the examples shown to the model

    @property
    def title(self) -> str:
        """"Language model with your codebook (Qwen2.5-0.5B-Instruct, k = 2)"."""
        return str(self.codebook.title)

    @property
    def runs_on_server(self) -> bool:
        from guiapp.core.models.llm.codebook_model import OnServer

        return isinstance(self.codebook.runs, OnServer)

    @property
    def questions_per_text(self) -> int:
        """Prompt passes per text: one, or one yes/no question per category."""
        return len(self.categories) if self.multi_label else 1

    def prompt_around_text(self, category: str | None = None) -> str:
        """The prompt without a text (instruction, codebook, examples): what every answer reads
        besides the text itself; where a text can have several categories, the question of
        ``category`` (default: the first)."""
        prompt = self.codebook.prompt
        return str(prompt.prompt("", category or prompt.questions()[0]))

    @functools.cached_property
    def prompt_words(self) -> float:
        """The words and punctuation marks of :meth:`prompt_around_text` (a measure of its length,
        as the time estimates count a text's words), on average over the questions asked."""
        questions = self.codebook.prompt.questions()
        return sum(len(_WORDS.findall(self.prompt_around_text(question))) for question in questions) / len(questions)

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        probabilities = self._probabilities(list(texts))
        if self.multi_label:
            return (probabilities >= self.thresholds).astype(np.uint8), probabilities
        return probabilities.argmax(axis=1), probabilities

    def _probabilities(self, texts: list[str]) -> np.ndarray:
        from guiapp.core.models.llm.prompt_examples import same_text_key

        examples = {same_text_key(example.text) for example in self.codebook.examples}
        self.among_examples += sum(same_text_key(text) in examples for text in texts)
        return np.asarray(self.codebook.answer(texts, allow_examples=True), dtype=np.float64)

    @property
    def thresholds(self) -> np.ndarray:
        """The thresholds the study chose, else one half for every category."""
        saved = self.codebook.thresholds
        return np.asarray(saved, dtype=np.float64) if saved else super().thresholds

    def device_note(self) -> str:
        """Where the language model computes, in words, once it has answered: "the processor",
        "the graphics card (…)", or "a language-model server"."""
        if self.runs_on_server:
            return "a language-model server"
        device = self.codebook.device
        if device is None:
            return ""
        kind, name = device
        return "the processor" if kind == "cpu" else f"the graphics card ({name})" if name else "the graphics card"


def open_codebook_model(folder: str | Path, name: str = "") -> CodebookTrainedModel:
    """The language model with a codebook saved in ``folder``, its language model found again
    without downloading; a :class:`UserError` in words when it cannot be used."""
    from guiapp.core.models.llm.codebook_model import InTextLab, load_codebook_model

    folder = Path(folder)
    name = name or folder.name
    try:
        codebook = load_codebook_model(folder)
    except UserError as error:
        raise UserError(f"The model “{name}” cannot be used: {_lower(error.message)}", error.hint,
                        details=error.details) from error
    if isinstance(codebook.runs, InTextLab):
        _check_language_model(name, codebook.runs.model)
    return CodebookTrainedModel(name, codebook)


def _check_language_model(name: str, source: str) -> None:
    """The language model's folder or downloaded Hugging Face files are on this computer."""
    from guiapp.core.models.transformers.sources.resolve import is_local_path, needs_download, resolve_model

    shown = source.strip()
    if is_local_path(shown) and not Path(shown).expanduser().is_dir():
        raise UserError(
            f"The model “{name}” codes with the language model in {Path(shown).expanduser()}, but that folder is "
            "no longer there.",
            "Put the language model's folder back where it was (TextLab keeps only the codebook and the examples, "
            "not the language model), or run the study again with the model where it is now.")
    if needs_download(shown):
        raise UserError(
            f"The model “{name}” codes with the Hugging Face model {shown}, which is not on this computer.",
            "Download it first (on the Models step, or with `textlab download-model "
            f"{shown}`), then try again; TextLab never downloads a model without asking.")
    try:
        resolve_model(shown, allow_download=False)
    except UserError as error:
        raise UserError(f"The model “{name}” cannot use its language model: {_lower(error.message)}", error.hint,
                        details=error.details) from error


def _lower(message: str) -> str:
    return message[:1].lower() + message[1:] if message[1:2].islower() else message


__all__ = ["CodebookTrainedModel", "open_codebook_model"]
