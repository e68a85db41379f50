"""What a study and a learning curve do alike for each of their models: map the model's events onto
the whole job, and turn the texts into a representation's prepared form once per study for every
model that shares the representation and its options."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from guiapp.core.events import EventCallback, Metric, Progress, sub_progress
from guiapp.core.study.sections import ModelSpec

PreparedCache = dict[str, tuple[Any, Any]]  # representation and options → (representation, prepared texts)


def model_events(on_event: EventCallback, index: int, n_models: int, name: str,
                 span: tuple[float, float] | None = None) -> EventCallback:
    """``on_event`` for model ``index`` of ``n_models``: its progress becomes its share of the job's
    (after the 2 % that reading the texts takes) — ``span``, the part of the remaining 98 % it stands
    for (from its expected time: ``progress_spans``), else an equal share — and is labelled with the
    model's name; its training-curve points and progress name it as task ``index``."""
    start, end = span if span is not None else (index / n_models, (index + 1) / n_models)

    def report(event) -> None:  # noqa: ANN001
        if isinstance(event, Metric):
            event = dataclasses.replace(event, task=index)
        elif isinstance(event, Progress):
            fraction = min(max(event.fraction or 0.0, 0.0), 1.0)
            event = Progress(0.02 + 0.98 * (start + (end - start) * fraction),
                             f"{name} — {event.message}" if event.message else name,
                             event.done, event.total, task=index, task_fraction=fraction)
        on_event(event)

    return report


def progress_spans(seconds: Sequence[float | None]) -> list[tuple[float, float]] | None:
    """Each model's part of a job's progress, in proportion to its expected ``seconds`` (each at least
    a fiftieth of the whole, so a quick model still moves the bar), so that a quick model does not
    take half the bar and make the time left leap when a slow one follows; None when a time is unknown."""
    if not seconds or any(value is None or value < 0 for value in seconds):
        return None
    total = sum(float(value or 0.0) for value in seconds)
    if total <= 0:
        return None
    weights = [max(float(value or 0.0), total / 50) for value in seconds]
    edges = [0.0]
    for weight in weights:
        edges.append(edges[-1] + weight / sum(weights))
    edges[-1] = 1.0
    return list(pairwise(edges))


def prepared_texts(model: ModelSpec, texts: Sequence[str], cache: PreparedCache, on_event: EventCallback,
                   share: float) -> tuple[Any, Any]:
    """The model's representation (not fitted) and ``texts`` in its prepared form (tokenised and
    counted, embedded …), prepared only when ``cache`` has no preparation for the same
    representation and options; preparing reports progress from 0 to ``share``."""
    from guiapp.core.features import make_representation

    representation = make_representation(model.representation, model.representation_options)
    key = json.dumps([model.representation, representation.get_params()], sort_keys=True, default=str)
    if key not in cache:
        on_event(Progress(0.0, "turning the texts into numbers"))
        cache[key] = (representation, representation.prepare(texts, on_event=sub_progress(on_event, 0.0, share)))
    return representation, cache[key][1]


def now() -> str:
    """The time now (UTC, to the second) as results record when a job started and finished."""
    return datetime.now(UTC).isoformat(timespec="seconds")
