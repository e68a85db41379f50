"""Zero-shot by similarity: a text belongs to the category whose description it is most alike.

Each category becomes one vector: its name phrased with the template ("This text is about
economy."), its one-sentence definition when there is one, and the codebook's example texts when
there are some — each embedded by the sentence model (the bundled all-MiniLM-L6-v2 by default), the
L2-normalised vectors averaged and the mean normalised again. Texts are embedded as the sentence
embedding family and SetFit embed them (mean of the last hidden states over the tokens,
L2-normalised: ``models/setfit/body.py``), in batches of similar length, on the GPU when there is
one. A text is scored by the cosine similarity of its embedding to each category vector:

- one category per text: probabilities = softmax(cosine / temperature) over the categories;
- several categories per text: each category on its own, sigmoid((cosine − centre) / temperature).

Temperature (default 0.05): cosines of a sentence model lie in a narrow band (with MiniLM, texts
differ from category to category by a few hundredths), so dividing by 0.05 turns a lead of 0.05 in
cosine into odds of e ≈ 2.7 : 1 — confident where the lead is clear, undecided where it is not.
It changes how sharp the probabilities are, never which category is most likely.

The texts' vectors may come from elsewhere: ``embed_texts`` (texts, on_event → one unit vector per
text) is given the sentence-embedding representation of the same model — in a study reading the
app's embedding cache (``core/experiment/families/study_text_vectors.py``), for a saved model answering new
texts without it (``core/predict/zero_shot_model.py``). Without it, texts are embedded here, as
described above.

Centre (several categories per text): the category's mean cosine over the texts it is calibrated
on (:meth:`ZeroShotSimilarity.calibrate`: the study's texts, uncoded — their codes are never
read). Cosines have no natural zero: a text unrelated to a category still scores 0.1–0.2 with it,
and some categories sit closer to every text than others; the mean says what "an ordinary text"
scores with this category, so P > 0.5 means "more about this category than the texts at hand
usually are". It is fixed once calibrated and saved with the model, so a text's probabilities do
not depend on which other texts are scored with it. Without calibration, the first texts scored
calibrate it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, ignore_events
from guiapp.core.models.transformers.sources.registry import BUNDLED_KEY
from guiapp.core.models.zero_shot.base import ZeroShotModel, text_list
from guiapp.core.models.zero_shot.descriptions import DEFAULT_TEMPLATE, phrase

DEFAULT_TEMPERATURE = 0.05
SENTENCE_LENGTH = 256  # tokens a sentence model reads of a text (all-MiniLM-L6-v2 was trained on 256)
_SENTENCE_MODELS: dict[str, tuple[Any, Any, Any]] = {}  # folder → (network, tokenizer, device), once per process
_SENTENCE_LOCK = threading.Lock()

#: ``embed_texts(texts, on_event)``: one unit vector per text (texts × dimensions), in their order
TextVectors = Callable[[list[str], EventCallback], np.ndarray]


class ZeroShotSimilarity(ZeroShotModel):
    """Cosine similarity of each text to each category's description (see the module docstring)."""

    kind = "similarity"
    family_title = "similarity"

    def __init__(
        self,
        categories: Sequence[str],
        descriptions: Mapping[str, str] | None = None,
        model: str | os.PathLike[str] | None = BUNDLED_KEY,
        template: str = DEFAULT_TEMPLATE,
        temperature: float = DEFAULT_TEMPERATURE,
        multi_label: bool = False,
        *,
        examples: Mapping[str, Sequence[str]] | None = None,
        centres: Sequence[float] | None = None,
        batch_size: int = 32,
        max_length: int = SENTENCE_LENGTH,
        saved_copy: str | os.PathLike[str] | None = None,
        embed_texts: TextVectors | None = None,
    ) -> None:
        super().__init__(categories, descriptions, BUNDLED_KEY if model is None else model, template, multi_label,
                         examples=examples, batch_size=batch_size, max_length=max_length, saved_copy=saved_copy)
        self.temperature = check_temperature(temperature)
        self.centres = self._checked_centres(centres)
        # where the texts' vectors come from (see the module docstring); never saved with the model
        self.embed_texts = embed_texts
        self._vectors: np.ndarray | None = None

    # ------------------------------------------------------------------ describing the categories
    def category_texts(self) -> list[list[str]]:
        """For each category, the texts whose embeddings make its vector: the name phrased with the
        template, then the definition (if any), then the example texts (if any)."""
        return [[phrase(self.template, name),
                 *([self.descriptions[name]] if name in self.descriptions else []),
                 *self.examples.get(name, [])]
                for name in self.categories]

    def category_vectors(self, on_event: EventCallback = ignore_events) -> np.ndarray:
        """One unit vector per category (categories × dimensions), embedded once per model."""
        if self._vectors is None:
            groups = self.category_texts()
            flat = [text for group in groups for text in group]
            on_event(Log(f"Embedding the descriptions of {len(self.categories)} categories ({len(flat)} sentences)."))
            matrix = self._embed(flat, ignore_events, "Embedding the descriptions")
            vectors, start = [], 0
            for group in groups:
                vectors.append(_unit(_unit(matrix[start:start + len(group)]).mean(axis=0)))
                start += len(group)
            self._vectors = np.vstack(vectors)
        return self._vectors

    # ------------------------------------------------------------------ scoring texts
    def cosines(self, texts: Sequence[str], on_event: EventCallback = ignore_events) -> np.ndarray:
        """Cosine similarity of each text to each category (texts × categories)."""
        texts = text_list(texts)
        vectors = self.category_vectors(on_event)
        if self.embed_texts is None:
            embedded = self._embed(texts, on_event, "Embedding texts")
        else:
            embedded = np.asarray(self.embed_texts(texts, on_event), dtype=np.float64)
            if embedded.shape != (len(texts), vectors.shape[1]):
                raise ValueError(f"{embedded.shape} text vectors for {len(texts)} texts of "
                                 f"{vectors.shape[1]} dimensions")
        return np.clip(_unit(embedded) @ vectors.T, -1.0, 1.0)

    def calibrate(self, texts: Sequence[str], on_event: EventCallback = ignore_events) -> np.ndarray:
        """Fix each category's centre (several categories per text) at its mean cosine over ``texts``
        — uncoded texts: their codes are never needed. Returns the centres."""
        cosines = self.cosines(texts, on_event)
        if len(cosines) == 0:
            raise UserError("A zero-shot model cannot be calibrated on no texts.",
                            "Give it the study's texts.")
        self.centres = cosines.mean(axis=0)
        return self.centres

    def predict_proba(self, texts: Sequence[str], on_event: EventCallback = ignore_events) -> np.ndarray:
        """Probabilities (texts × categories): rows sum to 1 for one category per text; with several
        categories per text, each category's own probability (see the module docstring)."""
        cosines = self.cosines(texts, on_event)
        if self.multi_label and self.centres is None and len(cosines):
            self.centres = cosines.mean(axis=0)
            on_event(Log(f"Each category's centre was set from the {len(cosines):,} texts scored first "
                         "(their mean similarity to it)."))
        return self.probabilities(cosines)

    def probabilities(self, cosines: np.ndarray) -> np.ndarray:
        """The probabilities for these cosines (texts × categories)."""
        cosines = np.asarray(cosines, dtype=np.float64)
        if self.multi_label:
            if len(cosines) == 0:
                return cosines.copy()
            if self.centres is None:
                raise ValueError("the centres are set by calibrate() or the first texts scored")
            return expit((cosines - self.centres) / self.temperature)
        if len(cosines) == 0:
            return cosines.copy()
        scaled = cosines / self.temperature
        weights = np.exp(scaled - scaled.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True)

    # ------------------------------------------------------------------ the language model
    def tokenizer(self) -> Any:
        return sentence_model(self.model_folder())[1]

    def max_tokens(self) -> int:
        from guiapp.core.models.transformers.training.truncation import token_limit

        network, tokenizer, _ = sentence_model(self.model_folder())
        return token_limit(tokenizer, network.config, self.max_length)

    def _embed(self, texts: list[str], on_event: EventCallback, what: str) -> np.ndarray:
        """Unit vectors of ``texts`` (texts × dimensions), in their order."""
        from guiapp.core.models.setfit.body import embed, encode

        network, tokenizer, device = sentence_model(self.model_folder())
        encoded = encode(tokenizer, network.config, texts, self.max_length)
        return embed(network, tokenizer, encoded, device, _bf16(device), on_event, what,
                     batch_size=self.batch_size).astype(np.float64)

    def _own_record(self) -> dict[str, Any]:
        centres = None if self.centres is None else [float(c) for c in self.centres]
        return {"temperature": self.temperature, "centres": centres}

    def _checked_centres(self, centres: Sequence[float] | None) -> np.ndarray | None:
        if centres is None:
            return None
        values = np.asarray(centres, dtype=np.float64)
        if values.shape != (len(self.categories),) or not np.isfinite(values).all() or np.abs(values).max() > 1:
            raise UserError("Each category needs one centre, a cosine similarity between −1 and 1.")
        return values


def check_temperature(temperature: object) -> float:
    """The temperature as a float, when it is a number above 0 (at most 100)."""
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) \
            or not np.isfinite(temperature) or not 0 < temperature <= 100:
        raise UserError(f"The temperature must be a number above 0 (such as {DEFAULT_TEMPERATURE}), "
                        f"not {temperature!r}.",
                        "Lower temperatures make the probabilities more decided, higher ones less.")
    return float(temperature)


def _unit(matrix: np.ndarray) -> np.ndarray:
    """Rows (or a vector) scaled to length 1 (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def sentence_model(folder: Path) -> tuple[Any, Any, Any]:
    """The sentence model in ``folder`` (evaluation mode, on the GPU if there is one), its tokenizer and
    its device; opened once per process with the engine's safe loading (safetensors only, no code)."""
    key = str(folder)
    with _SENTENCE_LOCK:
        if key not in _SENTENCE_MODELS:
            import torch

            from guiapp.core.models.setfit.body import open_body
            from guiapp.core.models.transformers.fine_tuning import pick_device

            network, tokenizer = open_body(folder)
            device = torch.device(pick_device("auto").kind)
            network.to(device).eval()
            _SENTENCE_MODELS[key] = (network, tokenizer, device)
        return _SENTENCE_MODELS[key]


def _bf16(device: Any) -> bool:
    import torch

    return device.type == "cuda" and bool(torch.cuda.is_bf16_supported(including_emulation=False))
