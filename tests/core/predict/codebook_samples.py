"""Saved language models with your codebook, for the tests of what uses them after a study: a model
fitted on the tiny random causal LM of ``tests/core/models/llm/test_codebook_model.py`` and saved as a
study saves it, and a study's results folder (a real run of a quick model, with manifest) that holds
such a model beside it, as ``textlab run`` writes it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from guiapp.core.models.llm.codebook_model import CodebookModel
from guiapp.core.models.llm.codebook_options import codebook_llm_options, codebook_model_for, display_name
from tests.core.models.llm.test_codebook_model import CODEBOOK, NAMES, TEST, TRAIN, TRAIN_LABELS, TRAIN_ROWS, tiny_lm

__all__ = ["CODEBOOK", "NAMES", "TEST", "TRAIN", "TRAIN_LABELS", "TRAIN_ROWS", "tiny_lm"]

DESCRIPTIONS = {name: definition for name, definition, _ in CODEBOOK}


def options(lm_folder: str | Path) -> dict:
    """The filled-in options of an in-TextLab codebook model on the tiny LM (on the processor)."""
    return codebook_llm_options("in_textlab", {"model": str(lm_folder), "descriptions": DESCRIPTIONS,
                                               "device": "cpu", "batch_size": 4, "sensitivity": 1})


def fitted_codebook(lm_folder: str | Path, *, multi_label: bool = False, k: int = 1, seed: int = 3,
                    instruction: int = 0) -> CodebookModel:
    """A codebook model as the study makes its final model: examples drawn from the training texts."""
    model = codebook_model_for("in_textlab", options(lm_folder), NAMES, {"k": k, "instruction": instruction},
                               multi_label=multi_label, seed=seed)
    labels = [[label] for label in TRAIN_LABELS] if multi_label else TRAIN_LABELS
    return model.fit(TRAIN, labels, TRAIN_ROWS, scored_texts=TEST)


def saved_codebook(folder: Path, lm_folder: str | Path, *, multi_label: bool = False,
                   thresholds: list[float] | None = None, k: int = 1) -> CodebookModel:
    model = fitted_codebook(lm_folder, multi_label=multi_label, k=k)
    model.save(folder, thresholds)
    return model


STUDY_WORDS = {"economy": ["Prices", "taxes", "trade", "jobs"], "health": ["Doctors", "hospital", "illness"],
               "sport": ["football", "team", "games", "athletes"]}


def study_with_codebook_model(folder: Path, lm_folder: str | Path) -> tuple[Path, str]:
    """A results folder written as ``textlab run`` writes it (manifest included): a naive Bayes model
    run on a small coded table, and a language model with the codebook answering the same test texts,
    saved in the results' models folder; (results folder, the codebook model's name)."""
    from guiapp.core.experiment import run_experiment
    from guiapp.core.experiment.results.artefacts import model_folder_name
    from guiapp.core.experiment.results.experiment_result import ModelResult, TestResult
    from guiapp.core.experiment.results.output_folder import OutputFolder
    from guiapp.core.experiment.results.result_files import write_results
    from guiapp.core.experiment.scores import metrics
    from guiapp.core.study.spec import ExperimentSpec

    rng = np.random.default_rng(0)
    rows = []
    for number in range(36):
        category = NAMES[number % 3]
        words = [*rng.choice(STUDY_WORDS[category], size=2), *rng.choice(["the", "and", "won", "rose"], size=2)]
        rows.append({"text": " ".join(str(word) for word in words) + ".", "label": category})
    pd.DataFrame(rows).to_csv(folder / "coded.csv", index=False)
    (folder / "study.toml").write_text("""
name = "Topics"
[data]
source = "coded.csv"
[data.mapping]
text_columns = ["text"]
category_column = "label"
[evaluation]
folds = 3
test_share = 0.25
[[models]]
representation = "bow"
classifier = "naive_bayes"
""", encoding="utf-8")
    spec = ExperimentSpec.load(folder / "study.toml")
    out = OutputFolder(folder / "results")
    with out:
        result = run_experiment(spec, spec_file=folder / "study.toml", n_jobs=1, artefacts_dir=out.partial / "models")
        settings = options(lm_folder)
        name = display_name("in_textlab", settings)
        model = codebook_model_for("in_textlab", settings, result.categories, {"k": 1, "instruction": 0},
                                   multi_label=False, seed=1)
        train = [row for row in range(len(rows)) if rows[row]["text"] not in set(result.test_texts)]
        model.fit([rows[i]["text"] for i in train], [rows[i]["label"] for i in train], train,
                  scored_texts=result.test_texts)
        probabilities = model.predict_proba(result.test_texts)
        artefact = out.partial / "models" / model_folder_name(name)
        model.save(artefact)
        truth, predictions = np.asarray(result.test_true), probabilities.argmax(axis=1)
        n = len(result.categories)
        test = TestResult(macro_f1=metrics.macro_f1(truth, predictions), macro_f1_ci=None, ci_level=0.95,
                          accuracy=metrics.accuracy(truth, predictions),
                          per_category=metrics.category_scores(truth, predictions, result.categories),
                          confusion=metrics.confusion(truth, predictions, n))
        result.models.append(ModelResult(
            name=name, representation="codebook_llm", classifier="in_textlab",
            spec={"representation": "codebook_llm", "classifier": "in_textlab", "name": name,
                  "representation_options": settings, "grid": {"k": [1], "instruction": [0]}, "notes": [],
                  "record": model.record(), "sensitivity": None},
            chosen_params={"k": 1, "instruction": 0}, cv_scores=[0.5, 0.5, 0.5], test=test,
            predictions=[int(p) for p in predictions], probabilities=probabilities.tolist(),
            seconds={"total": 1.0}, artefact=str(artefact)))
        write_results(result, out.partial, moved_to=out.target)
        out.commit()
    return out.target, name
