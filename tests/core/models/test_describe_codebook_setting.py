"""A language model with your codebook's setting is described in words through the one route every
family uses (``describe_params``), so tables, logs, the command line and the appendix agree."""

from __future__ import annotations

import pytest

from guiapp.core.experiment.results.describe import describe_chosen
from guiapp.core.experiment.results.experiment_result import ModelResult
from guiapp.core.models.conventional import describe_params
from guiapp.core.models.llm.codebook_options import IN_TEXTLAB, SERVER


@pytest.mark.parametrize("classifier", [IN_TEXTLAB, SERVER])
def test_describe_params_words_a_codebook_prompt_variant(classifier):
    assert describe_params(classifier, {"k": 2, "instruction": 1}) == (
        "2 examples per category, TextLab's instruction, wording 2")
    assert describe_params(classifier, {"k": 0, "instruction": -1}) == "no examples (zero-shot), your own instruction"


def test_other_families_are_described_as_before():
    assert describe_params("nli", {}).startswith("nothing to tune")
    assert describe_params("svm", {"C": 10.0}).startswith("C")


def test_describe_chosen_of_a_codebook_result_and_a_foreign_setting():
    model = ModelResult.__new__(ModelResult)
    model.representation, model.classifier = "codebook_llm", SERVER
    model.chosen_params = {"k": 1, "instruction": 0}
    assert describe_chosen(model) == "1 example per category, TextLab's instruction"
    model.chosen_params = {"k": "many"}  # a results file this version cannot read: the raw setting
    assert describe_chosen(model) == "k = many"
