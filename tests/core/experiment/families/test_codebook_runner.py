"""A language model with your codebook inside a study: scored on the study's folds with examples drawn
only from the texts it does not answer, tested on the same test texts, combined with the other
models, saved so that the saved model answers as in the study, its prompt's sensitivity reported,
refused in words before anything runs where its model is missing, and stopped by Cancel.

A tiny randomly initialised GPT-2 built here stands in for a real model (its answers mean nothing;
the tests check the engine), and a real HTTP server on 127.0.0.1 answers from the same kind of model."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Log, Progress
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.models.llm.codebook_model import load_codebook_model
from guiapp.core.models.llm.model_file import CODEBOOK_MODEL_FILE
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.models.llm.test_codebook_model import tiny_lm
from tests.core.models.llm.test_server_client import MODEL, served  # noqa: F401 (a fixture)
from tests.core.synthetic_texts import coded_texts

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "multi_label_small.csv"
DESCRIPTIONS = {"health": "hospitals, doctors and patients", "defence": "the army, weapons and soldiers"}


@pytest.fixture(scope="module")
def lm_folder(tmp_path_factory) -> str:
    return str(tiny_lm(tmp_path_factory.mktemp("codebook study lm")))


def codebook(folder: str, **options) -> ModelSpec:
    grid = options.pop("grid", {"k": [0, 1]})
    return ModelSpec("codebook_llm", "in_textlab", representation_options={
        "model": folder, "descriptions": dict(DESCRIPTIONS), "device": "cpu", "batch_size": 8, **options}, grid=grid)


def study(models: list[ModelSpec], **evaluation) -> ExperimentSpec:
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(**{"folds": 2, "bootstrap_samples": 50, **evaluation}),
        models=models, seed=3,
    )


@pytest.fixture(scope="module")
def compared(lm_folder, tmp_path_factory):
    """One study of 36 texts: a bag-of-words model beside the codebook model, with the combined models."""
    folder = tmp_path_factory.mktemp("codebook study")
    events: list = []
    spec = study([ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), codebook(lm_folder)])
    result = run_experiment(spec, events.append, table=coded_texts(36, seed=1), n_jobs=1,
                            artefacts_dir=folder / "models")
    events.append(("kept after the study", dict(codebook_model_module._OPENED)))
    return result, events


def test_the_result_follows_the_contract(compared, lm_folder):
    result, _ = compared
    model = result.models[1]
    assert model.ok, model.message
    n_test, n_categories = len(result.test_true), len(result.categories)
    assert model.representation == "codebook_llm" and model.classifier == "in_textlab"
    assert model.name == "Codebook language model (" + Path(lm_folder).name + ")"
    assert model.chosen_params in ({"k": 0, "instruction": 0}, {"k": 1, "instruction": 0})
    assert [point.params for point in model.grid] == [{"k": 0, "instruction": 0}, {"k": 1, "instruction": 0}]
    assert all(len(point.fold_scores) == 2 for point in model.grid) and len(model.cv_scores) == 2
    probabilities = np.asarray(model.probabilities)
    assert probabilities.shape == (n_test, n_categories)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)
    assert model.predictions == [int(k) for k in probabilities.argmax(axis=1)]
    assert model.test.macro_f1_ci is not None
    spec = model.spec
    assert spec["representation_options"]["descriptions"] == DESCRIPTIONS
    assert spec["grid"] == {"k": [0, 1], "instruction": [0]}
    record = spec["record"]
    assert record["k"] == model.chosen_params["k"] and record["seed"] == 3 and len(record["weights_sha256"]) == 64
    assert record["texts_leave_computer"] is False and record["prompt_sha256"]
    assert any("“energy” had no description" in note for note in spec["notes"])
    sensitivity = spec["sensitivity"]
    assert [p["instruction_variant"] for p in sensitivity["prompts"]] == [0, 1, 2]
    assert len({p["prompt_sha256"] for p in sensitivity["prompts"]}) == 3
    assert sensitivity["macro_f1_min"] <= sensitivity["prompts"][0]["macro_f1"] <= sensitivity["macro_f1_max"]
    assert sensitivity["alpha"] is None or -1.0 <= sensitivity["alpha"] <= 1.0
    assert sensitivity["sentence"].startswith("The three wordings of the instruction gave the same answer to")
    assert sensitivity["prompts"][0]["macro_f1"] == pytest.approx(model.test.macro_f1, abs=1e-6)


def test_no_example_comes_from_the_texts_it_answers(compared):
    result, _ = compared
    model = result.models[1]
    saved = load_codebook_model(model.artefact)
    rows = [example.position for example in saved.examples]
    assert len(rows) == model.chosen_params["k"] * len(result.categories) or model.chosen_params["k"] == 0
    assert not set(rows) & set(result.test_rows)
    assert not {example.text for example in saved.examples} & set(result.test_texts)


def test_the_saved_model_answers_the_test_texts_as_in_the_study(compared):
    result, _ = compared
    model = result.models[1]
    assert (Path(model.artefact) / CODEBOOK_MODEL_FILE).is_file()
    saved = load_codebook_model(model.artefact)
    probabilities = saved.predict_proba(result.test_texts, positions=result.test_rows)
    np.testing.assert_allclose(probabilities, model.probabilities, atol=2e-5)


def test_the_combined_models_learn_from_its_held_out_answers(compared):
    result, _ = compared
    vote, stacking = result.models[-2:]
    assert vote.representation == "combined" and vote.ok and stacking.ok
    assert result.models[1].name in vote.combination.parts
    assert vote.combination.learnt_on_texts == result.split["n_train"]


def test_the_run_says_what_it_does_and_frees_the_model(compared):
    _, events = compared
    said = " ".join(event.message for event in events if isinstance(event, Log))
    assert "learns nothing from the coded texts; 2 prompt variants each answer the" in said
    assert "2 prompt variants each answer every training text once on the first 2 folds" in said  # the plan
    assert "chosen no examples (zero-shot), TextLab's instruction" in said or \
        "chosen 1 example per category, TextLab's instruction" in said
    assert events[-1] == ("kept after the study", {})  # the language model was let go at the end of the study


def test_each_fold_draws_its_examples_only_from_its_other_texts(lm_folder, monkeypatch):
    from guiapp.core.models.llm.codebook_model import CodebookModel

    seen: list[tuple[set, set]] = []
    original = CodebookModel.predict_proba

    def spy(self, texts, on_event=None, positions=None):
        seen.append(({example.position for example in self.examples}, set(positions or [])))
        return original(self, texts, *(() if on_event is None else (on_event,)), positions=positions)

    monkeypatch.setattr(CodebookModel, "predict_proba", spy)
    spec = study([codebook(lm_folder, grid={"k": [2]}, sensitivity=1)])
    result = run_experiment(spec, table=coded_texts(30, seed=2), n_jobs=1)
    assert result.models[0].ok, result.models[0].message
    assert len(seen) == 3  # two folds, then the test texts
    for examples, scored in seen:
        assert 3 <= len(examples) <= 2 * 3 and not examples & scored  # up to 2 per category
    assert seen[0][0] != seen[1][0]
    assert result.models[0].spec["sensitivity"] is None


def test_the_same_seed_gives_the_same_answers(lm_folder):
    spec = study([codebook(lm_folder, grid={"k": [1]}, sensitivity=1)], cv_repeats=2)
    table = coded_texts(24, seed=4)
    first, second = (run_experiment(spec, table=table, n_jobs=1).models[0] for _ in range(2))
    assert first.ok and first.probabilities == second.probabilities and first.cv_scores == second.cv_scores
    assert len(first.cv_scores) == 2  # the first repetition of the folds: every training text answered once
    assert any("scored on the first 2 folds only (not on the 1 repetition with other folds)" in note
               for note in first.spec["notes"])
    assert first.spec["record"]["example_positions"] == second.spec["record"]["example_positions"]


def test_several_categories_per_text_ask_yes_or_no(lm_folder, tmp_path):
    source = tmp_path / "coded.csv"
    shutil.copy(FIXTURE, source)
    categories = ["economy", "health", "environment", "migration"]
    spec = ExperimentSpec(
        data=DataSpec(source=str(source), mapping=ColumnMapping(text_columns=["text"], multi_label=True,
                                                                category_columns=categories)),
        evaluation=EvaluationSpec(folds=2, bootstrap_samples=30, tune_thresholds=True),
        models=[codebook(lm_folder, grid={"k": [0]}, sensitivity=2, batch_size=16)], seed=1)
    result = run_experiment(spec, n_jobs=1, artefacts_dir=tmp_path / "models")
    model = result.models[0]
    assert result.multi_label and model.ok, model.message
    probabilities = np.asarray(model.probabilities)
    assert probabilities.shape == (len(result.test_true), 4) and ((0 <= probabilities) & (probabilities <= 1)).all()
    assert len(model.thresholds) == 4 and model.test.micro_f1 is not None
    assert model.spec["record"]["multi_label"] is True
    assert len(model.spec["sensitivity"]["prompts"]) == 2
    saved = load_codebook_model(model.artefact)
    assert saved.thresholds == pytest.approx(model.thresholds, abs=1e-4)


def test_a_missing_model_folder_is_refused_before_anything_runs(tmp_path):
    events: list = []
    missing = str(tmp_path / "no such model")
    with pytest.raises(UserError) as refused:
        run_experiment(study([codebook(missing)]), events.append, table=coded_texts(20), n_jobs=1)
    assert "the folder" in refused.value.message and "does not exist" in refused.value.message
    assert "Models step" in refused.value.hint
    assert not [event for event in events if isinstance(event, Log)]  # nothing was read or run


def test_a_hub_model_not_on_this_computer_is_refused_with_the_way_to_download_it(monkeypatch, tmp_path):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path))
    with pytest.raises(UserError) as refused:
        run_experiment(study([codebook("someone/not-downloaded-7b")]), table=coded_texts(20), n_jobs=1)
    assert "is not on this computer" in refused.value.message and "Download it on the Models step" in refused.value.hint


def test_cancel_stops_the_language_model_mid_run(lm_folder):
    batches: list = []

    def stop_after_two_batches(event) -> None:
        if isinstance(event, Progress) and "Scored" in event.message:
            batches.append(event)
            if len(batches) == 2:
                raise Cancelled()

    spec = study([codebook(lm_folder, grid={"k": [0, 1]}, batch_size=2)])
    with pytest.raises(Cancelled) as stopped:
        run_experiment(spec, stop_after_two_batches, table=coded_texts(30, seed=5), n_jobs=1)
    assert len(batches) == 2 and stopped.value.partial.status == "cancelled"
    assert codebook_model_module._OPENED == {}


def test_a_study_on_a_language_model_server(served, tmp_path):  # noqa: F811 (the fixture)
    model = ModelSpec("codebook_llm", "server", representation_options={
        "model": MODEL["ollama"], "address": served, "protocol": "ollama", "descriptions": dict(DESCRIPTIONS),
        "sensitivity": 2, "timeout": 20.0}, grid={"k": [0]})
    result = run_experiment(study([model]), table=coded_texts(18, seed=6), n_jobs=1, artefacts_dir=tmp_path)
    found = result.models[0]
    assert found.ok, found.message
    assert found.name == "Codebook language model (tiny-gpt2:latest on a server)" and found.classifier == "server"
    record = found.spec["record"]
    assert record["texts_leave_computer"] is False and record["server_model"] == MODEL["ollama"]
    assert record["server_model_digest"]
    assert any("answers of the server" in note for note in found.spec["notes"])
    np.testing.assert_allclose(np.asarray(found.probabilities).sum(axis=1), 1.0, atol=1e-5)
    assert len(found.spec["sensitivity"]["prompts"]) == 2


def test_a_model_that_does_not_write_text_is_refused_before_anything_runs(tmp_path):
    from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

    bert = save_tiny_bert(tmp_path / "a bert", tiny_tokenizer(tmp_path / "vocabulary", ["the", "text"]))
    with pytest.raises(UserError) as refused:
        run_experiment(study([codebook(str(bert))]), table=coded_texts(20), n_jobs=1)
    assert "holds no language model that writes text" in refused.value.message


def test_a_server_that_is_not_this_computer_needs_consent_before_anything_runs():
    model = ModelSpec("codebook_llm", "server", representation_options={
        "model": "llama3.2", "address": "http://192.0.2.7:11434", "protocol": "ollama"}, grid={"k": [0]})
    events: list = []
    with pytest.raises(UserError) as refused:
        run_experiment(study([model]), events.append, table=coded_texts(20), n_jobs=1)
    assert "Codebook language model (llama3.2 on a server):" in refused.value.message
    assert not [event for event in events if isinstance(event, Log)]


def test_the_health_check_names_a_missing_codebook_model(tmp_path):
    from guiapp.core.study.model_sources import model_problems

    problems, _ = model_problems(study([codebook(str(tmp_path / "gone"))]))
    assert len(problems) == 1 and "does not exist" in problems[0].message


def test_texts_sent_to_another_computer_are_warned_about_and_recorded(served, monkeypatch):  # noqa: F811
    from guiapp.core.models.llm.codebook_model import CodebookModel

    # the test server listens on 127.0.0.1 only: the address is taken as another computer's, as with consent
    monkeypatch.setattr(CodebookModel, "texts_leave_computer", property(lambda self: True))
    model = ModelSpec("codebook_llm", "server", representation_options={
        "model": MODEL["ollama"], "address": served, "protocol": "ollama", "texts_may_leave_computer": True,
        "sensitivity": 1}, grid={"k": [0]})
    events: list = []
    result = run_experiment(study([model]), events.append, table=coded_texts(18, seed=6), n_jobs=1)
    found = result.models[0]
    assert found.ok, found.message
    assert found.spec["record"]["texts_leave_computer"] is True
    warned = [event for event in events if isinstance(event, Log) and event.level == "warning"]
    assert any("which is not this computer, as you agreed" in event.message for event in warned)
    assert any("not this computer (with the researcher's agreement)" in note for note in found.spec["notes"])


def test_cancel_stops_a_study_on_a_server_between_questions(served):  # noqa: F811
    asked: list = []

    def stop_after_three_questions(event) -> None:
        if isinstance(event, Progress) and "Asking the language-model server" in event.message and event.done:
            asked.append(event.done)
            if len(asked) == 3:
                raise Cancelled()

    model = ModelSpec("codebook_llm", "server", representation_options={
        "model": MODEL["ollama"], "address": served, "protocol": "ollama", "sensitivity": 1}, grid={"k": [0, 1]})
    with pytest.raises(Cancelled) as stopped:
        run_experiment(study([model]), stop_after_three_questions, table=coded_texts(18, seed=6), n_jobs=1)
    assert asked == [1, 2, 3] and stopped.value.partial.status == "cancelled"


def test_each_wording_answers_the_test_texts_with_the_same_examples(lm_folder, monkeypatch):
    from guiapp.core.models.llm.codebook_model import CodebookModel

    seen: list[tuple] = []
    original = CodebookModel.predict_proba

    def spy(self, texts, on_event=None, positions=None):
        seen.append((self.instruction_variant, tuple(e.position for e in self.examples), tuple(positions or ())))
        return original(self, texts, *(() if on_event is None else (on_event,)), positions=positions)

    monkeypatch.setattr(CodebookModel, "predict_proba", spy)
    result = run_experiment(study([codebook(lm_folder, grid={"k": [1]}, sensitivity=3)]), table=coded_texts(24, seed=8),
                            n_jobs=1)
    model = result.models[0]
    assert model.ok, model.message
    on_test = [entry for entry in seen if list(entry[2]) == result.test_rows]
    assert [variant for variant, _, _ in on_test] == [0, 1, 2]
    assert len({examples for _, examples, _ in on_test}) == 1 and on_test[0][1]
    assert list(on_test[0][1]) == model.spec["record"]["example_positions"]
