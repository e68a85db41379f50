"""What a study and a learning curve do alike for each of their models: map the model's events onto
the whole job, and turn the texts into a representation's prepared form once per study for every
model that shares the representation and its options."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from guiapp.core.events import EventCallback, Metric, Progress, sub_progress
from guiapp.core.study.sections import ModelSpec

PreparedCache = dict[str, tuple[Any, Any]]  # representation and options → (representation, prepared texts)


def model_events(on_event: EventCallback, index: int, n_models: int, name: str) -> EventCallback:
    """``on_event`` for model ``index`` of ``n_models``: its progress becomes its share of the job's
    (after the 2 % that reading the texts takes) and is labelled with the model's name; its
    training-curve points and progress name it as task ``index``."""

    def report(event) -> None:  # noqa: ANN001
        if isinstance(event, Metric):
            event = dataclasses.replace(event, task=index)
        elif isinstance(event, Progress):
            fraction = min(max(event.fraction or 0.0, 0.0), 1.0)
            event = Progress(0.02 + 0.98 * (index + fraction) / n_models,
                             f"{name} — {event.message}" if event.message else name,
                             event.done, event.total, task=index, task_fraction=fraction)
        on_event(event)

    return report


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
