"""Models that need few or no coded texts inside a study: zero-shot (similarity, NLI) and SetFit are
scored on the study's folds, tested on the same test texts, combined with the other models, saved so
that the saved model answers as in the study, counted before the run, drawn in a learning curve and
written up in the methods appendix — also where a text can have several categories.

Tiny randomly initialised BERT models built here (a sentence model, and an NLI model with
contradiction / neutral / entailment answers) stand in for real ones: the tests check the engine, not
language, and each training run takes well under a second."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from guiapp.core.events import Log
from guiapp.core.experiment.scores.comparisons import compare_models
from guiapp.core.experiment.speed.estimates import estimate_seconds
from guiapp.core.experiment.curves.learning_curves import (
    LearningCurveOptions,
    run_learning_curve,
)
from guiapp.core.experiment.run.run_plan import plan_run
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.export.appendix_data import build_appendix
from guiapp.core.export.appendix_references import references
from guiapp.core.export.appendix_text import appendix_paragraph
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import SHARED, TOPIC_WORDS, coded_texts
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "multi_label_small.csv"
LABEL_WORDS = ["this", "text", "is", "about", "hospitals", "doctors", "patients"]
NLI_LABELS = {0: "contradiction", 1: "neutral", 2: "entailment"}
SETFIT_GRID = {"epochs": [1], "pairs_per_text": [2], "learning_rate": [1e-3]}


def words() -> list[str]:
    return sorted({*SHARED, *LABEL_WORDS, *(word for topic in TOPIC_WORDS.values() for word in topic), *TOPIC_WORDS})


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    """A tiny sentence model and a tiny NLI model, saved as a researcher's model folders."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from guiapp.core.models.transformers.sources.files import quiet_loading

    root = tmp_path_factory.mktemp("tiny models")
    tokenizer = tiny_tokenizer(root / "vocabulary", words())
    sentence = save_tiny_bert(root / "tiny-sentence", tokenizer)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128, num_labels=3, id2label=NLI_LABELS,
                        label2id={name: index for index, name in NLI_LABELS.items()})
    torch.manual_seed(0)
    nli = root / "tiny-nli"
    with quiet_loading():
        BertForSequenceClassification(config).eval().save_pretrained(str(nli))
        tokenizer.save_pretrained(str(nli))
    return {"sentence": sentence, "nli": nli}


def similarity(folder: Path, **options) -> ModelSpec:
    return ModelSpec("zero_shot", "similarity", representation_options={
        "model": str(folder), "descriptions": {"health": "hospitals doctors patients"}, **options})


def nli(folder: Path) -> ModelSpec:
    return ModelSpec("zero_shot", "nli", representation_options={"model": str(folder)})


def setfit(folder: Path) -> ModelSpec:
    return ModelSpec("setfit", "setfit", representation_options={"model": str(folder), "max_length": 32,
                                                                 "device": "cpu"}, grid=dict(SETFIT_GRID))


def study(models: list[ModelSpec], **evaluation) -> ExperimentSpec:
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(**{"folds": 3, "bootstrap_samples": 100, **evaluation}),
        models=models, seed=3,
    )


@pytest.fixture(scope="module")
def compared(tiny_models, tmp_path_factory):
    """One study: a bag-of-words model beside the three new families, with the combined models."""
    folder = tmp_path_factory.mktemp("few shot study")
    events: list = []
    spec = study([ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), similarity(tiny_models["sentence"]),
                  nli(tiny_models["nli"]), setfit(tiny_models["sentence"])])
    result = run_experiment(spec, events.append, table=coded_texts(60, seed=1), n_jobs=1,
                            artefacts_dir=folder / "models")
    return result, events


def test_every_family_is_scored_on_the_folds_and_the_test_texts(compared):
    result, _ = compared
    zero_similarity, zero_nli, set_fit = result.models[1:4]
    n_test, n_categories = len(result.test_true), len(result.categories)
    for model in (zero_similarity, zero_nli, set_fit):
        assert model.ok, model.message
        assert len(model.cv_scores) == 3 and all(0.0 <= score <= 1.0 for score in model.cv_scores)
        assert model.test.macro_f1_ci is not None and len(model.test.confusion) == n_categories
        assert len(model.predictions) == n_test
        probabilities = np.asarray(model.probabilities)
        assert probabilities.shape == (n_test, n_categories)
        np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)
        assert model.predictions == [int(k) for k in probabilities.argmax(axis=1)]
        assert model.seconds["total"] > 0
    # zero-shot: one grid point, nothing tuned, its descriptions as used
    assert zero_similarity.chosen_params == {} and len(zero_similarity.grid) == 1
    options = zero_similarity.representation_options
    assert options["descriptions"] == {"health": "hospitals doctors patients"}
    assert options["template"] == "This text is about {}." and options["temperature"] == 0.05
    assert any("“defence” and “energy” had no description" in note for note in zero_similarity.notes)
    # SetFit: its grid searched on the study's folds (small enough on a CPU), then refitted
    assert set_fit.chosen_params == {"epochs": 1, "pairs_per_text": 2, "learning_rate": 1e-3}
    assert set_fit.tuning == "3-fold cross-validation" and set_fit.spec["pairs"] == 2 * 2 * result.split["n_train"]
    assert set_fit.n_features > 0 and set_fit.device.kind == "cpu"


def test_combined_models_learn_from_the_zero_shot_probabilities_of_every_training_text(compared):
    result, _ = compared
    vote, stacking = result.models[-2:]
    assert vote.representation == stacking.representation == "combined" and vote.ok and stacking.ok
    assert vote.combination.parts == [model.name for model in result.models[:4]]
    assert vote.combination.learnt_on_texts == result.split["n_train"]  # folds: every text held out once


def test_paired_tests_and_agreement_with_the_coding_include_the_new_families(compared):
    result, _ = compared
    found = compare_models(result, samples=200)
    new = [model.name for model in result.models[1:4]]
    agreement = {row.model: row for row in found.agreement}
    for name, model in zip(new, result.models[1:4], strict=True):
        row = agreement[name]
        assert row.n_texts == len(result.test_true)
        assert row.share_agreeing == pytest.approx(np.mean(np.asarray(model.predictions) == result.test_true))
        assert -1.0 <= row.kappa <= 1.0 and row.kappa_interval[0] <= row.kappa <= row.kappa_interval[1]
        assert -1.0 <= row.alpha <= 1.0
    paired = {(c.model_a, c.model_b) for c in found.test_set} | {(c.model_b, c.model_a) for c in found.test_set}
    assert all((result.models[0].name, name) in paired for name in new)
    assert {c.model_a for c in found.folds} | {c.model_b for c in found.folds} >= set(new)


def test_the_saved_models_answer_as_in_the_study(compared):
    result, _ = compared
    for model in result.models[1:4]:
        opened = open_trained_model(model.artefact, model.name)
        decided, probabilities = opened.answer(result.test_texts)
        np.testing.assert_allclose(probabilities, model.probabilities, atol=2e-5)
        assert [int(k) for k in decided] == model.predictions
    combined = open_trained_model(result.models[-1].artefact, result.models[-1].name)
    _, probabilities = combined.answer(result.test_texts)
    np.testing.assert_allclose(probabilities, result.models[-1].probabilities, atol=2e-5)


def test_the_run_says_what_each_family_does(compared):
    _, events = compared
    said = " ".join(event.message for event in events if isinstance(event, Log))
    assert "learns nothing from the coded texts" in said
    assert "SetFit (tiny-sentence) is trained 4 times: 1 setting on each of 3 folds" in said
    assert "settings chosen by 3-fold cross-validation" in said
    assert "chosen nothing to tune" in said


def test_the_methods_appendix_names_each_family(compared):
    result, _ = compared
    appendix = build_appendix(result)
    facts = {model["name"]: model for model in appendix["models"]}
    zero = facts[result.models[1].name]
    assert zero["few_shot"]["learnt_from_coded_texts"] is False and "grid" not in zero and "tuning" not in zero
    assert zero["few_shot"]["descriptions"][0] == {"category": "defence", "description": "defence", "by_name": True}
    assert zero["cv_splits"] == 3
    assert facts[result.models[3].name]["few_shot"]["pairs_per_text"] == 2
    prose = appendix_paragraph(appendix)
    assert "was a zero-shot classifier: it was not trained on any coded text" in prose
    assert "health as “hospitals doctors patients”" in prose and "by their name" in prose
    assert "the test texts only to evaluate it" in prose
    assert "(Tunstall et al., 2022)" in prose and "2 pairs of texts of the same category" in prose
    assert "“This text is about [category].”" in prose
    assert "(Yin et al., 2019)" in prose
    assert {"Tunstall et al., 2022", "Yin et al., 2019"} <= {work["key"] for work in references(prose)}
    assert "pairs per epoch on the training set" in prose and "drawn at random" not in prose


def test_the_methods_appendix_says_when_setfit_drew_its_pairs():
    from guiapp.core.export.appendix_text import _setfit_sentence

    model = {"name": "SetFit (all-MiniLM-L6-v2)"}
    capped = _setfit_sentence(model, {"pairs_per_text": 20, "pairs": 5000, "max_pairs": 5000, "epochs": 1}, False)
    assert "of which 5,000 per epoch, the most allowed, were drawn at random" in capped
    whole = _setfit_sentence(model, {"pairs_per_text": 20, "pairs": 640, "max_pairs": 5000, "epochs": 1}, False)
    assert "640 pairs per epoch on the training set" in whole and "random" not in whole


def test_the_plan_counts_passes_and_pairs(tiny_models):
    spec = study([similarity(tiny_models["sentence"]), nli(tiny_models["nli"]), setfit(tiny_models["sentence"])])
    plan = plan_run(spec, 300, 100, 4)
    zero_similarity, zero_nli, set_fit = plan.models
    assert zero_similarity.fits == zero_nli.fits == 0
    assert zero_similarity.passes == 400 + 4 and zero_nli.passes == 400 * 4
    assert set_fit.fits == 3 + 1 and set_fit.tuning_splits == 3
    assert set_fit.pairs_per_fit == 2 * 2 * 200 and set_fit.epochs == 1
    assert plan.seconds is not None and plan.seconds > 0
    said = plan.describe()
    assert "1,600 passes of its language model" in said and "about 800 pairs of coded texts per epoch" in said
    for model in spec.models:
        assert estimate_seconds(model, 300, 100, 4, 3) > 0
    uncapped = spec.models[2]
    capped = ModelSpec("setfit", "setfit", representation_options={**uncapped.representation_options,
                                                                     "max_pairs": 300}, grid=uncapped.grid)
    assert plan_run(study([capped]), 300, 100, 4).models[0].pairs_per_fit == 300
    assert estimate_seconds(capped, 300, 100, 4, 3) < estimate_seconds(uncapped, 300, 100, 4, 3)
    big = study([ModelSpec("setfit", "setfit", grid={"pairs_per_text": [20], "epochs": [3]})])
    assert plan_run(big, 5000, 1000, 4).models[0].tuning == "validation split"  # folds would take hours on a CPU
    assert plan_run(big, 5000, 1000, 4, gpu=True).models[0].tuning == "cross-validation"
    on_processor = study([ModelSpec("setfit", "setfit", representation_options={"device": "cpu"},
                                    grid={"pairs_per_text": [20], "epochs": [3]})])
    assert plan_run(on_processor, 5000, 1000, 4, gpu=True).models[0].tuning == "validation split"


def test_setfit_on_one_validation_split_is_trained_in_each_fold_so_the_combined_models_learn_from_every_text(
        tiny_models, tmp_path):
    spec = study([ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), setfit(tiny_models["sentence"])],
                 transformer_tuning="validation split")
    planned = plan_run(spec, 72, 18, 3).models[1]
    assert planned.out_of_fold_fits == 3 and planned.fits == 1 + 3 + 1  # tuning, a run per fold, the final one
    assert "once in each of 3 folds for the combined models" in plan_run(spec, 72, 18, 3).describe()
    result = run_experiment(spec, table=coded_texts(90, shares=(0.4, 0.3, 0.3), seed=2), n_jobs=1,
                            artefacts_dir=tmp_path)
    set_fit, vote = result.models[1], result.models[2]
    assert set_fit.ok and set_fit.tuning == "one validation split (20% of the training texts)"
    assert len(set_fit.cv_scores) == 1
    assert any("also trained in each of the 3 folds" in note for note in set_fit.spec["notes"])
    assert vote.ok and vote.combination.learnt_on_texts == result.split["n_train"]


def test_setfit_too_dear_to_train_in_each_fold_gives_the_combined_models_its_validation_texts(
        tiny_models, tmp_path, monkeypatch):
    from guiapp.core.experiment.families import transformer_out_of_fold
    monkeypatch.setattr(transformer_out_of_fold, "AFFORDABLE_SECONDS", 0.0)
    spec = study([ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), setfit(tiny_models["sentence"])],
                 transformer_tuning="validation split")
    assert plan_run(spec, 72, 18, 3).models[1].out_of_fold_fits == 0
    result = run_experiment(spec, table=coded_texts(90, shares=(0.4, 0.3, 0.3), seed=2), n_jobs=1,
                            artefacts_dir=tmp_path)
    vote = result.models[2]
    assert vote.ok and vote.combination.learnt_on_texts == round(result.split["n_train"] * 0.2)


def test_a_zero_shot_learning_curve_scores_the_same_at_every_size(tiny_models):
    spec = study([similarity(tiny_models["sentence"]), setfit(tiny_models["sentence"])])
    curve = run_learning_curve(spec, table=coded_texts(80, seed=4), n_jobs=1,
                               options=LearningCurveOptions(sizes=(15, 30), repeats=2))
    zero, set_fit = curve.models
    assert zero.ok and set_fit.ok, (zero.message, set_fit.message)
    assert len(zero.points) == len(curve.sizes) * 2
    assert len({point.macro_f1 for point in zero.points}) == 1
    assert len({tuple(point.category_f1) for point in zero.points}) == 1
    assert zero.tuning == []
    assert [point.size for point in set_fit.summary()] == curve.sizes


def test_a_zero_shot_model_where_a_text_can_have_several_categories(tiny_models, tmp_path):
    source = tmp_path / "coded.csv"
    shutil.copy(FIXTURE, source)
    categories = ["economy", "health", "environment", "migration"]
    spec = ExperimentSpec(
        data=DataSpec(source=str(source), mapping=ColumnMapping(text_columns=["text"], multi_label=True,
                                                                category_columns=categories)),
        evaluation=EvaluationSpec(folds=3, bootstrap_samples=100, tune_thresholds=True),
        models=[ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), similarity(tiny_models["sentence"])],
    )
    result = run_experiment(spec, n_jobs=1, artefacts_dir=tmp_path / "models")
    zero = result.models[1]
    assert result.multi_label and zero.ok, zero.message
    assert zero.test.multi_label and zero.test.micro_f1 is not None
    assert len(zero.thresholds) == len(categories) and all(0.0 < value < 1.0 for value in zero.thresholds)
    assert all(isinstance(answer, list) for answer in zero.predictions)
    probabilities = np.asarray(zero.probabilities)
    decided = probabilities >= np.asarray(zero.thresholds)
    assert [list(np.flatnonzero(row)) for row in decided] == zero.predictions
    assert any("centre" in note for note in zero.notes)
    assert [model.representation for model in result.models[2:]] == ["combined", "combined"]
    opened = open_trained_model(zero.artefact, zero.name)
    decisions, answered = opened.answer(result.test_texts)
    np.testing.assert_allclose(answered, zero.probabilities, atol=2e-5)  # the centres were saved
    np.testing.assert_array_equal(decisions, answered >= np.asarray(zero.thresholds))  # and the thresholds
    prose = appendix_paragraph(build_appendix(result))
    assert "the zero-shot models gave each category its own probability" in prose
    assert "minus its mean over the training texts" in prose and "to choose each category's threshold" in prose
