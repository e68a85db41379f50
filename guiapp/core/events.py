"""Progress and log events that long-running core functions report through a callback.

Core functions that take more than a moment accept ``on_event: EventCallback`` and call it
often. To cancel, the callback raises :class:`Cancelled` — a ``BaseException`` subclass, so no
``except Exception`` in the core swallows it; the core cleans up in ``finally``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal


class Cancelled(BaseException):
    """Raised (usually from an event callback) to stop a running job at the next checkpoint."""


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a job has come. ``fraction`` is in [0, 1] or None when unknown."""

    fraction: float | None
    message: str = ""
    done: int | None = None
    total: int | None = None
    task: int | None = None  # which part of the job (e.g. the model's position in the study)
    task_fraction: float | None = None  # how far that part has come, in [0, 1]


@dataclass(frozen=True, slots=True)
class Log:
    """A line for the job's log, in plain words."""

    message: str
    level: Literal["info", "warning", "error"] = "info"


@dataclass(frozen=True, slots=True)
class TaskUpdate:
    """A part of a job changed state: e.g. one model of a study started, finished or failed.

    Never throttled or dropped, unlike :class:`Progress`. ``payload`` carries the part's result
    when it is done (for a study: the model's ``ModelResult``).
    """

    task: int
    state: Literal["running", "done", "failed", "cancelled"]
    message: str = ""
    payload: object = None


@dataclass(frozen=True, slots=True)
class Metric:
    """A measured value at a step of a job, e.g. the training loss after each optimizer step
    (``Metric("loss", 37, 0.41, 164)``), for live charts. ``total`` is the number of steps."""

    name: str
    step: int
    value: float
    total: int | None = None
    task: int | None = None  # which part of the job (the model's position in the study)
    run: str = ""  # which training run of that part, e.g. "fold 2, learning rate 1e-4, 3 epochs"


Event = Progress | Log | TaskUpdate | Metric
EventCallback = Callable[[Event], None]


def ignore_events(event: Event) -> None:
    """The default callback: report nothing, never cancel."""


def sub_progress(on_event: EventCallback, start: float, end: float) -> EventCallback:
    """Map the fractions of a sub-task onto ``[start, end]`` of the parent's progress."""

    span = end - start

    def forward(event: Event) -> None:
        if isinstance(event, Progress) and event.fraction is not None:
            fraction = start + span * min(max(event.fraction, 0.0), 1.0)
            event = Progress(
                fraction, event.message, event.done, event.total, event.task, event.task_fraction
            )
        on_event(event)

    return forward
