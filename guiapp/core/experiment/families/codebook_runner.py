"""A language model with your codebook inside a study: compared like every other model — the same
folds, the same test texts, metrics, combined models and saved model.

The model learns nothing from the coded texts; what the study tunes is the prompt. Its grid is the
prompt's variants: ``k`` coded examples per category (0: zero-shot) and which wording of TextLab's
instruction (``instruction`` -1: the researcher's own). Every variant answers every training text
once, on the study's folds (the first repetition only, so each training text is answered once: a
repetition would only draw other examples): in each fold the examples are drawn only from the
fold's other training texts (never from the texts it answers, checked by row and by text), and its
macro-F1 on the fold's held-out texts is the variant's fold score. A variant without examples
(k = 0) reads every training text once for all folds, since nothing is drawn. The variant with the
best mean macro-F1 is chosen (ties: the first, which shows the fewest examples); its answers to the
held-out texts are its out-of-fold probabilities for the combined models and, where a text can have
several categories and the study asks, what each category's decision threshold is tuned on.

The final model draws its examples from all training texts and answers the test texts; it is saved
(``codebook_model.json``) so that it can code new texts later. For the prompt-sensitivity report
(``scores/prompt_sensitivity.py``) the same final examples are shown under each other wording of the
instruction and those prompts answer the test texts too. ``spec["record"]`` is the final model's
record (model, weights' SHA-256 or the server's digest, prompt and its hash, k, seed, …).

Progress runs over the whole work, weighed by the prompts read and their length; Cancel reaches the
language model between batches (inside TextLab) or between questions (on a server).
"""

from __future__ import annotations

import time
from itertools import pairwise
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Log, Progress, sub_progress
from guiapp.core.experiment.families.few_shot_runner import save_final_model, tested_answers
from guiapp.core.experiment.families.model_run_inputs import ModelRunInputs
from guiapp.core.experiment.families.transformer_decisions import Decisions
from guiapp.core.experiment.protocol.out_of_fold import OutOfFold
from guiapp.core.experiment.results.experiment_result import GridPointResult, ModelResult
from guiapp.core.experiment.scores import metrics
from guiapp.core.experiment.scores.prompt_sensitivity import prompt_sensitivity
from guiapp.core.experiment.scores.threshold_choice import tuned_thresholds
from guiapp.core.experiment.speed.codebook_estimates import prompt_tokens
from guiapp.core.experiment.speed.estimates import mean_subword_tokens
from guiapp.core.models.few_shot_options import category_descriptions
from guiapp.core.models.llm.codebook_options import (
    SERVER,
    codebook_llm_options,
    codebook_model_for,
    expand_codebook_grid,
    normalise_codebook_grid,
)
from guiapp.core.models.llm.category_answers import OutsideTally
from guiapp.core.models.llm.codebook_prompt import INSTRUCTIONS
from guiapp.core.models.llm.prompt_examples import examples_note
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.study_data import StudyData


def run_codebook_model(model: ModelSpec, inputs: ModelRunInputs, on_event: EventCallback) -> ModelResult:
    """Score every prompt variant on the study's folds, choose one, answer the test texts, report the
    prompt's sensitivity and save the final model (see the module docstring)."""
    from guiapp.core.study.model_sources import check_codebook_source

    total_start = time.perf_counter()
    data, spec = inputs.data, inputs.spec
    name = model.display_name
    if inputs.executor is not None and inputs.executor.remote:
        on_event(Log(f"{name}: runs on this computer, not on the cluster's workers."))
    options = codebook_llm_options(model.classifier, dict(model.representation_options or {}))
    check_codebook_source(model.classifier, options)  # before anything is read: in words, never downloads
    categories = list(data.categories)
    descriptions, notes = category_descriptions(categories, options["descriptions"])
    examples = {category: texts for category, texts in options["examples"].items() if category in categories}
    used = {**options, "descriptions": descriptions, "examples": examples}
    own = options["instruction"] is not None
    points = expand_codebook_grid(model.grid, own_instruction=own)
    train, test = data.split.train, data.split.test
    n_folds = spec.evaluation.folds
    folds = inputs.folds[:n_folds]  # the first repetition: every training text is held out once
    positions = study_positions(data)
    decide = Decisions.for_study(data.y)

    def make(point: dict[str, int], opts: dict[str, Any] = used) -> Any:
        return codebook_model_for(model.classifier, opts, categories, point, multi_label=data.multi_label,
                                  seed=spec.seed)

    first = make(points[0])
    if first.texts_leave_computer:
        on_event(Log(f"{name}: the texts are sent to the language-model server at {options['address']}, which is "
                     "not this computer, as you agreed.", "warning"))
        notes.append(f"The texts were sent to the language-model server at {options['address']}, which is not this "
                     "computer (with the researcher's agreement).")
    sensitivity = max(1, min(int(options["sensitivity"]), len(INSTRUCTIONS)))
    variants = f"{len(points)} prompt variants each answer" if len(points) > 1 else "its prompt answers"
    on_event(Log(f"{name}: learns nothing from the coded texts; {variants} the {len(train):,} training texts on the "
                 f"study's {n_folds} folds, then the chosen one answers the {len(test):,} test texts"
                 + (f" under {sensitivity} wordings of the instruction." if sensitivity > 1 else ".")))
    if spec.evaluation.cv_repeats > 1:
        notes.append(f"The prompt variants were scored on the first {n_folds} folds only (not on the "
                     f"{spec.evaluation.cv_repeats - 1} repetition{'s' if spec.evaluation.cv_repeats > 2 else ''} "
                     "with other folds), so every training text was answered once: the "
                     "model learns nothing from the coded texts, and repeating the folds would only draw other "
                     "examples.")

    # progress: each pass weighs its prompt's length; k = 0 reads the training texts once
    mean_tokens = mean_subword_tokens([data.texts[i] for i in train])
    questions = len(categories) if data.multi_label else 1

    def weight(k: int, texts: int) -> float:
        return texts * questions * prompt_tokens(model, k, len(categories), mean_tokens, data.multi_label)

    weights = [weight(point["k"], len(train)) for point in points]
    weights.append(weight(points[-1]["k"], len(test)) * sensitivity)
    spans = list(pairwise(np.concatenate([[0.0], np.cumsum(weights) / sum(weights)]) * 0.96 + 0.02))

    y_train = data.y[train]
    scores = np.zeros((len(points), len(folds)))
    held_out = np.full((len(points), len(train), len(categories)), np.nan)
    variant_seconds = np.zeros(len(points))
    outside, unanswered = OutsideTally(), 0  # answers outside the categories, over every model of the study
    tuning_start = time.perf_counter()
    for index, point in enumerate(points):
        begun = time.perf_counter()
        span = spans[index]
        on_event(Progress(span[0], f"prompt variant {index + 1} of {len(points)}"))
        if point["k"] == 0:  # nothing drawn: one pass over the training texts serves every fold
            scorer = first if index == 0 else make(point)
            held_out[index] = scorer.predict_proba([data.texts[i] for i in train], sub_progress(on_event, *span),
                                                   positions=[positions[i] for i in train])
            asked = [scorer]
        else:
            asked = []
            shares = np.linspace(*span, len(folds) + 1)
            for number, (fit_part, valid_part) in enumerate(folds):
                scorer = make(point)
                scorer.fit([data.texts[i] for i in train[fit_part]], y_train[fit_part],
                           [positions[i] for i in train[fit_part]],
                           scored_texts=[data.texts[i] for i in train[valid_part]])
                held_out[index, valid_part] = scorer.predict_proba(
                    [data.texts[i] for i in train[valid_part]], sub_progress(on_event, shares[number], shares[number + 1]),
                    positions=[positions[i] for i in train[valid_part]])
                asked.append(scorer)
        for scorer in asked:
            outside.merge(scorer.outside)
            unanswered += scorer.unanswered
        for number, (_, valid_part) in enumerate(folds):
            scores[index, number] = metrics.macro_f1(y_train[valid_part], decide(held_out[index, valid_part]))
        variant_seconds[index] = time.perf_counter() - begun
    tuning_seconds = time.perf_counter() - tuning_start
    means = scores.mean(axis=1)
    chosen = int(np.flatnonzero(means == means.max())[0])  # ties: the first, which shows the fewest examples
    chosen_params = dict(points[chosen])
    grid = [GridPointResult(dict(point), [float(v) for v in scores[i]], float(scores[i].mean()),
                            float(scores[i].std()), float(variant_seconds[i])) for i, point in enumerate(points)]
    chosen_held_out = held_out[chosen]
    if inputs.out_of_fold is not None:  # every training text answered by a prompt whose examples were other texts
        inputs.out_of_fold[name] = OutOfFold(chosen_held_out)
    if decide.tunes(spec):  # on the training texts' held-out answers, never on the test texts
        decide.thresholds = np.asarray(tuned_thresholds(y_train, chosen_held_out, categories, name, on_event),
                                       dtype=np.float64)
        notes.append("Each category's decision threshold was chosen on the training texts' held-out answers (never "
                     f"on the test texts): from {decide.thresholds.min():.2f} to {decide.thresholds.max():.2f}.")
    elif decide.multi_label:
        notes.append("A text was put in every category whose probability of “yes” reached 0.5.")

    # the final model: examples from all training texts, answering the test texts
    on_event(Progress(spans[-1][0], "answering the test texts with the chosen prompt"))
    start = time.perf_counter()
    final = make(chosen_params)
    test_texts, test_positions = [data.texts[i] for i in test], [positions[i] for i in test]
    final.fit([data.texts[i] for i in train], y_train, [positions[i] for i in train], scored_texts=test_texts)
    final_seconds = time.perf_counter() - start
    start = time.perf_counter()
    test_span = np.linspace(*spans[-1], sensitivity + 1)
    probabilities = np.asarray(final.predict_proba(test_texts, sub_progress(on_event, test_span[0], test_span[1]),
                                                   positions=test_positions), dtype=np.float64)
    predicted = decide(probabilities)
    predict_seconds = time.perf_counter() - start
    outside.merge(final.outside)
    unanswered += final.unanswered

    report = None
    if sensitivity > 1:
        start = time.perf_counter()
        prompts = [_prompt_facts(final)]
        decisions = [predicted]
        for number, variant in enumerate(_other_wordings(final.instruction_variant, sensitivity - 1)):
            other = make({**chosen_params, "instruction": variant}, {**used, "instruction": None})
            other.fit([data.texts[i] for i in train], y_train, [positions[i] for i in train], scored_texts=test_texts)
            answered = other.predict_proba(test_texts, sub_progress(on_event, test_span[number + 1],
                                                                     test_span[number + 2]), positions=test_positions)
            prompts.append(_prompt_facts(other))
            decisions.append(decide(answered))
            outside.merge(other.outside)
            unanswered += other.unanswered
        report = prompt_sensitivity(prompts, decisions, data.y[test])
        notes.append(report["sentence"])
        predict_seconds += time.perf_counter() - start

    notes.append(examples_note(final.k, spec.seed))
    if model.classifier == SERVER:
        if outside.asked:
            notes.append(outside.note(whose=" of the server"))
        if unanswered:
            notes.append(f"{unanswered:,} question{'s' if unanswered != 1 else ''} got no answer that named a "
                         "category; there every category was given the same probability.")
    record = final.record()
    thresholds = [float(value) for value in decide.thresholds] if decide.multi_label else None
    artefact = save_final_model(name, lambda folder: final.save(folder, thresholds=thresholds), inputs.artefacts_dir, on_event)
    for note in notes:
        on_event(Log(f"{name}: {note}"))
    full_spec = {**model.to_dict(), "name": name, "representation_options": used,
                 "grid": normalise_codebook_grid(model.grid, own_instruction=own), "notes": notes,
                 "record": record, "sensitivity": report}
    on_event(Progress(1.0, "done"))
    return ModelResult(
        name=name, representation=model.representation, classifier=model.classifier, spec=full_spec,
        chosen_params=chosen_params, cv_scores=grid[chosen].fold_scores, grid=grid,
        **tested_answers(data, spec, decide, predicted, probabilities),
        seconds={"features": 0.0, "tuning": round(tuning_seconds, 4), "final_fit": round(final_seconds, 4),
                 "predict": round(predict_seconds, 4), "total": round(time.perf_counter() - total_start, 4)},
        artefact=artefact,
    )


def study_positions(data: StudyData) -> list[int]:
    """Each text's row, as the examples' record names them: the spreadsheet rows where they tell the
    texts apart (one table), else the texts' places in the study (a separate test file restarts them)."""
    rows = [int(row) for row in data.rows]
    return rows if len(set(rows)) == len(rows) else list(range(len(data.texts)))


def _other_wordings(chosen: int | None, count: int) -> list[int]:
    """TextLab's instructions other than the chosen one (all of them after the researcher's own)."""
    return [number for number in range(len(INSTRUCTIONS)) if number != chosen][:count]


def _prompt_facts(scorer: Any) -> dict[str, Any]:
    return {"instruction_variant": scorer.instruction_variant, "instruction": scorer.prompt.instruction,
            "prompt_sha256": scorer.prompt.template_sha256()}
