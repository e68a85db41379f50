"""How far an explanation is true to its model: ERASER's comprehensiveness and sufficiency.

DeYoung et al. (2020): take the ``k`` words that pushed most toward the category, then ask the
model again with those words removed (a faithful explanation found words the model needed, so the
probability drops: comprehensiveness) and with only those words kept (they should be enough, so
the probability hardly drops: sufficiency). The three texts of a document go to the model in one
``answer()`` call; :func:`faithfulness_of_documents` batches many documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.explain.attribution import Attribution, Faithfulness
from guiapp.core.explain.words import text_with_only, text_without
from guiapp.core.predict.trained_model import TrainedModel

DOCUMENTS_PER_CALL = 32


def _three_texts(text: str, attribution: Attribution, k: int) -> tuple[list[str], list[int]]:
    """The whole text, the text without its top-k words, and only the top-k words."""
    top = attribution.top_words(k, toward=True)
    spans = attribution.words
    return [text, text_without(text, spans, set(top)), text_with_only(text, spans, set(top))], top


def _record(attribution: Attribution, top: list[int], k: int, probabilities: np.ndarray) -> Faithfulness:
    target = attribution.target
    return Faithfulness(category=attribution.target_name, k=k, words=[attribution.words[i].text for i in top],
                        probability=float(probabilities[0, target]), without_top=float(probabilities[1, target]),
                        only_top=float(probabilities[2, target]))


def faithfulness(model: TrainedModel, text: str, attribution: Attribution, k: int = 5) -> Faithfulness:
    """Comprehensiveness and sufficiency of ``attribution`` (made for ``text``) with its top ``k`` words."""
    texts, top = _three_texts(text, attribution, k)
    return _record(attribution, top, k, model.answer(texts)[1])


def faithfulness_of_documents(
    model: TrainedModel,
    texts: Sequence[str],
    attributions: Sequence[Attribution],
    k: int = 5,
    *,
    probabilities: np.ndarray | None = None,
    on_event: EventCallback = ignore_events,
) -> list[Faithfulness]:
    """:func:`faithfulness` for many documents, ``DOCUMENTS_PER_CALL`` of them per ``answer()`` call.

    ``probabilities`` (the model's answers for the whole ``texts``, when the caller has them)
    spares asking for them again: only the two shortened texts of each document are asked about.
    """
    out: list[Faithfulness] = []
    total = len(texts)
    known = None if probabilities is None else np.asarray(probabilities, dtype=np.float64)
    if known is not None and known.shape[0] != total:
        raise ValueError(f"{known.shape[0]} known answers for {total} texts")
    asked = 2 if known is not None else 3
    for start in range(0, total, DOCUMENTS_PER_CALL):
        on_event(Progress(start / max(total, 1), f"Checking explanations: {start:,} of {total:,} documents",
                          start, total))
        batch = list(zip(texts[start:start + DOCUMENTS_PER_CALL], attributions[start:start + DOCUMENTS_PER_CALL],
                         strict=True))
        prepared = [_three_texts(text, attribution, k) for text, attribution in batch]
        pieces = [piece for three, _ in prepared for piece in three[3 - asked:]]
        found = model.answer(pieces)[1]
        for number, ((_, attribution), (_, top)) in enumerate(zip(batch, prepared, strict=True)):
            rows = found[asked * number:asked * number + asked]
            if known is not None:
                rows = np.vstack([known[start + number][None, :], rows])
            out.append(_record(attribution, top, k, rows))
    on_event(Progress(1.0, f"Checking explanations: {total:,} of {total:,} documents", total, total))
    return out


@dataclass(frozen=True)
class MeanFaithfulness:
    """Mean comprehensiveness and sufficiency of one model's explanations by one method."""

    model: str
    method: str
    k: int
    n_documents: int
    comprehensiveness: float
    sufficiency: float


def mean_faithfulness(pairs: Iterable[tuple[Attribution, Faithfulness]]) -> list[MeanFaithfulness]:
    """Per model, method and k, the means over the documents (in the order they first appear)."""
    groups: dict[tuple[str, str, int], list[Faithfulness]] = {}
    for attribution, record in pairs:
        groups.setdefault((attribution.model, attribution.method, record.k), []).append(record)
    return [MeanFaithfulness(model, method, k, len(records),
                             float(np.mean([r.comprehensiveness for r in records])),
                             float(np.mean([r.sufficiency for r in records])))
            for (model, method, k), records in groups.items()]
