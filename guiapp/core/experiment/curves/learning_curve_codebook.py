"""The learning curve of a language model with your codebook (``learning_curves.py``).

The model learns nothing from the coded texts; what coded texts change is the examples it is shown.
So its curve is not over the number of training texts but over ``k``, the coded examples per
category in its prompt: k = 0 (zero-shot), 1, 2, 4, 8 … up to the largest k of its grid (at least
8, so that the curve has points), each k drawn from all the study's training texts and scored once
on the study's test texts — the same test texts and scores as every other curve (macro-F1 and each
category's F1, :class:`~.learning_curve_results.CurvePoint`, whose ``size`` here is k). Each of the
curve's random draws draws other examples (with the draw's seed), so the band shows how much the
choice of examples matters; k = 0 draws nothing and is answered once for every draw. The
instruction is the grid's first (TextLab's default, or the researcher's own). Where a text can have
several categories a text is put in every category whose P(yes) reaches 0.5.

The curve says which axis it has (:data:`EXAMPLES_AXIS` in :attr:`ModelCurve.axis`), so that it is
never read as a curve over the training texts.
"""

from __future__ import annotations

import time
from typing import Any

from guiapp.core.events import EventCallback, Log, Progress, sub_progress
from guiapp.core.experiment.curves.learning_curve_results import EXAMPLES_AXIS, CurvePoint, ModelCurve
from guiapp.core.experiment.curves.nested_subsets import CurvePlan
from guiapp.core.experiment.families.transformer_decisions import Decisions
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData

SMALLEST_LARGEST_K = 8  # the curve goes at least this far, whatever the grid's largest k


def curve_ks(grid_ks: list[int]) -> list[int]:
    """k = 0, 1, 2, 4, 8 … up to the grid's largest k (at least :data:`SMALLEST_LARGEST_K`), the
    grid's own values included."""
    largest = max([SMALLEST_LARGEST_K, *grid_ks])
    ks = {0, *grid_ks}
    k = 1
    while k <= largest:
        ks.add(k)
        k *= 2
    return sorted(value for value in ks if value <= largest)


def codebook_curve(model: ModelSpec, data: StudyData, plan: CurvePlan, spec: ExperimentSpec,
                   on_event: EventCallback) -> ModelCurve:
    """The codebook language model's curve over k (see the module docstring)."""
    from guiapp.core.experiment.families.codebook_runner import study_positions
    from guiapp.core.models.few_shot_options import category_descriptions
    from guiapp.core.models.llm.codebook_options import (
        codebook_llm_options,
        codebook_model_for,
        describe_codebook_params,
        expand_codebook_grid,
    )
    from guiapp.core.study.model_sources import check_codebook_source

    total_start = time.perf_counter()
    name = model.display_name
    options = codebook_llm_options(model.classifier, dict(model.representation_options or {}))
    check_codebook_source(model.classifier, options)
    categories = list(data.categories)
    descriptions, notes = category_descriptions(categories, options["descriptions"])
    used = {**options, "descriptions": descriptions,
            "examples": {c: texts for c, texts in options["examples"].items() if c in categories}}
    points = expand_codebook_grid(model.grid, own_instruction=options["instruction"] is not None)
    instruction = points[0]["instruction"]
    ks = curve_ks([point["k"] for point in points])
    train, test = data.split.train, data.split.test
    positions = study_positions(data)
    train_texts, train_positions = [data.texts[i] for i in train], [positions[i] for i in train]
    test_texts, test_positions = [data.texts[i] for i in test], [positions[i] for i in test]
    decide = Decisions.for_study(data.y)
    on_event(Log(f"{name}: learns nothing from the coded texts, so its curve is over the examples per category it "
                 f"is shown (k = {', '.join(map(str, ks))}), drawn from all {len(train):,} training texts "
                 f"{'in each of the ' + str(plan.repeats) + ' draws ' if plan.repeats > 1 else ''}and scored on "
                 f"the same {len(test):,} test texts."))
    runs = [(k, repeat) for k in ks for repeat in (range(1) if k == 0 else range(plan.repeats))]
    found: list[CurvePoint] = []
    for number, (k, repeat) in enumerate(runs):
        span = (0.02 + 0.96 * number / len(runs), 0.02 + 0.96 * (number + 1) / len(runs))
        on_event(Progress(span[0], f"{describe_codebook_params({'k': k})}, draw {repeat + 1}"))
        begun = time.perf_counter()
        scorer: Any = codebook_model_for(model.classifier, used, categories, {"k": k, "instruction": instruction},
                                         multi_label=data.multi_label, seed=int(plan.seeds[repeat]))
        if k:
            scorer.fit(train_texts, data.y[train], train_positions, scored_texts=test_texts)
        probabilities = scorer.predict_proba(test_texts, sub_progress(on_event, *span), positions=test_positions)
        found.append(CurvePoint.scored(k, repeat + 1, data.y[test], decide(probabilities), len(categories),
                                       time.perf_counter() - begun))
    shared = [CurvePoint(0, repeat, found[0].macro_f1, list(found[0].category_f1), 0.0)
              for repeat in range(2, plan.repeats + 1)]
    curve_points = sorted([*found, *shared], key=lambda point: (point.size, point.repeat))
    on_event(Progress(1.0, "done"))
    return ModelCurve(
        name=name, representation=model.representation, classifier=model.classifier,
        spec={**model.to_dict(), "representation_options": used, "notes": notes, "instruction": instruction,
              "ks": ks},
        tuning=[], points=curve_points, axis=EXAMPLES_AXIS,
        seconds={"fits": round(sum(point.seconds for point in found), 4),
                 "total": round(time.perf_counter() - total_start, 4)},
    )
