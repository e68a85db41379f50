"""The study's texts as a zero-shot similarity model reads them in a study: the sentence embeddings
of the same language model (``features/sentence_embeddings.py``), so texts it or the sentence-embedding
representation embedded before — in this study or an earlier run of it — are read from the app's
embedding cache instead of being embedded again.

Both ways give a text the same vector (the mean of the model's last hidden states over its tokens,
L2-normalised; long texts keep their first tokens): the representation is given the zero-shot model's
language model and the number of tokens it reads, and its cache key holds both. A study's texts are
embedded together, as the representation embeds them, so that both share one entry of the cache.
On a processor that computes 16-bit numbers natively, the vectors read are the representation's
(``models/transformers/fast_inference.py``: 16-bit ones where they were checked to agree with exact
ones; ``TEXTLAB_FAST_INFERENCE=0`` keeps them exact), while a saved model embeds new texts in full
precision: probabilities may then differ from a saved model's in the third decimal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.events import EventCallback, Progress
from guiapp.core.features.sentence_embeddings import BUNDLED_MODEL, SentenceEmbeddings

if TYPE_CHECKING:
    from guiapp.core.models.zero_shot.similarity import ZeroShotSimilarity


def sentence_representation(scorer: ZeroShotSimilarity) -> SentenceEmbeddings:
    """The sentence-embedding representation that embeds texts as ``scorer`` does: its language model
    (the bundled one by name, as the representation's default names it; else its checked folder) and
    the most tokens it reads of a text."""
    model = BUNDLED_MODEL if scorer.choice.source == "bundled" else str(scorer.model_folder())
    return SentenceEmbeddings(model=model, normalize=True, max_length=scorer.max_tokens(),
                              batch_size=scorer.batch_size)


class StudyTextVectors:
    """``embed_texts`` for a zero-shot similarity model in a study (see the module docstring).

    ``every_text``: the model will score every text of the study (a study run: the training texts,
    then the test texts), so the first call embeds them all, or reads them from the cache. Otherwise
    (a learning curve's test texts) the study's embeddings are used only when the cache has them, and
    other texts are embedded as they are asked for (and cached under those texts)."""

    def __init__(self, study_texts: Sequence[str], representation: SentenceEmbeddings, *, every_text: bool = True):
        self.study_texts = list(study_texts)
        self.representation = representation
        self.every_text = every_text
        self._matrix: np.ndarray | None = None
        self._rows: dict[str, int] = {}

    def __call__(self, texts: list[str], on_event: EventCallback) -> np.ndarray:
        texts = list(texts)
        loaded_now = self._matrix is None and (self.every_text or self.representation.in_cache(self.study_texts))
        if loaded_now:  # prepare() reports its own progress
            self._matrix = self.representation.prepare(self.study_texts, on_event).matrix
            for row, text in enumerate(self.study_texts):
                self._rows.setdefault(text, row)
        if self._matrix is None or not all(text in self._rows for text in texts):
            return self.representation.prepare(texts, on_event).matrix.astype(np.float64)
        if not loaded_now:
            on_event(Progress(1.0, f"Embedding texts: {len(texts):,} of {len(texts):,}", len(texts), len(texts)))
        rows = np.fromiter((self._rows[text] for text in texts), dtype=np.intp, count=len(texts))
        return self._matrix[rows].astype(np.float64)


def study_text_vectors(scorer: ZeroShotSimilarity, study_texts: Sequence[str], *,
                       every_text: bool = True) -> StudyTextVectors:
    """``embed_texts`` for ``scorer`` in a study of ``study_texts``."""
    return StudyTextVectors(study_texts, sentence_representation(scorer), every_text=every_text)
