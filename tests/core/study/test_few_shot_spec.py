"""The models that need few or no coded texts in a study file: zero-shot (similarity, NLI) and SetFit
round-trip through TOML with their options and grid, and settings that cannot be used are refused
in words that name the model and what to write instead."""

from __future__ import annotations

import pytest

from guiapp.core.models.conventional import describe_params
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.schema import study_json_schema
from guiapp.core.study.sections import (
    FEW_SHOT_MODELS,
    ModelSpec,
    SpecError,
    available_models,
)
from guiapp.core.study.spec import DataSpec, ExperimentSpec

DESCRIPTIONS = {"economy": "Taxes, jobs and prices.", "health": "Hospitals, doctors and patients."}


def study(*models: ModelSpec) -> ExperimentSpec:
    return ExperimentSpec(
        name="few coded texts",
        data=DataSpec(source="coded.csv", mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        models=list(models),
    )


def test_the_three_families_round_trip_through_a_toml_study_file(tmp_path):
    similarity = ModelSpec("zero_shot", "similarity", representation_options={
        "descriptions": DESCRIPTIONS, "template": "A text on {}.", "temperature": 0.1,
        "examples": {"economy": ["Taxes will rise next year."]}})
    nli = ModelSpec("zero_shot", "nli", representation_options={"model": "facebook/bart-large-mnli",
                                                                 "descriptions": {"health": "health care"}})
    setfit = ModelSpec("setfit", "setfit", representation_options={"max_length": 64, "device": "cpu"},
                       grid={"epochs": [1, 2], "pairs_per_text": [10], "learning_rate": [2e-5, 5e-5]})
    spec = study(similarity, nli, setfit)
    path = tmp_path / "study.toml"
    spec.save(path)
    text = path.read_text(encoding="utf-8")
    assert 'representation = "zero_shot"' in text and 'classifier = "nli"' in text and "pairs_per_text" in text
    again = ExperimentSpec.load(path)
    assert again.to_dict() == spec.to_dict()
    assert again.models[0].representation_options["descriptions"] == DESCRIPTIONS
    assert again.models[2].grid == {"epochs": [1, 2], "pairs_per_text": [10], "learning_rate": [2e-5, 5e-5]}
    assert [model.display_name for model in again.models] == [
        "Zero-shot · similarity (all-MiniLM-L6-v2)",
        "Zero-shot · NLI (bart-large-mnli)",
        "SetFit (all-MiniLM-L6-v2)",
    ]
    assert ExperimentSpec.from_json(spec.to_json()).to_dict() == spec.to_dict()


def test_a_hand_written_study_file_with_a_descriptions_table_reads(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(
        '[data]\nsource = "coded.csv"\n[data.mapping]\ntext_columns = ["text"]\ncategory_column = "label"\n\n'
        '[[models]]\nrepresentation = "Zero_Shot"\nclassifier = "NLI"\n\n'
        '[models.representation_options]\nmodel = "/models/my-nli"\n\n'
        '[models.representation_options.descriptions]\neconomy = "taxes and jobs"\n\n'
        '[[models]]\nrepresentation = "setfit"\nclassifier = "setfit"\ngrid = { epochs = 2.0, pairs_per_text = 5 }\n',
        encoding="utf-8")
    nli, setfit = ExperimentSpec.load(path).models
    assert (nli.representation, nli.classifier) == ("zero_shot", "nli")
    assert nli.display_name == "Zero-shot · NLI (my-nli)"
    assert nli.representation_options["descriptions"] == {"economy": "taxes and jobs"}
    assert setfit.grid == {"epochs": [2.0], "pairs_per_text": [5]}


@pytest.mark.parametrize(("model", "words"), [
    (ModelSpec("zero_shot", "nli"), "needs a model trained for natural-language inference"),
    (ModelSpec("zero_shot", "nli", {"model": "  "}), "needs a model trained for natural-language inference"),
    (ModelSpec("zero_shot", "similarity", {"template": "About this text."}), "must hold {} exactly once"),
    (ModelSpec("zero_shot", "similarity", {"template": "{} and {}"}), "must hold {} exactly once"),
    (ModelSpec("zero_shot", "similarity", {"template": "{} in {braces}"}), "must hold {} exactly once"),
    (ModelSpec("zero_shot", "similarity", {"temperature": 0}), "temperature must be a number above 0"),
    (ModelSpec("zero_shot", "similarity", {"temperature": -0.5}), "temperature must be a number above 0"),
    (ModelSpec("zero_shot", "similarity", {"temperature": "warm"}), "temperature must be a number above 0"),
    (ModelSpec("zero_shot", "similarity", {"descriptions": "economy"}), "must be a table of category"),
    (ModelSpec("zero_shot", "similarity", {"descriptions": {"economy": 3}}), "description of the category 'economy'"),
    (ModelSpec("zero_shot", "similarity", {"examples": {"economy": [1, 2]}}), "examples of the category 'economy'"),
    (ModelSpec("zero_shot", "similarity", {"colour": "red"}), "has no option 'colour'"),
    (ModelSpec("zero_shot", "similarity", grid={"C": [1]}), "has no settings to try"),
    (ModelSpec("setfit", "setfit", grid={"epochs": [0]}), "'epochs' in the SetFit grid must be a whole number from 1"),
    (ModelSpec("setfit", "setfit", grid={"pairs_per_text": [2.5]}), "'pairs_per_text' in the SetFit grid"),
    (ModelSpec("setfit", "setfit", grid={"pairs_per_text": [5000]}), "from 1 to 1000"),
    (ModelSpec("setfit", "setfit", grid={"learning_rate": [1.0]}), "above 0 and below 1"),
    (ModelSpec("setfit", "setfit", grid={"learning_rate": []}), "has no value for 'learning_rate'"),
    (ModelSpec("setfit", "setfit", grid={"C": [1.0]}), "unknown setting(s): C"),
    (ModelSpec("setfit", "setfit", {"max_length": 4}), "'max_length' must be a whole number from 8"),
    (ModelSpec("setfit", "setfit", {"device": "tpu"}), "device cannot be 'tpu'"),
    (ModelSpec("setfit", "nli"), "is not a model TextLab knows"),
    (ModelSpec("bow", "setfit"), "is not a model TextLab knows"),
    (ModelSpec("zero_shot", "svm"), "is not a model TextLab knows"),
])
def test_settings_that_cannot_be_used_are_refused_in_words(model, words):
    with pytest.raises(SpecError) as raised:
        model.check()
    message = raised.value.message
    assert words in message, message
    assert "model '" in message  # the model is named
    assert "Traceback" not in message


def test_a_bad_setting_in_a_study_file_is_refused_when_it_is_opened():
    text = study(ModelSpec("zero_shot", "nli", {"model": "x/y"})).to_toml().replace('model = "x/y"', 'model = ""')
    with pytest.raises(SpecError, match="natural-language inference") as raised:
        ExperimentSpec.from_toml(text)
    assert "facebook/bart-large-mnli" in raised.value.hint


def test_the_families_are_listed_for_the_models_step_and_the_schema():
    assert set(FEW_SHOT_MODELS) <= set(available_models(few_shot=True))
    assert not set(FEW_SHOT_MODELS) & set(available_models())  # the grid of the Models step is unchanged
    model = study_json_schema()["$defs"]["ModelSchema"]["properties"]
    assert {"zero_shot", "setfit"} <= set(model["representation"]["enum"])
    assert {"similarity", "nli", "setfit"} <= set(model["classifier"]["enum"])


def test_chosen_settings_are_described_in_words():
    assert describe_params("setfit", {"epochs": 1, "pairs_per_text": 20, "learning_rate": 2e-5}) == (
        "epochs = 1, pairs per text = 20, learning rate = 2e-05")
    assert "learns nothing" in describe_params("similarity", {})
    assert "learns nothing" in describe_params("nli", {})
