"""The two explanation jobs the Documents step and ``textlab explain`` run: one document (its
coloured words, how faithful they are, and the Transformer's attention) and all test documents
(every document explained, then the words each category relies on). Both read and fill the cache,
so nothing is computed twice for the same model, document, category, method and settings.

Where a text can have several categories, an explanation is about one category's own chance: one
document is explained toward the category asked for, by default the first the model gives it, else
its most probable one; all documents are explained toward each category the model gives them (a
document the model gives none is not explained), so the words of each category come from the
documents the model put in it, as with one category per text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.explain.attention_maps import AttentionMaps
from guiapp.core.explain.attribution import COMBINED_PARTS, INTEGRATED_GRADIENTS, Attribution, Faithfulness
from guiapp.core.explain.cache import ExplanationCache
from guiapp.core.explain.category_choice import default_target, given_categories
from guiapp.core.explain.choose_method import AUTO, explain_document, explain_in_chunks, method_for
from guiapp.core.explain.corpus_table import CorpusWords
from guiapp.core.explain.corpus_words import corpus_words, linear_coefficients, reads_punctuation
from guiapp.core.explain.faithfulness import faithfulness, faithfulness_of_documents
from guiapp.core.explain.linear_contributions import is_linear
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel

TOP_K = 5  # words removed or kept for the faithfulness numbers
DOCUMENTS_PER_CHUNK = 64  # documents explained together, then kept in the cache


@dataclass
class DocumentExplanation:
    attribution: Attribution
    faithfulness: Faithfulness | None
    attention: AttentionMaps | None = None


@dataclass
class CorpusExplanation:
    """Every explained document (text, attribution, faithfulness) and the words per category.

    ``positions``: for each explanation, the position of its text among the texts given (a text
    can be explained several times, toward each of its categories, or not at all)."""

    documents: list[tuple[str, Attribution, Faithfulness]] = field(default_factory=list)
    words: CorpusWords | None = None
    positions: list[int] = field(default_factory=list)
    unexplained: int = 0  # non-empty texts the model gave no category (several categories per text)


def cache_settings(model: TrainedModel, method: str, steps: int) -> dict[str, int]:
    """The settings an explanation depends on besides its method (they key the cache): the steps of
    integrated gradients, for a Transformer and for a combined model with a Transformer among its parts."""
    with_steps = method == INTEGRATED_GRADIENTS or (
        method == COMBINED_PARTS and any(part.family == "transformer" for part in getattr(model, "parts", [])))
    return {"steps": steps} if with_steps else {}


def explain_one(
    model: TrainedModel,
    text: str,
    target: int | None = None,
    *,
    method: str = AUTO,
    steps: int = 50,
    k: int = TOP_K,
    cache: ExplanationCache | None = None,
    attention: bool = False,
    on_event: EventCallback = ignore_events,
) -> DocumentExplanation:
    """Explain ``text`` toward ``target`` (default: the model's answer; where a text can have several
    categories, the first it gives, else the most probable), with faithfulness and, for Transformers
    when asked, the attention maps."""
    on_event(Progress(None, "Reading the model's answer"))
    decisions, probabilities = model.answer([text])
    target = default_target(decisions[0], probabilities[0]) if target is None else int(target)
    if not 0 <= target < len(model.categories):
        raise ValueError(f"category index {target} outside 0 … {len(model.categories) - 1}")
    chosen = method_for(model, method, target)
    settings = cache_settings(model, chosen, steps)
    found = cache.attribution(model.name, text, target, chosen, settings) if cache else None
    if found is None:
        found = explain_document(model, text, target, method=chosen, steps=steps,
                                 probability=float(probabilities[0, target]),
                                 on_event=sub_progress(on_event, 0.0, 0.9))
        if cache:
            cache.put_attribution(text, found, settings)
    record = cache.faithfulness(model.name, text, target, chosen, k, settings) if cache else None
    if record is None and any(found.scores):
        on_event(Progress(0.92, "Checking how faithful the explanation is"))
        record = faithfulness(model, text, found, k)
        if cache:
            cache.put_faithfulness(text, found, record, settings)
    maps = None
    if attention and model.family == "transformer":
        from guiapp.core.explain.attention import attention_maps

        on_event(Progress(0.97, "Reading the attention"))
        maps = attention_maps(model, text)
    on_event(Progress(1.0, "Explained"))
    return DocumentExplanation(found, record, maps)


def explain_all(
    model: TrainedModel,
    texts: Sequence[str],
    categories: Sequence[str],
    *,
    method: str = AUTO,
    steps: int = 50,
    k: int = TOP_K,
    top: int = 20,
    cache: ExplanationCache | None = None,
    on_event: EventCallback = ignore_events,
) -> CorpusExplanation:
    """Explain every text toward the model's own answer (several categories per text: toward each
    category it gives), check each explanation, and sum up the words per category. Documents
    already in the cache are not explained again."""
    given = [position for position, text in enumerate(texts) if text and text.strip()]
    filled = [texts[position] for position in given]
    on_event(Progress(0.0, f"Reading the model's answers for {len(filled):,} documents", 0, len(filled)))
    decisions, answered = model.answer(filled) if filled else ([], np.zeros((0, len(model.categories))))
    pairs = [(number, category) for number in range(len(filled)) for category in given_categories(decisions[number])]
    unexplained = len(filled) - len({number for number, _ in pairs})
    texts = [filled[number] for number, _ in pairs]  # one entry per explanation from here on
    targets = np.array([category for _, category in pairs], dtype=np.int64)
    probabilities = np.asarray(answered, dtype=np.float64).reshape(len(filled), len(model.categories))
    probabilities = probabilities[[number for number, _ in pairs]]
    total = len(texts)
    explained: list[Attribution | None] = [None] * total
    todo: list[int] = []
    for number, text in enumerate(texts):
        target = int(targets[number])
        chosen = method_for(model, method, target)
        settings = cache_settings(model, chosen, steps)
        found = cache.attribution(model.name, text, target, chosen, settings) if cache else None
        if found is None:
            todo.append(number)
        explained[number] = found
    # documents are explained in chunks, each kept in the cache as soon as it is done (Cancel keeps them)
    chunks = explain_in_chunks(model, texts, targets, probabilities, todo, chunk=DOCUMENTS_PER_CHUNK,
                               describe=lambda done: f"Explaining documents: {done:,} of {len(todo):,}",
                               method=method, steps=steps, on_event=sub_progress(on_event, 0.0, 0.9))
    for chunk, found_chunk in chunks:
        for number, found in zip(chunk, found_chunk, strict=True):
            explained[number] = found
            if cache:
                cache.put_attribution(texts[number], found, cache_settings(model, found.method, steps))
    done = [attribution for attribution in explained if attribution is not None]
    on_event(Progress(0.9, "Checking how faithful the explanations are", total, total))
    records = faithfulness_of_documents(model, texts, done, k, probabilities=probabilities,
                                        on_event=sub_progress(on_event, 0.9, 0.98))
    if cache:
        for text, attribution, record in zip(texts, done, records, strict=True):
            cache.put_faithfulness(text, attribution, record, cache_settings(model, attribution.method, steps))
    coefficients = linear_coefficients(model) if isinstance(model, ConventionalModel) and is_linear(model) else None
    # words are grouped as the bag of words groups them (by stem), so coefficients line up
    stem_language = getattr(getattr(model, "representation", None), "stem_language", None)
    methods = sorted({attribution.method for attribution in done})
    words = corpus_words(done, list(categories), model.name, methods[0] if len(methods) == 1 else "mixed",
                         top=top, coefficients=coefficients, stem_language=stem_language,
                         punctuation=reads_punctuation(model), n_documents=len({number for number, _ in pairs}))
    on_event(Progress(1.0, f"Explained {total:,} documents", total, total))
    return CorpusExplanation(list(zip(texts, done, records, strict=True)), words,
                             [given[number] for number, _ in pairs], unexplained)

