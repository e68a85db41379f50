"""Zero-shot by natural language inference: an NLI model is asked, for every text and category,
whether the text entails "This text is about <category>." (see ``nli_labels.py`` for how its
answers become probabilities, ``nli_scoring.py`` for the batches).

The hypothesis names the category by its one-sentence description when there is one, else by its
name. Example texts from the codebook are kept with the model but not asked about: an NLI model
weighs one hypothesis at a time. Any sequence-classification NLI model serves — a Hugging Face id
already on this computer (``facebook/bart-large-mnli``, ``roberta-large-mnli`` …; nothing is
downloaded here) or a model folder — as long as its configuration names an "entailment" answer.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.models.zero_shot.base import ZeroShotModel, text_list
from guiapp.core.models.zero_shot.descriptions import DEFAULT_TEMPLATE, phrase
from guiapp.core.models.zero_shot.nli_labels import nli_label_ids, nli_pairs, nli_probabilities
from guiapp.core.models.transformers.training.truncation import token_limit
from guiapp.core.models.zero_shot.nli_scoring import (
    load_nli_model,
    nli_config,
    pair_logits,
    token_lengths,
)

DEFAULT_BATCH = 16  # text–category pairs per batch
NLI_LENGTH = 512  # tokens of a text and hypothesis together (the model's own limit if smaller)


class ZeroShotNLI(ZeroShotModel):
    """An NLI model asked whether each text is about each category (see the module docstring)."""

    kind = "nli"
    family_title = "NLI"

    def __init__(
        self,
        categories: Sequence[str],
        descriptions: Mapping[str, str] | None = None,
        model: str | os.PathLike[str] = "",
        template: str = DEFAULT_TEMPLATE,
        multi_label: bool = False,
        batch_size: int = DEFAULT_BATCH,
        *,
        examples: Mapping[str, Sequence[str]] | None = None,
        max_length: int = NLI_LENGTH,
        saved_copy: str | os.PathLike[str] | None = None,
    ) -> None:
        if not isinstance(model, str | os.PathLike) or not str(model).strip():
            raise UserError("The NLI zero-shot model needs an NLI model to ask.",
                            "Choose an NLI model such as facebook/bart-large-mnli or roberta-large-mnli, "
                            "or a folder that holds one.")
        super().__init__(categories, descriptions, model, template, multi_label, examples=examples,
                         batch_size=batch_size, max_length=max_length, saved_copy=saved_copy)
        self._labels: tuple[int, int | None] | None = None

    def hypotheses(self) -> list[str]:
        """One hypothesis per category: the template with its description (or its name)."""
        return [phrase(self.template, self.description_of(name)) for name in self.categories]

    def pairs(self, texts: Sequence[str]) -> list[tuple[str, str]]:
        """Every (premise, hypothesis) pair asked about: the pair of text i and category k is at
        ``i * len(categories) + k``."""
        return nli_pairs(text_list(texts), self.hypotheses())

    def label_ids(self) -> tuple[int, int | None]:
        """Which of the model's answers are entailment and contradiction (checked before the weights
        are loaded); a :class:`UserError` when the model has none to use."""
        if self._labels is None:
            config = nli_config(self.model_folder())
            self._labels = nli_label_ids(getattr(config, "id2label", {}) or {}, self.model_name, self.multi_label)
        return self._labels

    def logits(self, texts: Sequence[str],
               on_event: EventCallback = ignore_events) -> tuple[np.ndarray, np.ndarray | None]:
        """The entailment logits (texts × categories) and, when the model has that answer, the
        contradiction logits (else None)."""
        entail, contradiction = self.label_ids()
        tokenizer, model = load_nli_model(self.model_folder())
        hypotheses = self.hypotheses()
        limit = self._limit(tokenizer, model.config, hypotheses)
        columns = [entail] if contradiction is None else [entail, contradiction]
        values = pair_logits(tokenizer, model, text_list(texts), hypotheses, columns,
                             batch_size=self.batch_size, limit=limit, on_event=on_event)
        return values[:, :, 0], (None if contradiction is None else values[:, :, 1])

    def predict_proba(self, texts: Sequence[str], on_event: EventCallback = ignore_events) -> np.ndarray:
        """Probabilities (texts × categories): a softmax over the categories' entailment for one
        category per text; each category's P(entailment vs contradiction) for several."""
        entailment, contradiction = self.logits(texts, on_event)
        return nli_probabilities(entailment, contradiction, self.multi_label)

    def tokenizer(self) -> Any:
        return load_nli_model(self.model_folder())[0]

    def max_tokens(self) -> int:
        """The most tokens of a text the model reads: the pair's limit less the longest hypothesis."""
        tokenizer, model = load_nli_model(self.model_folder())
        hypotheses = self.hypotheses()
        longest = int(token_lengths(tokenizer, hypotheses, 10**6).max())
        special = tokenizer.num_special_tokens_to_add(pair=True)
        return self._limit(tokenizer, model.config, hypotheses) - longest - special

    def _limit(self, tokenizer: Any, config: Any, hypotheses: list[str]) -> int:
        """The pair's token limit; a :class:`UserError` when a hypothesis leaves no room for the text."""
        limit = token_limit(tokenizer, config, self.max_length)
        lengths = token_lengths(tokenizer, hypotheses, 10**6)
        room = limit - tokenizer.num_special_tokens_to_add(pair=True) - int(lengths.max())
        if room < 8:
            longest = self.categories[int(lengths.argmax())]
            raise UserError(f"The description of “{longest}” is too long for the model: with it, "
                            f"fewer than 8 of the model's {limit} tokens are left for the text.",
                            "Describe the category in one short sentence.")
        return limit
