"""The study file's settings of a language model with your codebook: checks, defaults, the grid of
prompt variants, and the model they make."""

from __future__ import annotations

import pytest

from guiapp.core.errors import UserError
from guiapp.core.models.llm.codebook_model import InTextLab, OnServer
from guiapp.core.models.llm.codebook_options import (
    check_codebook_llm,
    codebook_llm_options,
    codebook_model_for,
    describe_codebook_params,
    display_name,
    expand_codebook_grid,
)
from guiapp.core.study.sections import ModelSpec, SpecError


def test_a_model_in_textlab_reads_with_its_defaults_and_names_itself_by_its_folder():
    spec = ModelSpec.from_dict({"representation": "codebook_llm", "classifier": "in_textlab",
                                "representation_options": {"model": "/models/Qwen2.5-0.5B-Instruct/"}})
    assert spec.display_name == "Codebook language model (Qwen2.5-0.5B-Instruct)"
    options = codebook_llm_options("in_textlab", spec.representation_options)
    assert options["device"] == "auto" and options["batch_size"] == 8 and options["sensitivity"] == 3
    assert expand_codebook_grid(spec.grid) == [{"k": 0, "instruction": 0}, {"k": 2, "instruction": 0}]


def test_a_server_model_needs_its_address_and_knows_only_two_protocols():
    with pytest.raises(SpecError, match="address"):
        ModelSpec.from_dict({"representation": "codebook_llm", "classifier": "server",
                             "representation_options": {"model": "llama3.2"}})
    with pytest.raises(UserError, match="server kind"):
        check_codebook_llm("server", {"model": "m", "address": "http://127.0.0.1:1", "protocol": "grpc"}, {})
    options = codebook_llm_options("server", {"model": "llama3.2", "address": "http://127.0.0.1:11434"})
    assert options["protocol"] == "ollama" and options["texts_may_leave_computer"] is False
    assert display_name("server", options) == "Codebook language model (llama3.2 on a server)"


@pytest.mark.parametrize(("options", "grid", "words"), [
    ({}, {}, "needs a model"),
    ({"model": "m", "address": "x"}, {}, "no option 'address'"),
    ({"model": "m", "sensitivity": 4}, {}, "'sensitivity' must be a whole number from 1 to 3"),
    ({"model": "m"}, {"k": [101]}, "'k' in the grid"),
    ({"model": "m"}, {"instruction": [3]}, "one of TextLab's instructions"),
    ({"model": "m"}, {"temperature": [1]}, "temperature"),
    ({"model": "m", "instruction": "Code it."}, {"instruction": [1]}, "your own instruction"),
    ({"model": "m", "descriptions": {"a": 3}}, {}, "description of the category 'a'"),
])
def test_settings_that_cannot_be_used_are_refused_in_words(options, grid, words):
    with pytest.raises(UserError, match=words):
        check_codebook_llm("in_textlab", options, grid)


def test_the_grid_tries_fewest_examples_first_and_says_each_point_in_words():
    points = expand_codebook_grid({"k": [4, 0], "instruction": [1, 0]})
    assert [point["k"] for point in points] == [0, 0, 4, 4]
    assert describe_codebook_params({"k": 0, "instruction": 0}) == "no examples (zero-shot), TextLab's instruction"
    assert describe_codebook_params({"k": 1, "instruction": -1}) == "1 example per category, your own instruction"
    assert expand_codebook_grid({}, own_instruction=True) == [{"k": 0, "instruction": -1}, {"k": 2, "instruction": -1}]


def test_the_model_is_made_from_the_codebook_of_the_study_s_categories_only():
    options = codebook_llm_options("in_textlab", {
        "model": "/models/tiny", "descriptions": {"pro": "Supports it.", "other": "Not a category here."},
        "examples": {"con": "Never again."}})
    model = codebook_model_for("in_textlab", options, ["pro", "con"], {"k": 2, "instruction": 1},
                               multi_label=False, seed=7)
    assert isinstance(model.runs, InTextLab) and model.k == 2 and model.seed == 7
    assert model.instruction_variant == 1
    prompt = model.prompt.sample("A text.")
    assert "Supports it." in prompt and "Never again." in prompt and "Not a category here." not in prompt
    own = codebook_llm_options("server", {"model": "m", "address": "http://127.0.0.1:9", "instruction": "Code it."})
    model = codebook_model_for("server", own, ["pro", "con"], {"k": 0, "instruction": -1}, multi_label=True, seed=0)
    assert isinstance(model.runs, OnServer) and model.prompt.instruction == "Code it." and model.multi_label
