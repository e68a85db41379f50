"""Running a study and what it finds, in rooms named for its stages, highest first:

* ``curves/`` — the learning curve: the study's models with more or fewer coded texts;
* ``run/`` — ``run_experiment`` (the one way a study runs, for the window and the command line
  alike), the study's plan and size before it runs, and what a study and a curve do alike per model;
* ``families/`` — what each family adds to a run: fine-tuned Transformers (setting choice, seeds,
  decisions, fine-tuning here or on a cluster), the models that need few or no coded texts, the
  conventional models' files;
* ``combined/`` — combined models (a weighted vote, stacking) and their evidence;
* ``speed/`` — the speeds measured on this computer and the time estimates shown before a run;
* ``protocol/`` — what every family shares: test texts, folds, oversampling, the grid search and its
  fits, units of work any process can run, out-of-fold probabilities, the one evaluation on the
  test texts;
* ``scores/`` — metrics, decision thresholds, comparisons between models, scores per group of texts,
  agreement with several coders;
* ``results/`` — ``ExperimentResult`` and its parts, the recommendation, the results folder (its
  files, manifest and lock) and where trained models are kept.

A stage imports only the stages below it (``combined`` and ``speed`` not each other); import-linter
checks it. Where the work runs is :mod:`guiapp.core.compute`'s.

The public entry points are importable from here: ``run_experiment``, ``ExperimentResult`` and
``ModelResult`` (loaded on first use, so importing a part of the engine does not load the runner)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
    from guiapp.core.experiment.run.runner import run_experiment

__all__ = ["ExperimentResult", "ModelResult", "run_experiment"]

_HOMES = {
    "run_experiment": "guiapp.core.experiment.run.runner",
    "ExperimentResult": "guiapp.core.experiment.results.experiment_result",
    "ModelResult": "guiapp.core.experiment.results.experiment_result",
}


def __getattr__(name: str):  # noqa: ANN202 — the entry point named
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
