"""Which explanation a trained model gets, and explaining one document or a whole test set.

An exact method wherever the model allows one, since then the colours are the model's own
arithmetic rather than an estimate:

- linear models (logistic regression, linear-kernel SVM) on a bag of words or on word vectors,
  and naive Bayes on a bag of words → exact linear contributions;
- XGBoost on a bag of words → XGBoost's exact tree contributions (SHAP);
- fine-tuned Transformers → integrated gradients (or, when asked, leaving words out);
- combined models → through their parts, each explained its own best way and weighed as the
  combination weighs it (:mod:`.combined_contributions`);
- zero-shot models (similarity to the categories' descriptions, NLI) and SetFit → leaving words
  out: they read the whole text through a language model and hold no weight per word, so the drop
  of the chosen category's chance when a word is left out is what can be said;
- everything else (sentence embeddings, XGBoost or an RBF SVM on word vectors, …) → leaving
  words out, which only needs the model's answers.

Where a text can have several categories, every method explains one category's own chance (its
own classifier, its own sigmoid output): the category asked for, by default the first one the model
gave the text, else its most probable one (:mod:`.category_choice`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import Event, EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.explain.attribution import (
    COMBINED_PARTS,
    INTEGRATED_GRADIENTS,
    LINEAR_EXACT,
    METHOD_NAMES,
    OCCLUSION,
    TREE_SHAP,
    Attribution,
)
from guiapp.core.explain.category_choice import default_target, targets_from_probabilities
from guiapp.core.explain.category_parts import learnt
from guiapp.core.explain.few_shot_families import is_few_shot
from guiapp.core.explain.linear_contributions import explain_linear, is_linear
from guiapp.core.explain.occlusion import explain_by_occlusion
from guiapp.core.explain.tree_contributions import explain_tree, is_tree_on_words
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel

AUTO = "auto"


def _knows_target(model: TrainedModel, target: int) -> bool:
    if is_few_shot(model):  # every category has its own chance (a description, or a head of its own)
        return True
    classifier = getattr(model, "classifier", None)
    return classifier is None or learnt(classifier, target)


def available_methods(model: TrainedModel) -> list[str]:
    """The methods that can explain this model, best first."""
    if model.family == "transformer":
        return [INTEGRATED_GRADIENTS, OCCLUSION]
    if model.family == "combined":
        return [COMBINED_PARTS, OCCLUSION]
    if is_few_shot(model):
        return [OCCLUSION]
    if isinstance(model, ConventionalModel) and is_linear(model):
        return [LINEAR_EXACT, OCCLUSION]
    if isinstance(model, ConventionalModel) and is_tree_on_words(model):
        return [TREE_SHAP, OCCLUSION]
    return [OCCLUSION]


def method_for(model: TrainedModel, method: str = AUTO, target: int | None = None) -> str:
    """The method ``method`` stands for with this model (``"auto"``: the best available one)."""
    methods = available_methods(model)
    if method == AUTO:
        if target is not None and not _knows_target(model, target):
            return OCCLUSION  # exact methods need the category's own weights
        return methods[0]
    if method not in methods:
        names = ", ".join(f"“{METHOD_NAMES[m]}”" for m in methods)
        raise UserError(f"“{METHOD_NAMES.get(method, method)}” cannot explain the model “{model.name}”.",
                        f"Choose one of: {names}.")
    return method


def explain_document(
    model: TrainedModel,
    text: str,
    target: int | None = None,
    *,
    method: str = AUTO,
    steps: int = 50,
    on_event: EventCallback = ignore_events,
    probability: float | None = None,
) -> Attribution:
    """Why ``model`` gives ``text`` category ``target`` (default: the category it predicts).

    ``probability`` (the model's probability of ``target`` for ``text``, when the caller has it)
    saves one model call for the exact methods.
    """
    if target is None and model.family == "transformer" and method in (AUTO, INTEGRATED_GRADIENTS):
        from guiapp.core.explain.transformer_attributions import explain_transformer

        return explain_transformer(model, text, None, steps=steps, on_event=on_event)
    if target is None:
        decisions, probabilities = model.answer([text])
        target = default_target(decisions[0], probabilities[0])
        probability = float(probabilities[0, target])
    chosen = method_for(model, method, target)
    if chosen == INTEGRATED_GRADIENTS:
        from guiapp.core.explain.transformer_attributions import explain_transformer

        return explain_transformer(model, text, target, steps=steps, on_event=on_event)
    if chosen == LINEAR_EXACT:
        return explain_linear(model, text, target, probability)
    if chosen == TREE_SHAP:
        return explain_tree(model, text, target, probability)
    if chosen == COMBINED_PARTS:
        from guiapp.core.explain.combined_contributions import explain_combined

        return explain_combined(model, [text], [target], steps=steps, on_event=on_event)[0]
    return explain_by_occlusion(model, text, target, on_event=on_event)


def explain_documents(
    model: TrainedModel,
    texts: Sequence[str],
    targets: Sequence[int] | None = None,
    *,
    method: str = AUTO,
    steps: int = 50,
    probabilities: np.ndarray | None = None,
    on_event: EventCallback = ignore_events,
) -> list[Attribution]:
    """:func:`explain_document` for every text ("explain all test documents").

    Without ``targets`` each text is explained toward the category the model predicts for it
    (where a text can have several: the first it predicts, else the most probable) (one batched
    ``answer()`` call first); ``probabilities`` (the model's answers for ``texts``,
    when the caller has them) saves that call. Leaving words out and combined models work on all
    documents at once, their shortened texts sharing batched model calls; the other methods go
    document by document. Progress is reported per document (or per batch of them); raising
    ``Cancelled`` from ``on_event`` stops between steps.
    """
    texts = list(texts)
    total = len(texts)
    if probabilities is None and (targets is None or _batched(model, method)):
        on_event(Progress(0.0, f"Reading the model's answers for {total:,} documents", 0, total))
        probabilities = model.answer(texts)[1] if total else np.zeros((0, len(model.categories)))
    if targets is None:
        assert probabilities is not None
        targets = targets_from_probabilities(model, probabilities).tolist()
    if len(targets) != total:
        raise ValueError("one target per text is needed")
    chosen = [method_for(model, method, int(target)) for target in targets]
    out: list[Attribution | None] = [None] * total
    together = [i for i, key in enumerate(chosen) if key in (OCCLUSION, COMBINED_PARTS)]
    alone = [i for i, key in enumerate(chosen) if key not in (OCCLUSION, COMBINED_PARTS)]
    share = len(together) / max(total, 1)
    if together:
        step = sub_progress(on_event, 0.0, share)
        for key in (COMBINED_PARTS, OCCLUSION):
            rows = [i for i in together if chosen[i] == key]
            if rows:
                for i, found in zip(rows, _explain_together(model, key, [texts[i] for i in rows],
                                                            [int(targets[i]) for i in rows], probabilities, rows,
                                                            steps, step), strict=True):
                    out[i] = found
    for number, i in enumerate(alone):
        fraction = share + (1 - share) * number / total
        on_event(Progress(fraction, f"Explaining document {i + 1:,} of {total:,}", i, total))
        inner = sub_progress(_as_document_progress(on_event, i, total), fraction,
                             share + (1 - share) * (number + 1) / total)
        known = None if probabilities is None else float(probabilities[i, int(targets[i])])
        out[i] = explain_document(model, texts[i], int(targets[i]), method=chosen[i], steps=steps, on_event=inner,
                                  probability=known)
    on_event(Progress(1.0, f"Explained {total:,} documents", total, total))
    return [found for found in out if found is not None]


def explain_in_chunks(
    model: TrainedModel,
    texts: Sequence[str],
    targets: Sequence[int] | np.ndarray,
    probabilities: np.ndarray,
    rows: Sequence[int],
    *,
    chunk: int,
    describe: Callable[[int], str],
    method: str = AUTO,
    steps: int = 50,
    on_event: EventCallback = ignore_events,
) -> Iterator[tuple[list[int], list[Attribution]]]:
    """:func:`explain_documents` for ``texts[rows]`` toward their ``targets``, ``chunk`` documents at
    a time, yielding each chunk's rows and explanations as soon as it is done (so the caller can keep
    them before Cancel stops the next chunk). Progress runs over all rows; its line is
    ``describe(documents done)``."""
    rows = [int(row) for row in rows]
    known = np.asarray(probabilities)
    for start in range(0, len(rows), chunk):
        part = rows[start:start + chunk]
        step = sub_progress(on_event, start / len(rows), (start + len(part)) / len(rows))
        yield part, explain_documents(model, [texts[i] for i in part], [int(targets[i]) for i in part],
                                      method=method, steps=steps, probabilities=known[part],
                                      on_event=_counted(step, describe, start, len(part), len(rows)))


def _counted(on_event: EventCallback, describe: Callable[[int], str], before: int, size: int,
             total: int) -> EventCallback:
    """A chunk's progress, with the documents counted over the whole job."""

    def forward(event: Event) -> None:
        if isinstance(event, Progress) and event.fraction is not None:
            done = before + int(round(size * min(max(event.fraction, 0.0), 1.0)))
            event = Progress(event.fraction, describe(done), done, total, event.task, event.task_fraction)
        on_event(event)

    return forward


def _batched(model: TrainedModel, method: str) -> bool:
    """Whether this model and method explain documents together (and need their answers first)."""
    return method in (OCCLUSION, COMBINED_PARTS) or (method == AUTO and available_methods(model)[0] in
                                                     (OCCLUSION, COMBINED_PARTS))


def _explain_together(model: TrainedModel, key: str, texts: list[str], targets: list[int],
                      probabilities: np.ndarray | None, rows: list[int], steps: int,
                      on_event: EventCallback) -> list[Attribution]:
    if key == COMBINED_PARTS:
        from guiapp.core.explain.combined_contributions import explain_combined

        return explain_combined(model, texts, targets, steps=steps, on_event=on_event)
    from guiapp.core.explain.batched_occlusion import explain_many_by_occlusion

    known = None if probabilities is None else np.asarray(probabilities)[rows]
    return explain_many_by_occlusion(model, texts, targets, known, on_event=on_event)


def _as_document_progress(on_event: EventCallback, number: int, total: int) -> EventCallback:
    """Inner progress of one document, shown as the document's own line."""

    def forward(event: Event) -> None:
        if isinstance(event, Progress):
            event = Progress(event.fraction, f"Explaining document {number + 1:,} of {total:,}", number, total,
                             event.task, event.task_fraction)
        on_event(event)

    return forward
