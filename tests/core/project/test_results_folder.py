"""Opening a results folder copied back from another computer (a cluster): the study, its table and
test texts, the results and the trained models come back as a project, with the models found in
the folder's models/ (the paths recorded during the run no longer exist); a missing or changed
table and a folder without results.json are explained."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from guiapp.cli.entry import main
from guiapp.core.atomic import sha256_of_file
from guiapp.core.errors import UserError
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.project.results_folder import (
    is_results_folder,
    open_results_folder,
    table_candidates,
)
from guiapp.core.study.spec import ExperimentSpec
from tests.core.project.helpers import study
from tests.core.synthetic_texts import coded_texts


def run_on_the_cluster(root: Path) -> Path:
    """A study folder as File → Prepare for a cluster… writes it (data.parquet + study.toml with the
    table's checksum), run with ``textlab run study.toml --out results``; returns the study folder."""
    folder = root / "bills for the cluster"
    folder.mkdir(parents=True)
    table = coded_texts(120, seed=3).assign(code=np.arange(1000, 1120), year=np.arange(120) % 5 + 2000)
    table.to_parquet(folder / "data.parquet", index=False)
    spec = study("Bills on the cluster")
    spec.data.source = "data.parquet"
    spec.data.sha256 = sha256_of_file(folder / "data.parquet")
    spec.data.mapping.id_column = "code"
    spec.save(folder / "study.toml")
    assert main(["run", str(folder / "study.toml"), "--out", str(folder / "results"), "--jobs", "1"]) == 0
    return folder


@pytest.fixture(scope="module")
def copied_back(tmp_path_factory) -> tuple[Path, ExperimentResult]:
    """The study folder "copied back": moved to another place, so every recorded path is gone."""
    cluster = run_on_the_cluster(tmp_path_factory.mktemp("cluster"))
    ran = ExperimentResult.from_json((cluster / "results" / "results.json").read_text(encoding="utf-8"))
    here = tmp_path_factory.mktemp("laptop") / "bills for the cluster"
    shutil.copytree(cluster, here)
    shutil.rmtree(cluster)
    assert not any(Path(model.artefact).exists() for model in ran.models)
    return here, ran


def test_the_copied_back_folder_opens_with_the_same_result(copied_back) -> None:
    here, ran = copied_back
    results = here / "results"
    assert is_results_folder(results) and not is_results_folder(here)
    project = open_results_folder(results)
    result = project.result
    assert [model.name for model in result.models] == [model.name for model in ran.models]
    assert [model.test.to_dict() for model in result.models] == [model.test.to_dict() for model in ran.models]
    assert result.test_rows == ran.test_rows and result.test_true == ran.test_true and result.test_ids == ran.test_ids
    assert len(project.table) == 120 and project.source_name == "data.parquet"
    assert Path(project.spec.data.source) == here / "data.parquet"  # the table found here
    assert project.spec.models == ExperimentSpec.from_dict(ran.spec).models
    assert project.spec.name == "Bills on the cluster" and project.spec.data.mapping.id_column == "code"

    # the texts were left out of results.json; they are rebuilt from the table as the run took them
    table = project.table
    expected = [table.loc[row - 2, "text"] for row in result.test_rows]
    assert result.test_texts == expected and len(expected) == len(ran.test_true)

    # the models are those in the folder's models/, and they decide as during the run
    assert sorted(project.model_folders) == sorted(model.name for model in ran.models)
    for model in result.models:
        folder = project.model_folders[model.name]
        assert folder.parent == results / "models" and model.artefact == str(folder)
        trained = open_trained_model(folder, model.name)
        decided, _ = trained.answer(result.test_texts)
        assert list(decided) == model.predictions


def test_a_table_that_is_not_there_is_named_with_where_to_put_it(copied_back, tmp_path) -> None:
    here, _ = copied_back
    alone = tmp_path / "bills results"
    shutil.copytree(here / "results", alone)  # copied back on its own, without data.parquet
    with pytest.raises(UserError) as caught:
        open_results_folder(alone)
    assert "data.parquet" in caught.value.message and str(tmp_path / "data.parquet") in caught.value.message
    assert "Copy data.parquet back next to the results folder" in caught.value.hint

    shutil.copy(here / "data.parquet", alone / "data.parquet")  # inside the results folder also works
    assert len(open_results_folder(alone).table) == 120


def test_the_table_is_found_by_name_when_recorded_as_a_cluster_path(tmp_path) -> None:
    folder = tmp_path / "study" / "results"
    found = table_candidates("/home/someone/study/data.parquet", folder)
    assert found[:2] == [tmp_path / "study" / "data.parquet", folder / "data.parquet"]
    assert table_candidates("C:\\Users\\me\\data.parquet", folder)[0] == tmp_path / "study" / "data.parquet"


def test_a_changed_table_is_refused_with_a_reason(copied_back, tmp_path) -> None:
    here, _ = copied_back
    changed = tmp_path / "changed"
    shutil.copytree(here, changed)
    import pandas as pd

    table = pd.read_parquet(changed / "data.parquet")
    table.loc[5, "text"] = "A different text."
    table.to_parquet(changed / "data.parquet", index=False)
    with pytest.raises(UserError) as caught:
        open_results_folder(changed / "results")
    assert "is not the table these results were computed on" in caught.value.message
    assert "changed since the run" in caught.value.message


def test_a_folder_without_results_is_refused_with_what_to_choose(copied_back, tmp_path) -> None:
    here, _ = copied_back
    with pytest.raises(UserError) as caught:
        open_results_folder(here)  # the study folder, not its results
    assert "has no results.json" in caught.value.message and "Choose the results folder" in caught.value.hint
    broken = tmp_path / "broken"
    shutil.copytree(here / "results", broken)
    (broken / "results.json").write_text("{ not json", encoding="utf-8")
    with pytest.raises(UserError) as caught:
        open_results_folder(broken)
    assert "changed or damaged" in caught.value.message  # the manifest notices it first
