"""Leaving words out for many documents at once: every shortened text of every document goes to
the model in a few large ``answer()`` calls instead of one call per document (or per word).

The numbers are those of :func:`~guiapp.core.explain.occlusion.explain_by_occlusion`: for each
word, the model's probabilities for the text without that word (:func:`~.words.text_without`),
subtracted from its probabilities for the whole text. All categories' probabilities are kept, so
a combined model can weigh every category of a part (:mod:`.combined_contributions`).
Models whose answer costs little per text (bag of words, word vectors) gain most: the fixed cost
of each call (building features, calibrating, threads) is paid once per few hundred texts, and
their shortened texts are not even read again — their features come from word counts
(:mod:`.left_out_counts`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.explain.attribution import OCCLUSION, Attribution
from guiapp.core.explain.left_out_counts import counts_apply, probabilities_without_each_word
from guiapp.core.explain.occlusion import occlusion_sentence
from guiapp.core.explain.words import WordSpan, split_words, text_without
from guiapp.core.predict.trained_model import TrainedModel

VARIANTS_PER_CALL = 512  # shortened texts per answer() call (texts only: memory stays small)
COUNTED_PER_CALL = 8  # … times as many when their features come from counts (no text is read again)


@dataclass
class LeftOut:
    """One document's answers: for the whole text, and for the text without each word in turn."""

    words: list[WordSpan]
    whole: np.ndarray  # (categories,)
    without: np.ndarray  # (words, categories)

    def drops(self) -> np.ndarray:
        """How much each category's probability drops without each word: (words, categories)."""
        return self.whole[None, :] - self.without


def leave_words_out(
    model: TrainedModel,
    texts: Sequence[str],
    whole: np.ndarray | None = None,
    *,
    variants_per_call: int = VARIANTS_PER_CALL,
    on_event: EventCallback = ignore_events,
) -> list[LeftOut]:
    """The model's probabilities without each word of each text, in batched calls.

    ``whole`` (the probabilities of the whole texts, when the caller has them) saves asking for
    them again. Progress is reported once per finished document, after the call that finished
    it; raising ``Cancelled`` from ``on_event`` stops between calls.
    """
    if variants_per_call < 1:
        raise ValueError("at least one text per call is needed")
    spans = [split_words(text) for text in texts]
    n_categories = len(model.categories)
    found_whole = None if whole is None else np.asarray(whole, dtype=np.float64)
    if found_whole is not None and found_whole.shape != (len(texts), n_categories):
        raise ValueError(f"{found_whole.shape} known probabilities for {len(texts)} texts of {n_categories} categories")
    results = [LeftOut(words, np.zeros(n_categories), np.zeros((len(words), n_categories))) for words in spans]
    if found_whole is not None:
        for result, row in zip(results, found_whole, strict=True):
            result.whole = row.copy()
    if counts_apply(model):
        return _by_counts(model, texts, spans, results, found_whole, variants_per_call * COUNTED_PER_CALL, on_event)
    need_whole = found_whole is None
    ends = np.cumsum([len(words) + need_whole for words in spans])  # a document is done once these are answered
    pending = _jobs(texts, spans, need_whole)
    total, done, asked = len(texts), 0, 0

    def report_finished() -> None:
        nonlocal done
        finished = int(np.searchsorted(ends, asked, side="right")) if total else 0
        while done < finished:
            done += 1
            on_event(Progress(done / total, f"Leaving words out: {done:,} of {total:,} documents", done, total))

    on_event(Progress(0.0, f"Leaving words out: 0 of {total:,} documents", 0, total))
    report_finished()  # documents with nothing to ask about
    while batch := _take(pending, variants_per_call):
        probabilities = np.asarray(model.answer([text for _, _, text in batch])[1], dtype=np.float64)
        for (document, word, _), row in zip(batch, probabilities, strict=True):
            if word < 0:
                results[document].whole = row
            else:
                results[document].without[word] = row
        asked += len(batch)
        report_finished()
    return results


def _by_counts(model: TrainedModel, texts: Sequence[str], spans: list[list[WordSpan]], results: list[LeftOut],
               whole: np.ndarray | None, per_call: int, on_event: EventCallback) -> list[LeftOut]:
    """:func:`leave_words_out` for a bag of words or word vectors: the shortened texts' features come
    from counts (:mod:`.left_out_counts`), documents in groups of about ``per_call`` shortened texts."""
    total = len(texts)
    on_event(Progress(0.0, f"Leaving words out: 0 of {total:,} documents", 0, total))
    if whole is None and total:
        for result, row in zip(results, np.asarray(model.answer(list(texts))[1], dtype=np.float64), strict=True):
            result.whole = row
    done = 0
    while done < total:
        group, size = [], 0
        while done + len(group) < total and (not group or size + len(spans[done + len(group)]) <= per_call):
            size += len(spans[done + len(group)])
            group.append(done + len(group))
        found = probabilities_without_each_word(model, [texts[i] for i in group], [spans[i] for i in group])
        for document, without in zip(group, found, strict=True):
            results[document].without = without
            done += 1
            on_event(Progress(done / total, f"Leaving words out: {done:,} of {total:,} documents", done, total))
    return results


def _job_keys(spans: list[list[WordSpan]], need_whole: bool) -> Iterator[tuple[int, int]]:
    for document, words in enumerate(spans):
        if need_whole:
            yield document, -1
        for word in range(len(words)):
            yield document, word


def _jobs(texts: Sequence[str], spans: list[list[WordSpan]], need_whole: bool) -> Iterator[tuple[int, int, str]]:
    """(document, word, text) for every text to ask about; word −1 is the whole text."""
    for document, word in _job_keys(spans, need_whole):
        text = texts[document]
        yield document, word, text if word < 0 else text_without(text, spans[document], {word})


def _take(jobs: Iterator[tuple[int, int, str]], n: int) -> list[tuple[int, int, str]]:
    batch = []
    for job in jobs:
        batch.append(job)
        if len(batch) == n:
            break
    return batch


def explain_many_by_occlusion(
    model: TrainedModel,
    texts: Sequence[str],
    targets: Sequence[int],
    probabilities: np.ndarray | None = None,
    *,
    variants_per_call: int = VARIANTS_PER_CALL,
    on_event: EventCallback = ignore_events,
) -> list[Attribution]:
    """:func:`~guiapp.core.explain.occlusion.explain_by_occlusion` for every text toward its
    target, the shortened texts of several documents sharing each model call."""
    if len(targets) != len(texts):
        raise ValueError("one target per text is needed")
    found = leave_words_out(model, texts, probabilities, variants_per_call=variants_per_call, on_event=on_event)
    details = {"batch_size": variants_per_call, "left_out": "one word at a time", "batched": "across documents"}
    out = []
    for result, target in zip(found, targets, strict=True):
        target = int(target)
        name = model.categories[target]
        out.append(Attribution(model=model.name, method=OCCLUSION, method_sentence=occlusion_sentence(name),
                               target=target, target_name=name, words=result.words,
                               scores=result.drops()[:, target].tolist(), probability=float(result.whole[target]),
                               scale="probability", base_value=None, details=dict(details)))
    return out
