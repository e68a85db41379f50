"""Taking over an opened study on the Models step: the models to tick and the advanced settings.

A representation's options (a classifier's grid) are taken from the first model that uses it; the
step keeps one set per kind, so what the study gives other models of the same kind is named instead.
The models that need few or no coded texts are taken over by their own section (``few_shot_choice``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from guiapp.core.errors import UserError
from guiapp.core.models.conventional import CLASSIFIERS
from guiapp.core.models.transformers.options import DEFAULT_MODEL, DEFAULT_OPTIONS, normalise_transformer_grid
from guiapp.core.study.sections import REPRESENTATION_LABELS
from guiapp.core.study.spec import ExperimentSpec
from guiapp.ui.steps.models import advanced_setfit
from guiapp.ui.steps.models.advanced_settings import (
    FINE_TUNE,
    SETFIT,
    TRANSFORMER,
    TRANSFORMER_PAIR,
    StudySettings,
    changed_grid,
)
from guiapp.ui.steps.models.codebook_llm_choice import CODEBOOK_PAIRS
from guiapp.ui.steps.models.few_shot_choice import FEW_SHOT_PAIRS, SETFIT_PAIR
from guiapp.ui.steps.models.model_choice import Pair


def transformer_changed_grid(grid: dict, model: str) -> dict:
    """The Transformer grid settings that differ from the model's defaults (all of it if unreadable)."""
    try:
        full = normalise_transformer_grid(grid, model)
        default = normalise_transformer_grid({}, model)
    except (UserError, OSError):
        return dict(grid)
    return {name: values for name, values in full.items() if values != default[name]}


@dataclass
class OpenedStudy:
    """What the Models step takes over from a study."""

    settings: StudySettings
    pairs: list[Pair]  # the grid's models to tick
    transformer_model: str | None  # the fine-tuned Transformer's model; None when the study has none
    skipped: int  # models this step cannot show
    differing: set[str]  # the kinds of model the study gives settings other than the first one's


def take_over(spec: ExperimentSpec, available: set[Pair]) -> OpenedStudy:
    """The models and settings of ``spec`` as the Models step shows them (``available``: the grid's models)."""
    from guiapp.core.features.registry import default_options

    options: dict[str, dict] = {}
    grids: dict[str, dict] = {}
    pairs: list[Pair] = []
    skipped = 0
    differing: set[str] = set()
    transformers = [model for model in spec.models if (model.representation, model.classifier) == TRANSFORMER_PAIR]
    if transformers:
        first = transformers[0]
        model_name = str(first.representation_options.get("model") or DEFAULT_MODEL)
        options[TRANSFORMER] = {
            key: value for key, value in first.representation_options.items()
            if key != "model" and DEFAULT_OPTIONS.get(key, object()) != value
        }
        grids[FINE_TUNE] = transformer_changed_grid(first.grid, model_name)
        if len(transformers) > 1:
            differing.add(f"{len(transformers)} fine-tuned Transformers: only the first is shown")
    setfit = next((model for model in spec.models if (model.representation, model.classifier) == SETFIT_PAIR), None)
    if setfit is not None:  # a second SetFit is named by the few-shot group's notes
        options[SETFIT] = advanced_setfit.changed_options(setfit.representation_options)
        grids[SETFIT] = advanced_setfit.changed_grid(setfit.grid)
    for model in spec.models:
        pair = (model.representation, model.classifier)
        if pair == TRANSFORMER_PAIR or pair in FEW_SHOT_PAIRS or pair in CODEBOOK_PAIRS:  # their own sections
            continue
        if pair not in available:
            skipped += 1
            continue
        pairs.append(pair)
        defaults = default_options(model.representation)
        changed = {
            key: value for key, value in model.representation_options.items() if defaults.get(key, object()) != value
        }
        if model.representation not in options:
            options[model.representation] = changed
        elif options[model.representation] != changed:
            differing.add(REPRESENTATION_LABELS.get(model.representation, model.representation))
        grid = changed_grid(model.classifier, model.grid)
        if model.classifier not in grids:
            grids[model.classifier] = grid
        elif grids[model.classifier] != grid:
            differing.add(f"{CLASSIFIERS[model.classifier].label} grid")
    settings = StudySettings(
        evaluation=copy.deepcopy(spec.evaluation),
        seed=spec.seed,
        options={key: value for key, value in options.items() if value},
        grids={key: value for key, value in grids.items() if value},
    )
    return OpenedStudy(settings, pairs, model_name if transformers else None, skipped, differing)
