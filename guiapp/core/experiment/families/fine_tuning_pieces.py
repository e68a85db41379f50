"""A fine-tuned Transformer's units of work: its training runs as plain data.

One :class:`FineTuningRun` is one training run — a setting on one tuning split, or the chosen setting
on all training texts with one seed — as plain data: the model's source (hub id or folder, resolved
*on the worker*, so no weights travel through the scheduler), row numbers into the study's texts
and labels (shared with the workers once per study), the training settings, and what to predict.
Its result, :class:`FineTuningOutcome`, is plain data too: probabilities, seconds, notes, and for a
final run the saved model's files (safetensors, tokenizer, label map) to be written on this computer,
because a worker's disk need not be the one the study's results go to.

A study plans its runs as :class:`PlannedRun` (the piece, its label and its share of the progress
bar) and hands them to a strategy: on this computer they are fine-tuned in the study's own process,
one after the other with their training curves (``fine_tuning_local.py``); on a cluster each piece
runs on a worker (``fine_tuning_remote.py``). Both give back a :class:`FineTuningOutcome`.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np


@dataclass(frozen=True)
class FineTuningRun:
    source: str  # the model's hub id or folder, as written in the study
    fit_rows: np.ndarray  # rows (into the shared texts and labels) to learn from
    predict_rows: np.ndarray  # rows to give probabilities for
    n_labels: int
    settings: Any  # FineTuneSettings
    categories: tuple[str, ...] = ()  # a final run: saved with these category names
    keep_model: bool = False  # a final run: return the saved model's files
    thresholds: tuple[float, ...] = ()  # a final multi-label run: each category's decision threshold, saved too

    def run(self, shared: tuple[np.ndarray, np.ndarray]) -> FineTuningOutcome:
        from guiapp.core.models.transformers.fine_tuning import fine_tune, predict_proba, save_fine_tuned
        from guiapp.core.models.transformers.sources.resolve import resolve_model

        texts, labels = shared
        start = time.perf_counter()
        path = resolve_model(self.source)
        tuned = fine_tune(path, list(texts[self.fit_rows]), labels[self.fit_rows], self.n_labels, self.settings)
        probabilities = predict_proba(tuned, list(texts[self.predict_rows]))
        outcome = FineTuningOutcome(probabilities, time.perf_counter() - start, list(tuned.notes), tuned.n_truncated,
                                    device={"kind": tuned.device.kind, "name": tuned.device.name, "bf16": tuned.device.bf16})
        if self.keep_model:
            describe_final(outcome, tuned, texts[self.predict_rows])
            with tempfile.TemporaryDirectory(prefix="textlab-model-") as folder:
                save_fine_tuned(tuned, Path(folder) / "model", list(self.categories), list(self.thresholds) or None)
                outcome.files = read_files(Path(folder) / "model")
        return outcome


@dataclass
class FineTuningOutcome:
    probabilities: np.ndarray
    seconds: float  # fitting and, on a cluster's worker, predicting too
    notes: list[str] = field(default_factory=list)
    n_truncated: int = 0  # of the texts learnt from
    device: dict = field(default_factory=dict)
    n_parameters: int = 0
    n_test_truncated: int = 0  # of the texts predicted (final runs)
    token_limit: int = 0  # the longest text in tokens the model took (final runs)
    files: dict[str, bytes] | None = None  # the saved model (final runs on a cluster)
    predict_seconds: float = 0.0  # predicting, timed apart from fitting (final runs on this computer)
    model: Any = None  # the fine-tuned model itself (final runs on this computer; never sent)


@dataclass(frozen=True)
class PlannedRun:
    """One training run of a study, with the label its progress and training curve carry and the
    span of the progress bar (``start`` to ``end``) it fills."""

    piece: FineTuningRun
    label: str
    start: float
    end: float


class FineTuningStrategy(Protocol):
    """Where a study's training runs go: ``LocalFineTuning`` (this process, one run after the other)
    or ``RemoteFineTuning`` (a cluster's workers, in parallel)."""

    device: Any  # the DeviceInfo of where the runs compute
    where: str  # the same, in the log's words

    def tune(self, runs: list[PlannedRun]) -> list[FineTuningOutcome]:
        """Each run's probabilities for its held-out texts, in the runs' order."""

    def fit_finals(self, runs: list[PlannedRun]) -> list[FineTuningOutcome]:
        """The final runs (one per seed), each with what :meth:`save` needs to keep its model."""

    def save(self, outcome: FineTuningOutcome, folder: Path, categories: list[str]) -> None:
        """Write a final run's model into ``folder``."""


def describe_final(outcome: FineTuningOutcome, tuned: Any, texts: np.ndarray) -> None:
    """Add to a final run's outcome what the study reports of its model: the number of weights, the
    token limit it read texts with, and how many of ``texts`` (the test texts) were longer."""
    from guiapp.core.models.transformers.training.truncation import encode_texts

    settings = tuned.settings
    outcome.n_parameters = int(sum(p.numel() for p in tuned.model.parameters()))
    limit = min(settings.max_length, int(getattr(tuned.model.config, "max_position_embeddings", 512) or 512))
    outcome.token_limit = limit
    outcome.n_test_truncated = encode_texts(tuned.tokenizer, list(texts), limit, settings.truncation).n_truncated


def read_files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path (forward slashes)."""
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def write_files(files: dict[str, bytes], folder: Path) -> None:
    """Write a model's files (from :func:`read_files`) into ``folder``; a path that would leave the
    folder is refused (the files came over the network)."""
    folder.mkdir(parents=True, exist_ok=True)
    root = folder.resolve()
    for name, content in files.items():
        target = (folder / name).resolve()
        if root not in target.parents:
            raise ValueError(f"a model file outside its folder: {name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
