"""What every model of a study is run on, whichever family it belongs to: the coded texts, the
cross-validation folds, the study's settings, where the trained models are saved, where the
out-of-fold probabilities for the combined models are kept, and where the work runs. The runner
builds it once per study and hands it to the conventional, Transformer and few-shot runners."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from guiapp.core.compute.executors import Executor
from guiapp.core.experiment.protocol.out_of_fold import OutOfFold
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData

Folds = list[tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class ModelRunInputs:
    """The study's texts, folds and settings, and where a model's results go (see the module docstring)."""

    data: StudyData
    folds: Folds
    spec: ExperimentSpec
    artefacts_dir: Path | None = None  # each model's final model is saved in a folder of its own here
    out_of_fold: dict[str, OutOfFold] | None = None  # kept under the model's name for the combined models
    executor: Executor | None = None  # a remote one (a Dask cluster) takes the pieces of work
