"""The splits of the training texts a model's setting is chosen on when it trains slowly (fine-tuned
Transformers, SetFit): the study's own folds, or one stratified validation split — iteratively
stratified where a text can have several categories."""

from __future__ import annotations

import numpy as np

from guiapp.core.experiment.families.transformer_decisions import multi_label_validation_split
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData

Folds = list[tuple[np.ndarray, np.ndarray]]
CROSS_VALIDATION = "cross-validation"


def splits_for(data: StudyData, folds: Folds, spec: ExperimentSpec, how: str) -> tuple[Folds, str]:
    """``folds`` when ``how`` is cross-validation, else one validation split of
    ``spec.evaluation.validation_share`` of the training texts; and how, in words."""
    if how == CROSS_VALIDATION:
        return folds, f"{len(folds)}-fold cross-validation"
    from sklearn.model_selection import train_test_split

    share = spec.evaluation.validation_share
    y = data.y[data.split.train]
    if y.ndim == 2:  # several categories per text: iterative stratification
        fit, valid = multi_label_validation_split(y, share, spec.seed)
    else:
        fit, valid = train_test_split(np.arange(len(y)), test_size=share, stratify=y, random_state=spec.seed)
    return [(np.sort(fit), np.sort(valid))], f"one validation split ({share:.0%} of the training texts)"
