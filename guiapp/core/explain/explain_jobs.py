"""The two explanation jobs the Documents step and ``textlab explain`` run: one document (its
coloured words, how faithful they are, and the Transformer's attention) and all test documents
(every document explained, then the words each category relies on). Both read and fill the cache,
so nothing is computed twice for the same model, document, category, method and settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from guiapp.core.events import EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.explain.attention_maps import AttentionMaps
from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, Attribution, Faithfulness
from guiapp.core.explain.cache import ExplanationCache
from guiapp.core.explain.choose_method import AUTO, explain_document, method_for
from guiapp.core.explain.corpus_table import CorpusWords
from guiapp.core.explain.corpus_words import corpus_words, linear_coefficients
from guiapp.core.explain.faithfulness import faithfulness, faithfulness_of_documents
from guiapp.core.explain.linear_contributions import is_linear
from guiapp.core.predict.trained_model import TrainedModel

TOP_K = 5  # words removed or kept for the faithfulness numbers


@dataclass
class DocumentExplanation:
    attribution: Attribution
    faithfulness: Faithfulness | None
    attention: AttentionMaps | None = None


@dataclass
class CorpusExplanation:
    """Every explained document (text, attribution, faithfulness) and the words per category."""

    documents: list[tuple[str, Attribution, Faithfulness]] = field(default_factory=list)
    words: CorpusWords | None = None


def _settings(model: TrainedModel, method: str, steps: int) -> dict[str, int]:
    return {"steps": steps} if method == INTEGRATED_GRADIENTS else {}


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
    """Explain ``text`` toward ``target`` (default: the model's answer), with faithfulness and,
    for Transformers when asked, the attention maps."""
    on_event(Progress(None, "Reading the model's answer"))
    decisions, probabilities = model.answer([text])
    target = int(decisions[0]) if target is None else int(target)
    chosen = method_for(model, method, target)
    settings = _settings(model, chosen, steps)
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
    """Explain every text toward the model's own answer, check each explanation, and sum up the
    words per category. Documents already in the cache are not explained again."""
    texts = [text for text in texts if text and text.strip()]
    total = len(texts)
    on_event(Progress(0.0, f"Reading the model's answers for {total:,} documents", 0, total))
    decisions, probabilities = model.answer(texts) if total else ([], None)
    explained: list[Attribution] = []
    for number, text in enumerate(texts):
        target = int(decisions[number])
        chosen = method_for(model, method, target)
        settings = _settings(model, chosen, steps)
        found = cache.attribution(model.name, text, target, chosen, settings) if cache else None
        if found is None:
            step = sub_progress(on_event, 0.9 * number / total, 0.9 * (number + 1) / total)
            step(Progress(0.0, f"Explaining document {number + 1:,} of {total:,}", number, total))
            found = explain_document(model, text, target, method=chosen, steps=steps,
                                     probability=float(probabilities[number, target]), on_event=step)
            if cache:
                cache.put_attribution(text, found, settings)
        explained.append(found)
    on_event(Progress(0.9, "Checking how faithful the explanations are", total, total))
    records = faithfulness_of_documents(model, texts, explained, k, on_event=sub_progress(on_event, 0.9, 0.98))
    if cache:
        for text, attribution, record in zip(texts, explained, records, strict=True):
            cache.put_faithfulness(text, attribution, record, _settings(model, attribution.method, steps))
    coefficients = linear_coefficients(model) if is_linear(model) else None
    # words are grouped as the bag of words groups them (by stem), so coefficients line up
    stem_language = getattr(getattr(model, "representation", None), "stem_language", None)
    methods = sorted({attribution.method for attribution in explained})
    words = corpus_words(explained, list(categories), model.name, methods[0] if len(methods) == 1 else "mixed",
                         top=top, coefficients=coefficients, stem_language=stem_language)
    on_event(Progress(1.0, f"Explained {total:,} documents", total, total))
    return CorpusExplanation(list(zip(texts, explained, records, strict=True)), words)
