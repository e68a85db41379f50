"""Fine-tuning on this computer: a study's training runs one after the other in its own process.

The model is found once (downloaded or read from its folder) and every run reports its steps and
its training curve under its own label (``labelled_progress``); after each run the model's memory is
freed before the next one starts (``free_memory``). Studies (``transformer_runner.py``) and learning
curves (``learning_curve_transformer.py``) fine-tune through this one strategy;
``fine_tuning_remote.py`` is the cluster's.
"""

from __future__ import annotations

import dataclasses
import gc
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Metric, Progress, sub_progress
from guiapp.core.experiment.families.fine_tuning_pieces import FineTuningOutcome, PlannedRun, describe_final
from guiapp.core.study.study_data import StudyData


class LocalFineTuning:
    """Fine-tunes in this process; ``device`` is where, ``where`` says it in the log's words."""

    def __init__(self, options: dict[str, Any], data: StudyData, on_event: EventCallback) -> None:
        from guiapp.core.models.transformers.fine_tuning import pick_device
        from guiapp.core.models.transformers.sources.resolve import resolve_model

        self.on_event = on_event
        self.path = resolve_model(options["model"], sub_progress(on_event, 0.0, 0.02))
        self.device = pick_device(options["device"])
        self.where = self.device.name
        self.texts, self.labels = np.asarray(data.texts, dtype=object), data.y

    def tune(self, runs: list[PlannedRun]) -> list[FineTuningOutcome]:
        """Each run fine-tuned and asked for its texts' probabilities; the model is not kept."""
        from guiapp.core.models.transformers.fine_tuning import fine_tune, predict_proba

        outcomes = []
        for run in runs:
            piece, forward = run.piece, labelled_progress(self.on_event, run.start, run.end, run.label)
            start = time.perf_counter()
            tuned = fine_tune(self.path, list(self.texts[piece.fit_rows]), self.labels[piece.fit_rows], piece.n_labels,
                              piece.settings, forward)
            probabilities = predict_proba(tuned, list(self.texts[piece.predict_rows]), forward)
            outcomes.append(FineTuningOutcome(probabilities, time.perf_counter() - start, list(tuned.notes)))
            del tuned
            free_memory()
        return outcomes

    def fit_finals(self, runs: list[PlannedRun]) -> list[FineTuningOutcome]:
        """Each final run (one per seed) fine-tuned, its model kept on the outcome; what the study
        reports of the model (weights, token limit, cut test texts) is read from the first."""
        from guiapp.core.models.transformers.fine_tuning import fine_tune, predict_proba

        outcomes = []
        for run in runs:
            piece = run.piece
            start = time.perf_counter()
            tuned = fine_tune(self.path, list(self.texts[piece.fit_rows]), self.labels[piece.fit_rows], piece.n_labels,
                              piece.settings, labelled_progress(self.on_event, run.start, run.end, run.label))
            seconds = time.perf_counter() - start
            if piece.thresholds:  # a multi-label model keeps (and is saved with) the study's thresholds
                tuned.thresholds = [float(value) for value in piece.thresholds]
            start = time.perf_counter()
            probabilities = predict_proba(tuned, list(self.texts[piece.predict_rows]),
                                          sub_progress(self.on_event, 0.97, 0.99))
            outcomes.append(FineTuningOutcome(probabilities, seconds, tuned.notes, tuned.n_truncated,
                                              predict_seconds=time.perf_counter() - start, model=tuned))
        describe_final(outcomes[0], outcomes[0].model, self.texts[runs[0].piece.predict_rows])
        return outcomes

    @staticmethod
    def save(outcome: FineTuningOutcome, folder: Path, categories: list[str]) -> None:
        from guiapp.core.models.transformers.fine_tuning import save_fine_tuned

        save_fine_tuned(outcome.model, folder, categories)


def labelled_progress(on_event: EventCallback, start: float, end: float, label: str) -> EventCallback:
    """``on_event`` for one training run: its progress mapped onto [start, end] and every message and
    training-curve point labelled with the run."""
    mapped = sub_progress(on_event, float(start), float(end))

    def forward(event) -> None:  # noqa: ANN001
        if isinstance(event, Progress):
            event = dataclasses.replace(event, message=f"{label}: {event.message}" if event.message else label)
        elif isinstance(event, Metric):
            event = dataclasses.replace(event, run=label)
        mapped(event)

    return forward


def free_memory() -> None:
    """Free a fine-tuned model's memory before the next one starts.

    The full cyclic garbage collection runs on the main thread (the command line), and in a worker
    thread only when a GPU is used, where a model left to the next automatic collection could make the
    next one run out of GPU memory. On the processor, in the app's worker thread, it is left out: such a
    collection could also finalise Qt objects of the window from the wrong thread, which can crash, and
    the model's memory is freed by reference counting or the next automatic collection."""
    try:
        import torch

        on_gpu = torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        on_gpu = False
    if on_gpu or threading.current_thread() is threading.main_thread():
        gc.collect()
    if on_gpu:
        torch.cuda.empty_cache()
