"""Save a project and open it again: everything comes back as it was, trained models included."""

from __future__ import annotations

import zipfile

import numpy as np
import pandas as pd
import pytest

from guiapp.core.events import Cancelled, Progress
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.project import format as fmt
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from tests.core.project.helpers import plain_project, run_project


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("project")
    project = run_project(folder / "run")
    project.test_table = project.table.iloc[:10].reset_index(drop=True)
    events = []
    path = save_project(folder / "study.textlab", project, on_event=events.append)
    return project, path, events, folder


def test_everything_comes_back(saved):
    project, path, _, folder = saved
    again = open_project(path, extract_models_to=folder / "unpacked")
    assert again.spec.to_dict() == project.spec.to_dict()
    pd.testing.assert_frame_equal(again.table, project.table)
    pd.testing.assert_frame_equal(again.test_table, project.test_table)
    assert again.result.to_dict() == project.result.to_dict()
    assert again.ui_state == project.ui_state
    assert (again.source_sha256, again.source_name) == (project.source_sha256, project.source_name)
    assert again.saved_at and again.textlab_version
    assert set(again.model_folders) == {model.name for model in project.result.models}
    for name, original in project.model_folders.items():
        copy = again.model_folder(name)
        assert copy.is_relative_to(folder / "unpacked")
        original_files = {p.relative_to(original): p.read_bytes() for p in original.rglob("*") if p.is_file()}
        copied_files = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
        assert copied_files == original_files and original_files


def test_reopened_models_decide_as_during_the_run(saved):
    _, path, _, folder = saved
    again = open_project(path, extract_models_to=folder / "unpacked-again")
    texts = again.result.test_texts
    for model in again.result.models:
        decisions, probabilities = open_trained_model(again.model_folder(model.name)).answer(texts)
        assert decisions.tolist() == model.predictions
        np.testing.assert_allclose(probabilities, np.array(model.probabilities), atol=1e-6)


def test_the_file_holds_only_json_parquet_and_model_files(saved):
    _, path, events, _ = saved
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    assert {"project.json", "study.json", "data/table.parquet", "data/test_table.parquet", "results.json",
            "ui.json"} <= set(names)
    assert all(not fmt.is_pickle_like(name) for name in names)
    assert any(name.startswith("models/") and name.endswith(".json") for name in names)
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions[-1] == 1.0 and fractions == sorted(fractions)


def test_a_project_without_results_and_saving_over_an_older_one(tmp_path):
    path = tmp_path / "plain.textlab"
    save_project(path, plain_project(30, "First"))
    save_project(path, plain_project(40, "Second"))
    again = open_project(path, extract_models_to=tmp_path / "models")
    assert again.spec.name == "Second" and again.result is None and again.test_table is None
    pd.testing.assert_frame_equal(again.table, plain_project(40).table)
    assert again.model_folders == {} and not (tmp_path / "models").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["plain.textlab"]


def test_cancel_leaves_the_old_file_and_no_temporary_file(tmp_path):
    path = tmp_path / "kept.textlab"
    save_project(path, plain_project(30, "Kept"))
    before = path.read_bytes()

    def cancel(event):
        if isinstance(event, Progress) and event.done:
            raise Cancelled

    with pytest.raises(Cancelled):
        save_project(path, plain_project(5000, "Replacement"), on_event=cancel)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["kept.textlab"]


def test_mixed_cells_are_kept_as_text(tmp_path):
    project = plain_project(6)
    project.table["code"] = [1, "two", 3.5, float("nan"), "x", 7]
    save_project(tmp_path / "mixed.textlab", project)
    again = open_project(tmp_path / "mixed.textlab", extract_models_to=tmp_path / "m")
    codes = again.table["code"].tolist()
    assert codes[:3] + codes[4:] == ["1", "two", "3.5", "x", "7"] and pd.isna(codes[3])


def test_explanations_travel_with_the_project(saved, tmp_path):
    """Explanations computed before saving come back from the project, without computing again."""
    from guiapp.core.explain.cache import ExplanationCache, cache_files, restore_cache_files, run_cache_folder
    from guiapp.core.explain.explain_jobs import explain_one

    project, _, _, folder = saved
    model_result = project.result.models[0]
    model = open_trained_model(project.model_folders[model_result.name], model_result.name)
    here = run_cache_folder(tmp_path / "cache-before", project.result.started_at)
    cache = ExplanationCache(here)
    text = project.result.test_texts[0]
    first = explain_one(model, text, cache=cache)
    cache.save()
    project.explanations = cache_files(here)
    assert project.explanations
    path = save_project(tmp_path / "explained.textlab", project)
    project.explanations = {}

    again = open_project(path, extract_models_to=tmp_path / "unpacked")
    assert again.explanations.keys() == cache_files(here).keys()
    elsewhere = run_cache_folder(tmp_path / "another-computer", again.result.started_at)
    assert restore_cache_files(elsewhere, again.explanations)
    reopened = ExplanationCache(elsewhere)
    second = explain_one(model, text, cache=reopened)
    assert second.attribution.to_dict() == first.attribution.to_dict()
    assert not reopened._dirty, "the reopened cache answered; nothing was computed again"
    with zipfile.ZipFile(path) as archive:
        assert any(name.startswith("explanations/") for name in archive.namelist())


def test_a_learning_curve_is_kept_in_the_project(tmp_path) -> None:
    import zipfile

    from guiapp.core.events import ignore_events
    from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions, run_learning_curve
    from guiapp.core.project import format as fmt
    from guiapp.core.project.opening import open_project
    from guiapp.core.project.saving import save_project
    from tests.core.project.helpers import run_project

    project = run_project(tmp_path / "models")
    project.learning_curve = run_learning_curve(project.spec, ignore_events, table=project.table, n_jobs=1,
                                                options=LearningCurveOptions(sizes=(30, 60), repeats=2))
    path = save_project(tmp_path / "curve.textlab", project)
    again = open_project(path, extract_models_to=tmp_path / "open")
    assert again.learning_curve is not None and again.learning_curve.to_dict() == project.learning_curve.to_dict()
    with zipfile.ZipFile(path) as archive:
        assert fmt.LEARNING_CURVE_JSON in archive.namelist()


def test_a_combined_model_reopened_from_a_project_answers_as_in_the_study(tmp_path) -> None:
    import dataclasses

    import numpy as np

    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.predict.open_model import open_trained_model
    from guiapp.core.project.format import model_folders_of
    from guiapp.core.project.opening import open_project
    from guiapp.core.project.saving import save_project
    from tests.core.project.helpers import run_project

    project = run_project(tmp_path / "first")
    spec = dataclasses.replace(project.spec, evaluation=dataclasses.replace(project.spec.evaluation, combine=True))
    result = run_experiment(spec, table=project.table, n_jobs=1, artefacts_dir=tmp_path / "models")
    project = dataclasses.replace(project, spec=spec, result=result, model_folders=model_folders_of(result))
    path = save_project(tmp_path / "combined.textlab", project)
    again = open_project(path, extract_models_to=tmp_path / "open")
    for model in (m for m in result.models if m.representation == "combined"):
        opened = open_trained_model(again.model_folder(model.name), model.name)
        assert opened.family == "combined"
        assert np.allclose(opened.answer(result.test_texts)[1], model.probabilities, atol=1e-5)
