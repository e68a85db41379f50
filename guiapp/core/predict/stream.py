"""Applying a trained model to many texts in chunks, so memory stays flat as the rows grow.

Only one chunk of model inputs (token ids, feature matrix) exists at a time; what is kept for every
row is the answer: the predicted category (int32) and the probability of each category (float32),
so 1,000,000 rows × 20 categories keep 80 MB. Empty texts get no prediction (category −1,
probabilities NaN) and are counted. Progress says how many texts are done and about how long the
rest will take; Cancel (``Cancelled`` raised by the callback) stops between chunks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.study.label_sets import category_list

DEFAULT_CHUNK_SIZE = 2_048
NO_PREDICTION = -1

AnswerFunction = Callable[[list[str]], tuple[np.ndarray, np.ndarray]]
"""``texts -> (predicted category index per text, probabilities (len(texts), n categories))``.
The prediction is the model's own decision, which for an SVM need not be the most probable
category of its calibrated probabilities. A model where a text can have several categories answers
a 0/1 matrix (len(texts), n categories) instead of the index."""


@dataclass
class Predictions:
    """One model's answers for a list of texts, in the texts' order."""

    categories: list[str]
    # int32 per text: index into ``categories``; NO_PREDICTION for empty texts. Where a text can have
    # several categories: int8 (n texts, n categories), 1 where the model gives the text that category,
    # rows of NO_PREDICTION for empty texts
    predicted: np.ndarray
    probabilities: np.ndarray  # float32 (n texts, n categories); NaN rows for empty texts
    seconds: float = 0.0

    @property
    def multi_label(self) -> bool:
        return self.predicted.ndim == 2

    @property
    def answered(self) -> np.ndarray:
        """Whether each text got an answer (empty texts get none)."""
        return self.predicted[:, 0] != NO_PREDICTION if self.multi_label else self.predicted != NO_PREDICTION

    @property
    def n_empty(self) -> int:
        return int(np.count_nonzero(~self.answered))

    def labels(self) -> list[str]:
        """The predicted category of each text as its name ("" for an empty text); where a text can
        have several categories, their names joined by "; " (:data:`NO_CATEGORY` for none)."""
        if self.multi_label:
            return [category_list(row, self.categories) if row[0] != NO_PREDICTION else "" for row in self.predicted]
        names = np.asarray(self.categories + [""], dtype=object)
        return names[np.where(self.predicted >= 0, self.predicted, len(self.categories))].tolist()




def predict_in_chunks(
    answer: AnswerFunction,
    texts: Sequence[str],
    categories: list[str],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    on_event: EventCallback = ignore_events,
    what: str = "Predicting",
    multi_label: bool = False,
) -> Predictions:
    """Predict ``texts`` chunk by chunk with ``answer`` (see the module docstring); ``multi_label``
    says the model gives each text a set of categories (a 0/1 row), also when no text is answered."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    n, k = len(texts), len(categories)
    predicted: np.ndarray | None = None  # its shape follows the first answer (several categories or one)
    probabilities = np.full((n, k), np.nan, dtype=np.float32)
    start = time.perf_counter()
    on_event(Progress(0.0 if n else 1.0, f"{what}: 0 of {n:,} texts", 0, n))
    for begin in range(0, n, chunk_size):
        end = min(begin + chunk_size, n)
        chunk = [str(text) if text is not None else "" for text in texts[begin:end]]
        filled = np.fromiter((bool(text.strip()) for text in chunk), dtype=bool, count=len(chunk))
        if filled.any():
            rows = np.flatnonzero(filled)
            chosen, chance = answer([chunk[i] for i in rows])
            chosen, chance = np.asarray(chosen), np.asarray(chance)
            several = chosen.ndim == 2
            if chance.shape != (len(rows), k) or chosen.shape != ((len(rows), k) if several else (len(rows),)):
                raise ValueError(f"the model answered {chosen.shape} and {chance.shape} for {len(rows)} texts, {k} categories")
            if predicted is None:
                predicted = _no_answers(n, k, several)
            probabilities[begin + rows] = chance
            predicted[begin + rows] = chosen
        on_event(Progress(end / n, f"{what}: {end:,} of {n:,} texts{_time_left(start, end, n)}", end, n))
    if predicted is None:  # nothing answered (every text empty)
        predicted = _no_answers(n, k, multi_label)
    return Predictions(categories=list(categories), predicted=predicted, probabilities=probabilities,
                       seconds=time.perf_counter() - start)


def _no_answers(n: int, k: int, several: bool) -> np.ndarray:
    if several:
        return np.full((n, k), NO_PREDICTION, dtype=np.int8)
    return np.full(n, NO_PREDICTION, dtype=np.int32)


def _time_left(start: float, done: int, total: int) -> str:
    elapsed = time.perf_counter() - start
    if done >= total or done == 0 or elapsed < 2.0:
        return ""
    left = elapsed / done * (total - done)
    if left < 60:
        return f" — about {max(5, round(left / 5) * 5):.0f} s left"
    if left < 3600:
        return f" — about {round(left / 60):.0f} min left"
    return f" — about {left / 3600:.1f} h left"
