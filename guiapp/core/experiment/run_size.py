"""How big a study is before it runs: the number of fits and the expected time.

A conventional model is fitted once per grid setting on every cross-validation fold, then once
more (the chosen setting) on all training texts; a fine-tuned Transformer once per setting on
every tuning split (k folds, or one validation split), then once more. The time comes from
``estimates.py``. Above :data:`LARGE_RUN_FITS` fits, ``textlab run`` prints a warning and the
app asks before it starts (neither refuses: a large grid can be what the researcher wants).
"""

from __future__ import annotations

from dataclasses import dataclass

from guiapp.core.errors import UserError
from guiapp.core.experiment.estimates import describe_duration, estimate_seconds, transformer_tuning_splits
from guiapp.core.models.conventional import expand_grid
from guiapp.core.study.spec import ExperimentSpec

LARGE_RUN_FITS = 2_000


@dataclass(frozen=True)
class RunSize:
    fits: int
    seconds: float | None  # None when the texts are not known yet

    @property
    def large(self) -> bool:
        return self.fits > LARGE_RUN_FITS

    @property
    def duration(self) -> str:
        return "" if self.seconds is None else describe_duration(self.seconds)

    def describe(self) -> str:
        """"This study fits 65 models (…), about 2 minutes on this computer."."""
        time = f", {self.duration} on this computer" if self.duration else ""
        return (f"This study fits {self.fits:,} models (every setting on every fold, then the chosen one on "
                f"all training texts){time}.")

    def warning(self) -> str:
        time = f" and takes {self.duration} on this computer" if self.duration else ""
        return (f"This is a large study: it fits {self.fits:,} models{time}. A grid with fewer values or fewer "
                "folds makes it quicker; press Ctrl+C to stop it.")


def count_fits(spec: ExperimentSpec, on_gpu: bool = False) -> int:
    """Settings × tuning splits, plus one final fit, summed over the study's models."""
    from guiapp.core.models.transformers.options import expand_transformer_grid

    evaluation = spec.evaluation
    total = 0
    for model in spec.models:
        if model.representation == "transformer":
            points = len(expand_transformer_grid(model.grid, str(model.representation_options.get("model") or "all-MiniLM-L6-v2")))
            total += points * transformer_tuning_splits(evaluation.transformer_tuning, on_gpu,
                                                        evaluation.folds * evaluation.cv_repeats) + 1
        else:
            total += len(expand_grid(model.classifier, model.grid)) * evaluation.folds * evaluation.cv_repeats + 1
    return total


def estimate_run(
    spec: ExperimentSpec,
    n_train: int | None = None,
    n_test: int = 0,
    n_categories: int = 2,
    n_jobs: int | None = None,
    *,
    on_gpu: bool = False,
) -> RunSize:
    """The study's fits and, when the number of training texts is known, its expected seconds."""
    fits = count_fits(spec, on_gpu)
    if n_train is None:
        return RunSize(fits, None)
    evaluation = spec.evaluation
    try:
        seconds = sum(
            estimate_seconds(model, n_train, n_test, n_categories, evaluation.folds, n_jobs, on_gpu=on_gpu,
                             tuning=evaluation.transformer_tuning, validation_share=evaluation.validation_share)
            for model in spec.models
        )
        k = evaluation.folds  # repeated cross-validation: r × (k - 1) tuning fits' worth instead of k - 1
        seconds *= (evaluation.cv_repeats * (k - 1) + 1) / k
    except (UserError, ValueError, OSError, KeyError):  # a model the estimate does not know: no time
        return RunSize(fits, None)
    return RunSize(fits, seconds)
