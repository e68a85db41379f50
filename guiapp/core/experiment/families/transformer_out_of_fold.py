"""Out-of-fold probabilities of a fine-tuned Transformer (or SetFit) for *all* training texts, where affordable.

Tuned on one validation split (the default without a GPU), a Transformer has held-out probabilities
for the validation texts only — a fifth of the training texts — and the combined models would be
learnt on those few. Where fine-tuning is cheap (on a GPU, or a small model on few texts), the
chosen setting is fine-tuned once more in each cross-validation fold, so every training text gets
probabilities from a fit that never saw it. "Cheap" is an expected time for these extra fits of at
most ``AFFORDABLE_SECONDS``, from the same estimate as the study's expected time. SetFit tuned on
one validation split follows the same rule (:func:`setfit_out_of_fold_fits`).
"""

from __future__ import annotations

from guiapp.core.experiment.speed import estimates
from guiapp.core.study.sections import ModelSpec

AFFORDABLE_SECONDS = 600.0  # the extra fine-tunings may add up to ten minutes to a study


def out_of_fold_fits(model: ModelSpec, n_train: int, folds: int, *, validation_split: bool, combined: bool,
                     on_gpu: bool, mean_tokens: float | None = None) -> int:
    """How many extra fine-tunings give the Transformer held-out probabilities for every training text:
    ``folds`` when its tuning left most texts without them, combined models are learnt and they are
    affordable, else 0."""
    if not (validation_split and combined) or n_train <= 0:
        return 0
    seconds = estimates.transformer_out_of_fold_seconds(model, n_train, folds, on_gpu=on_gpu, mean_tokens=mean_tokens)
    return folds if seconds <= AFFORDABLE_SECONDS else 0


def setfit_out_of_fold_fits(model: ModelSpec, n_train: int, folds: int, *, validation_split: bool, combined: bool,
                            on_gpu: bool = False, mean_tokens: float | None = None) -> int:
    """How many extra SetFit training runs give held-out probabilities for every training text (the
    fine-tuned Transformer's rule above): ``folds`` when its tuning on one
    validation split left most texts without them, combined models are learnt, and the runs are
    expected to take at most ``AFFORDABLE_SECONDS``; else 0."""
    from guiapp.core.experiment.speed.few_shot_estimates import setfit_out_of_fold_seconds

    if not (validation_split and combined) or n_train <= 0 or folds < 2:
        return 0
    try:
        seconds = setfit_out_of_fold_seconds(model, n_train, folds, on_gpu=on_gpu, mean_tokens=mean_tokens)
    except (ValueError, KeyError, OSError):
        return 0
    return folds if seconds <= AFFORDABLE_SECONDS else 0
