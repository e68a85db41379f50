"""A language model with your codebook survives results.json and a project: its record (from a real
``CodebookModel`` on a tiny causal language model built here), its prompt-sensitivity report and its
saved ``codebook_model.json`` come back as they were, in a results folder and in a reopened project."""

from __future__ import annotations

import copy
import json

import pytest

from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.experiment.results.result_files import write_results
from guiapp.core.experiment.results.results_manifest import write_manifest
from guiapp.core.export.codebook_facts import CodebookRecord, PromptSensitivity
from guiapp.core.models.llm.codebook_model import CodebookModel, InTextLab, load_codebook_model
from guiapp.core.models.llm.model_file import CODEBOOK_MODEL_FILE
from guiapp.core.predict.saved_results import read_results
from guiapp.core.project.format import model_folders_of
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from tests.core.export.codebook_result_sample import codebook_model, record
from tests.core.models.llm.test_codebook_model import CODEBOOK, TRAIN, TRAIN_LABELS, TRAIN_ROWS, tiny_lm
from tests.core.project.helpers import run_project


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    """A real codebook model on a tiny random causal LM, fitted, saved, and its record."""
    lm = tiny_lm(tmp_path_factory.mktemp("lm"))
    model = CodebookModel(CODEBOOK, InTextLab(str(lm), device="cpu", batch_size=3), k=1, seed=3)
    model.fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    folder = tmp_path_factory.mktemp("final") / "codebook"
    model.save(folder)
    return model.record(), folder


@pytest.fixture(scope="module")
def project(tmp_path_factory, saved_model):
    real_record, folder = saved_model
    project = run_project(tmp_path_factory.mktemp("run"))
    result = project.result
    added = codebook_model(result)
    added.spec["record"] = real_record
    added.artefact = str(folder)
    result.models.append(added)
    project.model_folders = model_folders_of(result)
    return project


def test_the_sample_record_has_the_keys_of_a_real_record(saved_model):
    real_record, _ = saved_model
    assert set(record(["a", "b"])) == set(real_record)
    assert set(record(["a", "b"], server=True)) - set(real_record) == {
        "server_protocol", "server_model", "server_model_digest", "quantization", "server_address",
        "on_this_computer"}


def test_results_json_keeps_the_record_and_the_sensitivity(project, saved_model, tmp_path):
    real_record, _ = saved_model
    result = project.result
    write_results(result, tmp_path)
    write_manifest(tmp_path)
    again = read_results(tmp_path)
    model = again.models[-1]
    assert model.to_dict() == result.models[-1].to_dict()
    assert model.spec["record"] == json.loads(json.dumps(real_record))
    assert CodebookRecord.of(model).prompt_sha256 == real_record["prompt_sha256"]
    assert CodebookRecord.of(model).weights == real_record["weights_sha256"]
    report = PromptSensitivity.from_spec(model.spec)
    assert report is not None and report.alpha == 0.74 and report.n_prompts == 3
    assert model.chosen_params == {"k": 2, "instruction": 0} and model.representation == "codebook_llm"
    # no sensitivity asked for (1 wording): None survives as None
    bare = copy.deepcopy(result)
    bare.models[-1].spec["sensitivity"] = None
    assert PromptSensitivity.from_spec(ExperimentResult.from_json(bare.to_json()).models[-1].spec) is None


def test_a_reopened_project_has_the_record_and_the_saved_model(project, tmp_path):
    path = save_project(tmp_path / "study.textlab", project)
    again = open_project(path, extract_models_to=tmp_path / "unpacked")
    assert again.result.to_dict() == project.result.to_dict()
    name = project.result.models[-1].name
    folder = again.model_folder(name)
    assert folder.is_relative_to(tmp_path / "unpacked") and (folder / CODEBOOK_MODEL_FILE).is_file()
    reopened = load_codebook_model(folder)
    assert reopened.record()["prompt_sha256"] == again.result.models[-1].spec["record"]["prompt_sha256"]


def test_the_chosen_prompt_reads_in_words_for_the_command_line(project):
    from guiapp.core.experiment.results.describe import describe_chosen

    assert describe_chosen(project.result.models[-1]) == "2 examples per category, TextLab's instruction"
