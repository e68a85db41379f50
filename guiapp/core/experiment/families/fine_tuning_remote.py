"""Fine-tuning on a cluster: every training run of a study is a piece of work for a remote
``Executor`` (a Dask cluster, ``core/compute/executors.py``).

The study's texts and labels are shared with the workers once; the runs go in parallel, one per
GPU, each resolving the model on its worker (``FineTuningRun`` in ``fine_tuning_pieces.py``), and
the progress bar moves as runs finish. A final run sends its saved model's files back, and they are
written here. ``fine_tuning_local.py`` is the strategy for this computer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.compute.executors import Executor
from guiapp.core.events import EventCallback, Progress
from guiapp.core.experiment.families.fine_tuning_pieces import FineTuningOutcome, PlannedRun, write_files
from guiapp.core.experiment.protocol.work_pieces import run_piece
from guiapp.core.study.study_data import StudyData


class RemoteFineTuning:
    """Fine-tunes on the executor's workers; ``device`` is a worker's (a GPU when one has it), then,
    after the final runs, the one the final model was trained on."""

    def __init__(self, options: dict[str, Any], data: StudyData, on_event: EventCallback, executor: Executor) -> None:
        from guiapp.core.models.transformers.fine_tuning import DeviceInfo

        self.on_event, self.executor = on_event, executor
        devices: list[DeviceInfo] = executor.ask_workers(_device_on_worker, options["device"])
        self.device = next((found for found in devices if found.kind == "cuda"), devices[0])
        self.where = f"the cluster's workers ({self.device.name})"
        self.shared = executor.share((np.asarray(data.texts, dtype=object), data.y))

    def tune(self, runs: list[PlannedRun]) -> list[FineTuningOutcome]:
        return self._run_all(runs, "tuning on the cluster")

    def fit_finals(self, runs: list[PlannedRun]) -> list[FineTuningOutcome]:
        from guiapp.core.models.transformers.fine_tuning import DeviceInfo

        outcomes = self._run_all(runs, "final model on the cluster")
        self.executor.forget()
        self.device = DeviceInfo(**outcomes[0].device)
        return outcomes

    @staticmethod
    def save(outcome: FineTuningOutcome, folder: Path, categories: list[str]) -> None:
        """Save a model fine-tuned on the cluster: its files, as the worker saved them."""
        assert outcome.files is not None
        write_files(outcome.files, folder)

    def _run_all(self, runs: list[PlannedRun], message: str) -> list[FineTuningOutcome]:
        def tick(done: int) -> None:  # the bar stands at the end of the runs finished so far
            reached = runs[done - 1].end if done else runs[0].start
            self.on_event(Progress(float(reached), f"{message}: {done} of {len(runs)} training runs finished"))

        return self.executor.map_calls(tick, run_piece, [(run.piece, self.shared) for run in runs], fine_tuning=True)


def _device_on_worker(preference: str):  # noqa: ANN202 — runs on each Dask worker
    from guiapp.core.models.transformers.fine_tuning import pick_device

    return pick_device(preference)
