"""How long an explanation job will take, measured before it starts, so that the Documents and
Predict steps can ask before a job of more than a minute.

The estimate is measured, not guessed from a table: a few documents of typical and of long
length (the median, the 75th and the 90th percentile of the words per document) are explained
the way the job will explain them — the median one alone, then all of them, so that what every
call costs whatever its size (features, threads, checks) is told apart from what grows with the
documents — and the time is scaled up to all documents by how each way of explaining grows with
a document's length:

- exact contributions (linear models, XGBoost's SHAP): about the same for every document, except
  on sentence embeddings, where they need one pass of the sentence model;
- integrated gradients, and a sentence model's or Transformer's passes: in proportion to the
  pieces the model reads (its length limit caps them);
- leaving words out: one answer per word, each as long as the document for a sentence model or
  a Transformer (so long documents weigh in quadratically), about constant for the others;
- a language model with your codebook: every answer is a pass of a generative language model over
  the whole prompt (instruction, codebook, examples and the text; one per category where a text can
  have several), so leaving words out costs one such pass per word; the estimate says so, and says
  when the model runs on the processor, where it is slow.

A combined model is timed part by part (each part grows its own way). The answers for all
documents and, for "explain all", the faithfulness checks (two shortened texts per document)
are added. Documents already explained (in the cache) cost nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.explain.attribution import COMBINED_PARTS, INTEGRATED_GRADIENTS, OCCLUSION
from guiapp.core.explain.cache import ExplanationCache
from guiapp.core.explain.category_choice import default_targets
from guiapp.core.explain.choose_method import AUTO, explain_documents, method_for
from guiapp.core.explain.explain_jobs import DOCUMENTS_PER_CHUNK, cache_settings
from guiapp.core.explain.faithfulness import DOCUMENTS_PER_CALL
from guiapp.core.explain.few_shot_families import is_codebook_llm, is_few_shot
from guiapp.core.explain.top_words import DOCUMENTS_PER_CHUNK as TEXTS_PER_CHUNK
from guiapp.core.explain.top_words import is_quick
from guiapp.core.explain.words import split_words
from guiapp.core.predict.new_texts import answer_chunk_size
from guiapp.core.predict.trained_model import TrainedModel

LONG_JOB_SECONDS = 60.0  # longer jobs are announced with their estimate, and the user is asked
SAMPLE_QUANTILES = (0.5, 0.75, 0.9)  # the documents timed, by their number of words
ANSWER_SAMPLE = 24  # documents whose answers are timed (answers are quick)
MAX_PIECES = 512  # no model here reads more pieces of one text
FAITHFULNESS_ANSWERS = 1.5  # the two shortened texts of a document, in answers of the whole text


@dataclass(frozen=True)
class JobEstimate:
    """The estimated wall time of a job (on this computer, as busy as it is now)."""

    seconds: float
    documents: int
    note: str = ""  # a sentence on why it takes this long, where that is worth saying

    def is_long(self, limit: float = LONG_JOB_SECONDS) -> bool:
        return self.seconds > limit

    def duration_text(self) -> str:
        """"about 3 minutes", "about 1 hour 20 minutes", "less than a minute"."""
        minutes = int(round(self.seconds / 60))
        if minutes < 1:
            return "less than a minute"
        if minutes < 60:
            return f"about {minutes} minute{'s' if minutes != 1 else ''}"
        hours, rest = divmod(minutes, 60)
        rest = int(round(rest / 10) * 10)
        if rest == 60:
            hours, rest = hours + 1, 0
        return f"about {hours} hour{'s' if hours != 1 else ''}" + (f" {rest} minutes" if rest else "")

    def question(self) -> str:
        """What the user is asked before a long job."""
        return f"This will take {self.duration_text()}. " + (f"{self.note} " if self.note else "") + "Continue?"

    def __add__(self, other: JobEstimate) -> JobEstimate:
        notes = [note for note in (self.note, other.note) if note]
        return JobEstimate(self.seconds + other.seconds, max(self.documents, other.documents),
                           " ".join(dict.fromkeys(notes)))


def _reads_pieces(model: TrainedModel) -> bool:
    """Whether the model's cost grows with the length of a text (a sentence model, a Transformer)."""
    from guiapp.core.features.sentence_embeddings import SentenceEmbeddings

    if model.family == "transformer" or is_few_shot(model):  # a language model reads every piece
        return True
    if model.family == "combined":
        return any(_reads_pieces(part) for part in getattr(model, "parts", []))
    return isinstance(getattr(model, "representation", None), SentenceEmbeddings)


def _pieces(n_words: int) -> float:
    return float(min(n_words + 2, MAX_PIECES))


def work_units(model: TrainedModel, method: str, n_words: int) -> float:
    """How the cost of explaining one document of ``n_words`` words grows (see the module docstring)."""
    if method == INTEGRATED_GRADIENTS:
        return _pieces(n_words)
    per_answer = answer_units(model, n_words)
    return (n_words + 1) * per_answer if method == OCCLUSION else per_answer


def answer_units(model: TrainedModel, n_words: int) -> float:
    """How the cost of one answer grows with a document of ``n_words`` words."""
    if is_codebook_llm(model):  # the whole prompt around the text, once per question
        return float((model.prompt_words + n_words + 2) * model.questions_per_text)  # type: ignore[attr-defined]
    language_models = [part for part in getattr(model, "parts", []) if is_codebook_llm(part)]
    if model.family == "combined" and language_models:  # its language models cost the most by far
        return sum(answer_units(part, n_words) for part in language_models)
    return _pieces(n_words) if _reads_pieces(model) else 1.0


def slow_model_note(model: TrainedModel, method: str) -> str:
    """Why a language model with your codebook (or a combined model with one among its parts) takes
    long, in words ("" for the other models)."""
    who = "The language model with your codebook"
    if getattr(model, "family", "") == "combined":
        parts = [part for part in getattr(model, "parts", []) if is_codebook_llm(part)]
        if not parts:
            return ""
        model, who = parts[0], f"Its part {parts[0].name}, a language model with your codebook,"
    if not is_codebook_llm(model):
        return ""
    questions = model.questions_per_text  # type: ignore[attr-defined]
    per_text = f"{questions} times per text (once per category)" if questions > 1 else "once per text"
    what = f"{who} reads its whole prompt (the codebook, its examples and the text) {per_text}"
    if method in (OCCLUSION, COMBINED_PARTS):
        what += ", and again for every word left out"
    where = model.device_note()  # type: ignore[attr-defined]
    if where == "the processor":
        return what + "; here it runs on the processor, which is slow for a language model (a graphics card is " \
                      "many times faster)."
    if where == "a language-model server":
        return what + "; each of these is a question to the language-model server."
    return what + "."


def _sample(lengths: np.ndarray) -> list[int]:
    """Positions of the documents to time: those nearest the length quantiles, each once."""
    if len(lengths) == 0:
        return []
    order = np.argsort(lengths, kind="stable")
    picked = []
    for quantile in SAMPLE_QUANTILES:
        position = int(order[min(len(order) - 1, int(quantile * (len(order) - 1) + 0.5))])
        if position not in picked:
            picked.append(position)
    return picked


def _spread(lengths: np.ndarray, n: int) -> list[int]:
    """``n`` positions at evenly spaced quantiles of length (the middle of each of ``n`` shares)."""
    order = np.argsort(lengths, kind="stable")
    return sorted({int(order[int((i + 0.5) * len(order) / n)]) for i in range(min(n, len(order)))})


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


@dataclass(frozen=True)
class _Rate:
    """Seconds a kind of work takes: a fixed part per call and a part per unit of work."""

    per_call: float
    per_unit: float

    def seconds(self, calls: float, units: float) -> float:
        return self.per_call * calls + self.per_unit * units


def _rate(call: Callable[[list[int]], object], small: list[int], large: list[int],
          units: Callable[[int], float]) -> _Rate:
    """Timed on a small and a larger sample of documents, so that what each call costs whatever
    its size (features, threads, checks) is not counted once per document."""
    small_seconds, large_seconds = _timed(lambda: call(small)), _timed(lambda: call(large))
    small_units, large_units = sum(units(i) for i in small), sum(units(i) for i in large)
    if large_units > small_units and large_seconds > small_seconds:
        per_unit = (large_seconds - small_seconds) / (large_units - small_units)
        return _Rate(max(small_seconds - per_unit * small_units, 0.0), per_unit)
    # too alike to tell the parts apart (or a busy moment): as if all of it grew with the work
    return _Rate(0.0, large_seconds / large_units if large_units > 0 else 0.0)


def estimate_explaining(
    model: TrainedModel,
    texts: Sequence[str],
    *,
    method: str = AUTO,
    steps: int = 50,
    cache: ExplanationCache | None = None,
    faithfulness: bool = True,
    answers: bool = True,
    chunk: int = DOCUMENTS_PER_CHUNK,
    on_event: EventCallback = ignore_events,
) -> JobEstimate:
    """How long explaining ``texts`` with ``model`` will take ("explain all test documents":
    with the faithfulness checks; top words of predictions: ``faithfulness=False``; ``answers``:
    whether the job asks for the model's answers first; ``chunk``: documents the job explains
    together)."""
    texts = [text for text in texts if text and text.strip()]
    todo = [text for text in texts if not _cached(model, text, method, steps, cache)]
    if not todo:
        return JobEstimate(0.0, 0)
    lengths = np.array([len(split_words(text)) for text in todo])
    sample = _sample(lengths)
    on_event(Progress(None, f"Timing the explanation of {len(sample)} documents"))
    shortest = [int(np.argmin(lengths))]
    model.answer([todo[i] for i in shortest])  # the first answer loads what the model needs: not timed

    def answer(rows: list[int]) -> object:
        return model.answer([todo[i] for i in rows])

    # a generative language model's answers take long: timed on the documents the explanation is timed on
    answer_rate = _rate(answer, sample[:1], sample if is_codebook_llm(model) else _spread(lengths, ANSWER_SAMPLE),
                        lambda i: answer_units(model, int(lengths[i])))
    all_answers = sum(answer_units(model, int(n)) for n in lengths)
    seconds = 0.0
    if answers:
        seconds += answer_rate.seconds(1, all_answers)
    if faithfulness:
        seconds += answer_rate.seconds(np.ceil(len(todo) / DOCUMENTS_PER_CALL), FAITHFULNESS_ANSWERS * all_answers)
    timed = shortest + sample
    decisions, chances = model.answer([todo[i] for i in timed])
    targets = {i: int(target) for i, target in zip(timed, default_targets(decisions, chances), strict=True)}
    chosen = method_for(model, method, targets[sample[0]])
    calls = float(np.ceil(len(todo) / chunk))
    if chosen == COMBINED_PARTS:
        return JobEstimate(seconds + _combined_seconds(model, todo, lengths, sample, shortest, steps, calls),
                           len(todo), slow_model_note(model, chosen))

    def explain(rows: list[int]) -> object:
        return explain_documents(model, [todo[i] for i in rows], [targets[i] for i in rows], method=method,
                                 steps=steps)

    explain(shortest)  # the first explanation loads what the method needs: not timed
    rate = _rate(explain, sample[:1], sample, lambda i: work_units(model, chosen, int(lengths[i])))
    seconds += rate.seconds(calls, sum(work_units(model, chosen, int(n)) for n in lengths))
    return JobEstimate(float(seconds), len(todo), slow_model_note(model, chosen))


def _combined_seconds(model: TrainedModel, todo: list[str], lengths: np.ndarray, sample: list[int],
                      shortest: list[int], steps: int, calls: float) -> float:
    """Each part of a combined model timed on the sample and scaled by its own way of growing."""
    from guiapp.core.explain.combined_contributions import part_directions
    from guiapp.core.explain.part_contributions import part_method, part_scores

    rows = shortest + sample
    texts = [todo[i] for i in rows]
    probabilities = model.part_answers(texts)  # type: ignore[attr-defined]
    directions = part_directions(model, probabilities, default_targets(*model.answer(texts)))  # type: ignore[arg-type]
    position = {row: index for index, row in enumerate(rows)}
    seconds = 0.0
    for k, part in enumerate(model.parts):  # type: ignore[attr-defined]
        if not np.any(directions[:, k]):
            continue

        def explain(chosen: list[int], k: int = k, part: TrainedModel = part) -> object:
            at = [position[i] for i in chosen]
            return part_scores(part, [todo[i] for i in chosen], directions[at, k], probabilities[k][at], steps=steps)

        explain(shortest)  # not timed: the first call loads what the method needs
        method = part_method(part)
        rate = _rate(explain, sample[:1], sample, lambda i, part=part, method=method: work_units(
            part, method, int(lengths[i])))
        seconds += rate.seconds(calls, sum(work_units(part, method, int(n)) for n in lengths))
    return seconds


def _cached(model: TrainedModel, text: str, method: str, steps: int, cache: ExplanationCache | None) -> bool:
    """Whether some explanation of ``text`` by ``model`` with this method is in the cache already."""
    if cache is None:
        return False
    for target in range(len(model.categories)):
        chosen = method_for(model, method, target)
        if cache.attribution(model.name, text, target, chosen, cache_settings(model, chosen, steps)) is not None:
            return True
    return False


def estimate_top_words(
    models: Sequence[TrainedModel],
    texts: Sequence[str],
    *,
    steps: int = 50,
    on_event: EventCallback = ignore_events,
) -> JobEstimate:
    """How long predicting ``texts`` with every model and finding the top words will take."""
    total = JobEstimate(0.0, 0)
    for model in models:
        if is_quick(model):  # exact arithmetic: thousands of texts a second
            continue
        total = total + estimate_explaining(model, texts, steps=steps, faithfulness=False,
                                            chunk=TEXTS_PER_CHUNK, on_event=on_event)
    return total


def estimate_answering(
    models: Sequence[TrainedModel],
    texts: Sequence[str],
    *,
    on_event: EventCallback = ignore_events,
) -> JobEstimate:
    """How long the models whose every answer is a pass of a generative language model (a language
    model with your codebook) take to answer ``texts``; the other models answer thousands of texts
    in that time and are not counted."""
    total = JobEstimate(0.0, 0)
    for model in models:
        if slow_model_note(model, ""):  # a language model with your codebook, or a combination with one
            total = total + _answering(model, [text for text in texts if text and text.strip()], on_event)
    return total


def _answering(model: TrainedModel, texts: list[str], on_event: EventCallback) -> JobEstimate:
    if not texts:
        return JobEstimate(0.0, 0)
    lengths = np.array([len(split_words(text)) for text in texts])
    sample = _sample(lengths)
    on_event(Progress(None, f"{model.name}: timing its answers for {len(sample)} texts"))
    model.answer([texts[int(np.argmin(lengths))]])  # the first answer opens the language model: not timed

    def answer(rows: list[int]) -> object:
        return model.answer([texts[i] for i in rows])

    rate = _rate(answer, sample[:1], sample, lambda i: answer_units(model, int(lengths[i])))
    calls = float(np.ceil(len(texts) / answer_chunk_size(model, len(texts))))
    seconds = rate.seconds(calls, sum(answer_units(model, int(n)) for n in lengths))
    return JobEstimate(float(seconds), len(texts), slow_model_note(model, ""))


def estimate_predicting(
    model_folders: Sequence[tuple[str, str | Path]],
    frame: pd.DataFrame,
    text_columns: Sequence[str],
    *,
    steps: int = 50,
    top_words: bool = True,
    on_event: EventCallback = ignore_events,
) -> JobEstimate:
    """The Predict step's job (models by name and folder, a table): :func:`estimate_top_words`, or
    without the top words, :func:`estimate_answering`."""
    from guiapp.core.predict.new_texts import open_models, table_texts

    texts = table_texts(frame, text_columns)
    models = open_models(model_folders, on_event)
    if top_words:
        return estimate_top_words(models, texts, steps=steps, on_event=on_event)
    return estimate_answering(models, texts, on_event=on_event)
