"""How the Models step words its study: how the models are tested, how the fine-tuned Transformer's
setting is chosen, and which settings differ from the paper's defaults (named as on screen)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from guiapp.core.models.conventional import CLASSIFIERS
from guiapp.core.study.sections import REPRESENTATION_LABELS, EvaluationSpec
from guiapp.ui.steps.models import advanced_setfit
from guiapp.ui.steps.models.advanced_preprocessing import LABELS as OPTION_LABELS
from guiapp.ui.steps.models.advanced_settings import FINE_TUNE, SETFIT, TRANSFORMER, StudySettings
from guiapp.ui.steps.models.advanced_transformer import OPTION_NAMES as TRANSFORMER_OPTION_NAMES

if TYPE_CHECKING:
    from guiapp.ui.steps.models.transformer_choice import TransformerChoice


def evaluation_sentence(evaluation: EvaluationSpec, split_column: str | None, n_checked: int,
                    transformer: TransformerChoice | None, zero_shot: bool, codebook_llm: bool = False) -> str:
    """How the models are tested, in one plain sentence: ``split_column`` marks the test texts (None: drawn
    at random), ``transformer`` is the Transformer's section when it is ticked, ``zero_shot`` whether a
    zero-shot model is."""
    if split_column:
        first = f"The texts marked as test in your split column “{split_column}” are kept aside for the final test"
    else:
        first = f"{evaluation.test_share * 100:g} % of the coded texts are kept aside for the final test"
    tuning = f"settings are tuned by {evaluation.folds}-fold cross-validation on the rest"
    if evaluation.oversampling == "random":
        ratio = evaluation.oversampling_ratio
        share = "a quarter" if math.isclose(ratio, 0.25) else f"{ratio * 100:g} %"
        imbalance = (f"smaller categories are oversampled at random to {share} of the largest one "
                     "(training texts only)")
    else:
        imbalance = "smaller categories are not oversampled"
    text = f"{first}; {tuning}; {imbalance}."
    if evaluation.combine and n_checked >= 2:
        text += (" Two combined models of the ticked models (a weighted vote and a stacking) are built too, "
                 "and tested like the others.")
    if transformer is not None:
        text += " " + transformer_tuning_sentence(evaluation, transformer)
    if zero_shot:
        text += (" The zero-shot models learn nothing from the coded texts: they are scored on the same folds "
                 "and test texts only, so they can be compared with the others.")
    if codebook_llm:
        text += (" The language model with your codebook learns nothing either: its prompts are compared on the same "
                 "folds, with coded examples drawn only from each fold's training texts, and the best prompt is "
                 "scored on the same test texts.")
    return text


def transformer_tuning_sentence(evaluation: EvaluationSpec, transformer: TransformerChoice) -> str:
    """How the Transformer's setting is chosen, in one sentence (with or without the GPU its section found)."""
    split = f"one validation split ({evaluation.validation_share * 100:g} % of the training texts)"
    folds = f"{evaluation.folds}-fold cross-validation"
    if evaluation.transformer_tuning == "cross-validation":
        return f"The Transformer's settings are chosen by {folds} as well."
    if evaluation.transformer_tuning == "validation split":
        return f"The Transformer's settings are chosen on {split}."
    if transformer.device() is None:
        return f"The Transformer's settings are chosen by {folds} with a GPU, else on {split}."
    if transformer.on_gpu():
        return f"The Transformer's settings are chosen by {folds} as well (it trains on a GPU)."
    return f"The Transformer's settings are chosen on {split}, as it trains without a GPU."


def changed_settings_sentence(settings: StudySettings) -> str:
    """The settings that differ from the paper's defaults, named as on screen ("" when none does)."""
    parts = []
    if settings.seed != StudySettings().seed:
        parts.append(f"random seed {settings.seed}")
    default_evaluation = EvaluationSpec()
    if settings.evaluation.bootstrap_samples != default_evaluation.bootstrap_samples:
        parts.append(f"{settings.evaluation.bootstrap_samples} resamples for the interval")
    if not settings.evaluation.combine:
        parts.append("no combined models")
    if settings.evaluation.tune_thresholds:
        parts.append("each category's threshold tuned on the training texts")
    if settings.evaluation.transformer_choice != default_evaluation.transformer_choice:
        parts.append("the Transformer's top-scoring setting (the paper's rule)")
    if settings.evaluation.transformer_seeds != default_evaluation.transformer_seeds:
        parts.append(f"the Transformer fine-tuned with {settings.evaluation.transformer_seeds} seeds")
    for representation, options in settings.options.items():
        if representation == TRANSFORMER:
            names = ", ".join(TRANSFORMER_OPTION_NAMES.get(name, name) for name in options)
        elif representation == SETFIT:
            names = ", ".join(advanced_setfit.OPTION_NAMES.get(name, name) for name in options)
        else:
            names = ", ".join(OPTION_LABELS.get(name, name).lower() for name in options)
        parts.append(f"{REPRESENTATION_LABELS[representation]}: {names}")
    for classifier, grid in settings.grids.items():
        if classifier == FINE_TUNE:
            names = ", ".join({"learning_rate": "learning rates"}.get(name, name) for name in grid)
            parts.append(f"Transformer settings to try: {names}")
            continue
        if classifier == SETFIT:
            names = ", ".join(advanced_setfit.GRID_LABELS.get(name, name).lower() for name in grid)
            parts.append(f"SetFit settings to try: {names}")
            continue
        info = CLASSIFIERS[classifier]
        names = ", ".join(info.parameters[name].label for name in grid)
        parts.append(f"{info.label} settings to try: {names}")
    return ("Changed from the paper's defaults: " + "; ".join(parts) + ".") if parts else ""
