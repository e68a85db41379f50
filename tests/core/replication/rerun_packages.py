"""Small real replication packages for the replication tests: a study of bag-of-words models (and,
where asked, a tiny randomly initialised BERT fine-tuned on the CPU, seeded — the bundled
Transformer's code path without its download or its minutes) run here and written with
``write_package``, plus helpers that change a package's file and record the change in its manifest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from guiapp.core.project.format import Project, model_folders_of
from guiapp.core.replication.manifest import MANIFEST, sha256_file
from guiapp.core.replication.package import write_package
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec

ROWS = 90


def coded_table():
    from tests.core.synthetic_texts import coded_texts

    return coded_texts(ROWS, seed=3).assign(year=np.arange(ROWS) % 5 + 2010)


def study(transformer_folder: Path | None = None) -> ExperimentSpec:
    models = [ModelSpec("bow", "logistic_regression"), ModelSpec("bow", "svm", grid={"C": [0.1, 1.0]})]
    if transformer_folder is not None:
        models.append(ModelSpec("transformer", "fine_tune",
                                representation_options={"model": str(transformer_folder), "max_length": 24,
                                                        "batch_size": 16},
                                grid={"learning_rate": [3e-3], "epochs": [1]}))
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=2, bootstrap_samples=0, combine=False),
        models=models, name="Bills by topic", seed=11,
    )


def tiny_transformer(folder: Path, table) -> Path:
    from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

    words = {word for text in table["text"] for word in str(text).lower().split()}
    return save_tiny_bert(folder / "tiny-bert", tiny_tokenizer(folder / "tiny-vocab", words))


def run_project(folder: Path, *, transformer: bool = False) -> Project:
    """A project with a finished study, its trained models kept under ``folder``."""
    from guiapp.core.experiment.run.runner import run_experiment

    table = coded_table()
    spec = study(tiny_transformer(folder, table) if transformer else None)
    result = run_experiment(spec, table=table, n_jobs=1, artefacts_dir=folder / "models")
    assert all(model.ok for model in result.models), [model.message for model in result.models]
    return Project(spec=spec, table=table, result=result, model_folders=model_folders_of(result),
                   source_sha256="ab" * 32, source_name="bills.xlsx")


def write(project: Project, out: Path, *, share_texts: bool = True) -> Path:
    return write_package(project, out, share_texts=share_texts, report_card=lambda project, folder: [])


def copy_package(package: Path, to: Path) -> Path:
    shutil.copytree(package, to)
    return to


def rehash(package: Path, relative: str) -> None:
    """Record the file's new SHA-256 and size in the manifest, as if the package had been written so."""
    manifest = json.loads((package / MANIFEST).read_text(encoding="utf-8"))
    path = package / relative
    manifest["files"][relative] = {"sha256": sha256_file(path), "size": path.stat().st_size}
    (package / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def model_file(package: Path) -> Path:
    """One file of a trained model in the package (a .skops or .safetensors file)."""
    found = sorted(p for p in (package / "models").rglob("*") if p.suffix in (".skops", ".safetensors", ".json"))
    assert found, "the package holds no trained model"
    return next((p for p in found if p.suffix != ".json"), found[0])
