"""What the two zero-shot models share: the categories and how they are described, the language
model they ask, and saving (see ``record_file.py``)."""

from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.models.zero_shot.descriptions import (
    DEFAULT_TEMPLATE,
    check_categories,
    check_descriptions,
    check_examples,
    check_template,
)
from guiapp.core.models.zero_shot.model_source import ModelChoice, locate, model_choice, put_model_files
from guiapp.core.models.zero_shot.record_file import write_record


class ZeroShotModel(ABC):
    """A model that needs no coded texts: it answers from the categories' names and descriptions."""

    # where a text can have several categories: each category's decision threshold as the study chose it,
    # read back from a saved model (None: one half each)
    thresholds: list[float] | None = None

    kind: str  # "similarity" | "nli"
    family_title: str  # how the model is shown, before the language model's name

    def __init__(
        self,
        categories: Sequence[str],
        descriptions: Mapping[str, str] | None,
        model: str | os.PathLike[str],
        template: str = DEFAULT_TEMPLATE,
        multi_label: bool = False,
        *,
        examples: Mapping[str, Sequence[str]] | None = None,
        batch_size: int = 32,
        max_length: int = 512,
        saved_copy: str | os.PathLike[str] | None = None,
    ) -> None:
        if not isinstance(multi_label, bool | np.bool_):
            raise UserError(f"Whether a text can have several categories must be true or false, not {multi_label!r}.")
        self.multi_label = bool(multi_label)
        self.categories = check_categories(categories, self.multi_label)
        self.descriptions = check_descriptions(descriptions, self.categories)
        self.examples = check_examples(examples, self.categories)
        self.template = check_template(template)
        self.choice: ModelChoice = model_choice(model, f"the zero-shot model ({self.family_title})")
        self.batch_size = whole_number("Batch size", batch_size, 1, 4096)
        self.max_length = whole_number("Maximum text length (tokens)", max_length, 8, 8192)
        # the model's own files inside a saved model's folder (a model folder of the researcher's own)
        self.saved_copy = Path(saved_copy) if saved_copy is not None else None
        self._folder: Path | None = None

    @property
    def model(self) -> str:
        """The language model as it was chosen: a name, or a folder."""
        return self.choice.name

    @property
    def model_name(self) -> str:
        """The language model's name in plain words."""
        return self.choice.shown

    @property
    def title(self) -> str:
        """E.g. "Zero-shot · NLI (bart-large-mnli)"."""
        return f"Zero-shot · {self.family_title} ({self.model_name})"

    def model_folder(self, on_event: EventCallback = ignore_events) -> Path:
        """The checked folder that holds the language model's files (checked once)."""
        if self._folder is None:
            self._folder = locate(self.choice, on_event, saved_copy=self.saved_copy)
        return self._folder

    def description_of(self, category: str) -> str:
        """The category's definition, else its name."""
        return self.descriptions.get(category, category)

    def save(self, folder: str | os.PathLike[str], thresholds: Sequence[float] | None = None) -> None:
        """Save to ``folder``: ``zero_shot.json`` (written last, atomically) and, for a model folder of
        the researcher's own, that model's files under ``model/``. ``thresholds``: where a text can have
        several categories, each category's decision threshold as the study chose it (0.5 when None)."""
        folder = Path(folder)
        if self.choice.source == "folder":
            put_model_files(self.model_folder(), folder)
        record = self.record()
        if thresholds is not None:
            record["thresholds"] = [float(value) for value in thresholds]
        write_record(folder, record)

    def record(self) -> dict[str, Any]:
        """Everything that makes this model, as plain data (``zero_shot.json``)."""
        return {
            "kind": self.kind,
            "categories": list(self.categories),
            "descriptions": dict(self.descriptions),
            "examples": {name: list(texts) for name, texts in self.examples.items()},
            "template": self.template,
            "model": self.choice.recorded,
            "model_source": self.choice.source,
            "multi_label": self.multi_label,
            "batch_size": self.batch_size,
            "max_length": self.max_length,
            **self._own_record(),
        }

    def _own_record(self) -> dict[str, Any]:
        return {"temperature": None, "centres": None}

    @abstractmethod
    def predict_proba(self, texts: Sequence[str], on_event: EventCallback = ignore_events) -> Any:
        """Probabilities (texts × categories)."""

    @abstractmethod
    def tokenizer(self) -> Any:
        """The tokenizer whose limit cuts long texts."""

    @abstractmethod
    def max_tokens(self) -> int:
        """The most tokens of a text the model reads."""


def whole_number(label: str, value: object, low: int, high: int) -> int:
    """``value`` when it is a whole number from ``low`` to ``high``; else a :class:`UserError`."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise UserError(f"“{label}” must be a whole number from {low} to {high}, not {value!r}.")
    return value


def text_list(texts: Sequence[object]) -> list[str]:
    """Texts as a list of str (a list, an array, a pandas Series); missing values become empty texts."""
    if isinstance(texts, str):
        raise TypeError("expected a sequence of texts, got a single str")
    values = texts.tolist() if hasattr(texts, "tolist") else list(texts)
    return [value if isinstance(value, str) else "" if _missing(value) else str(value) for value in values]


def _missing(value: object) -> bool:
    """None, NaN, pandas' NA or NaT."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and math.isnan(value)
