"""Which explanation a trained model gets, and explaining one document or a whole test set.

An exact method wherever the model allows one, since then the colours are the model's own
arithmetic rather than an estimate:

- linear models (logistic regression, linear-kernel SVM) on a bag of words or on word vectors,
  and naive Bayes on a bag of words → exact linear contributions;
- XGBoost on a bag of words → XGBoost's exact tree contributions (SHAP);
- fine-tuned Transformers → integrated gradients (or, when asked, leaving words out);
- everything else (sentence embeddings, XGBoost or an RBF SVM on word vectors, …) → leaving
  words out, which only needs the model's answers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import Event, EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.explain.attribution import (
    INTEGRATED_GRADIENTS,
    LINEAR_EXACT,
    METHOD_NAMES,
    OCCLUSION,
    TREE_SHAP,
    Attribution,
)
from guiapp.core.explain.linear_contributions import explain_linear, is_linear
from guiapp.core.explain.occlusion import explain_by_occlusion
from guiapp.core.explain.tree_contributions import explain_tree, is_tree_on_words
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel

AUTO = "auto"


def _knows_target(model: TrainedModel, target: int) -> bool:
    classes = getattr(getattr(model, "classifier", None), "textlab_classes_", None)
    return classes is None or target in np.asarray(classes).tolist()


def available_methods(model: TrainedModel) -> list[str]:
    """The methods that can explain this model, best first."""
    if model.family == "transformer":
        return [INTEGRATED_GRADIENTS, OCCLUSION]
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
        target, probability = int(decisions[0]), float(probabilities[0, int(decisions[0])])
    chosen = method_for(model, method, target)
    if chosen == INTEGRATED_GRADIENTS:
        from guiapp.core.explain.transformer_attributions import explain_transformer

        return explain_transformer(model, text, target, steps=steps, on_event=on_event)
    if chosen == LINEAR_EXACT:
        return explain_linear(model, text, target, probability)
    if chosen == TREE_SHAP:
        return explain_tree(model, text, target, probability)
    return explain_by_occlusion(model, text, target, on_event=on_event)


def explain_documents(
    model: TrainedModel,
    texts: Sequence[str],
    targets: Sequence[int] | None = None,
    *,
    method: str = AUTO,
    steps: int = 50,
    on_event: EventCallback = ignore_events,
) -> list[Attribution]:
    """:func:`explain_document` for every text ("explain all test documents").

    Without ``targets`` each text is explained toward the category the model predicts for it
    (one batched ``answer()`` call first). Progress is reported per document, and within a
    document for the slow methods; raising ``Cancelled`` from ``on_event`` stops between steps.
    """
    total = len(texts)
    probabilities: np.ndarray | None = None
    if targets is None:
        on_event(Progress(0.0, f"Reading the model's answers for {total:,} documents", 0, total))
        decisions, probabilities = model.answer(list(texts)) if total else (np.zeros(0, int), None)
        targets = [int(d) for d in decisions]
    if len(targets) != total:
        raise ValueError("one target per text is needed")
    out: list[Attribution] = []
    for number, (text, target) in enumerate(zip(texts, targets, strict=True)):
        on_event(Progress(number / max(total, 1), f"Explaining document {number + 1:,} of {total:,}", number, total))
        inner = sub_progress(_as_document_progress(on_event, number, total), number / total, (number + 1) / total)
        known = None if probabilities is None else float(probabilities[number, target])
        out.append(explain_document(model, text, int(target), method=method, steps=steps, on_event=inner,
                                    probability=known))
    on_event(Progress(1.0, f"Explained {total:,} documents", total, total))
    return out


def _as_document_progress(on_event: EventCallback, number: int, total: int) -> EventCallback:
    """Inner progress of one document, shown as the document's own line."""

    def forward(event: Event) -> None:
        if isinstance(event, Progress):
            event = Progress(event.fraction, f"Explaining document {number + 1:,} of {total:,}", number, total,
                             event.task, event.task_fraction)
        on_event(event)

    return forward
