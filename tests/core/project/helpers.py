"""Small projects for the project-file tests: a real study run with quick models, and big tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from guiapp.core.project.format import Project, model_folders_of
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec

QUICK = [ModelSpec("bow", "naive_bayes"), ModelSpec("bow", "logistic_regression")]


def study(name: str = "Bills by topic") -> ExperimentSpec:
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=2, combine=False),  # two models, no combinations
        models=list(QUICK),
        name=name,
        seed=5,
    )


def run_project(artefacts_dir) -> Project:
    """A project with a finished study of two trained models."""
    from guiapp.core.experiment.run.runner import (
        run_experiment,  # scikit-learn: not in the killed children
    )
    from tests.core.synthetic_texts import coded_texts

    table = coded_texts(120).assign(year=np.arange(120) % 7 + 2000, weight=np.linspace(0, 1, 120))
    spec = study()
    result = run_experiment(spec, table=table, n_jobs=1, artefacts_dir=artefacts_dir)
    return Project(
        spec=spec, table=table, result=result, model_folders=model_folders_of(result),
        ui_state={"step": "results", "columns": {"text": ["text"], "category": "label"}},
        source_sha256="ab" * 32, source_name="bills.xlsx",
    )


def plain_project(rows: int = 50, name: str = "Old study") -> Project:
    """A project without results, with a table of ``rows`` texts (fast to build at any size)."""
    words = np.array(["health", "army", "oil", "the", "bill", "schools", "care", "navy"])
    rng = np.random.default_rng(rows)
    texts = [" ".join(row) for row in words[rng.integers(0, len(words), size=(rows, 12))]]
    table = pd.DataFrame({"text": texts, "label": np.array(["a", "b", "c"])[np.arange(rows) % 3], "n": np.arange(rows)})
    return Project(spec=study(name), table=table, ui_state={"step": "data", "rows": rows})
