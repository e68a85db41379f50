"""A trained SetFit model: the fine-tuned sentence model and its logistic-regression head.

:meth:`SetFitModel.predict_proba` reads texts into vectors with the sentence model and gives the
head's probabilities; :meth:`SetFitModel.decide` turns them into decisions; :meth:`SetFitModel.save`
writes the folder ``load_setfit`` opens again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.models.setfit import body
from guiapp.core.models.setfit.folder import write_folder
from guiapp.core.models.setfit.head import Head, MultiLabelHead
from guiapp.core.models.setfit.settings import SetFitSettings

DECISION = 0.5  # a category's threshold where a text can have several, unless the study chose one


@dataclass
class SetFitModel:
    net: Any  # the fine-tuned sentence model (a transformers model without a head)
    tokenizer: Any
    head: Head
    settings: SetFitSettings
    categories: list[str]
    device: str = "cpu"  # where it computes: "cuda" | "mps" | "cpu"
    bf16: bool = False  # the GPU computes in bfloat16
    source: str = ""  # the pretrained sentence model it was fine-tuned from, for the record
    thresholds: list[float] = field(default_factory=list)  # several categories per text: each one's threshold
    losses: list[float] = field(default_factory=list)  # per step of the fine-tuning
    n_pairs: int = 0
    n_truncated: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def multi_label(self) -> bool:
        """Whether a text can have several categories (an independent probability per category)."""
        return isinstance(self.head, MultiLabelHead)

    @property
    def n_categories(self) -> int:
        return int(self.head.n_categories)

    def embed(self, texts: Sequence[str], on_event: EventCallback = ignore_events,
              what: str = "Predicting") -> np.ndarray:
        """The fine-tuned vector of each text (rows in order), L2-normalised."""
        encoded = body.encode(self.tokenizer, self.net.config, texts, self.settings.max_length)
        return body.embed(self.net, self.tokenizer, encoded, torch.device(self.device), self.bf16, on_event, what)

    def predict_proba(self, texts: Sequence[str], on_event: EventCallback = ignore_events) -> np.ndarray:
        """(len(texts), number of categories): rows sum to 1, or — where a text can have several
        categories — each category's own probability."""
        return self.head.predict_proba(self.embed(list(texts), on_event))

    def decision_thresholds(self) -> np.ndarray:
        return np.asarray(self.thresholds or [DECISION] * self.n_categories, dtype=np.float64)

    def decide(self, probabilities: np.ndarray) -> np.ndarray:
        """The category index per text; or, where a text can have several, a 0/1 matrix of the
        categories whose probability reaches their threshold."""
        probabilities = np.asarray(probabilities, dtype=np.float64)
        if not self.multi_label:
            return probabilities.argmax(axis=1)
        return (probabilities >= self.decision_thresholds()).astype(np.uint8)

    def save(self, folder: str | Path, categories: Sequence[str] | None = None,
             thresholds: Sequence[float] | None = None) -> None:
        """Write the model to ``folder`` (atomically): the sentence model as safetensors with its
        tokenizer, and ``setfit.json``. ``categories`` names them (else the model's own names);
        ``thresholds`` (several categories per text) replace the model's own."""
        names = [str(name) for name in (categories if categories is not None else self.categories)]
        if len(names) != self.n_categories or len(set(names)) != len(names):
            raise ValueError(f"{len(names)} category names (each once) are needed for {self.n_categories} categories")
        if thresholds is not None and not self.multi_label:
            raise ValueError("decision thresholds belong to a model whose texts can have several categories")
        chosen = [float(t) for t in (thresholds if thresholds is not None else self.thresholds)]
        if self.multi_label and chosen and (len(chosen) != self.n_categories
                                            or not all(0.0 <= t <= 1.0 for t in chosen)):
            raise ValueError(f"one decision threshold between 0 and 1 is needed for each of {self.n_categories} categories")
        info = {
            "categories": names,
            "multi_label": self.multi_label,
            "thresholds": (chosen or [DECISION] * self.n_categories) if self.multi_label else [],
            "settings": asdict(self.settings),
            "sentence_model": self.source,
            "pooling": "mean of the last hidden states, L2-normalised",
            "head": self.head.to_json(),
            "training": {"losses": [float(x) for x in self.losses], "pairs": self.n_pairs,
                         "truncated_texts": self.n_truncated, "seconds": float(self.seconds),
                         "notes": [str(note) for note in self.notes]},
        }
        write_folder(self.net, self.tokenizer, folder, info)


__all__ = ["DECISION", "SetFitModel"]
