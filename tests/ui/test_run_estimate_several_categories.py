"""The Run step's expected time counts a language model with your codebook's yes/no questions where a
text can have several categories: one question per category for every text, so three categories
mean three times the prompts of a study with one category per text."""

from __future__ import annotations

import re

import pytest

from guiapp.core.compute.machine_load import MachineLoad
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.ui.steps.run.run_page import RunPage
from guiapp.workers import ErrorSink
from tests.core.models.llm.tiny_causal_lm import tiny_causal_lm
from tests.ui.sample_reports import ready_report

CATEGORIES = ["positive", "negative", "neutral"]  # those of the ready report


def study(model: ModelSpec, several: bool) -> ExperimentSpec:
    mapping = (ColumnMapping(text_columns=["text"], multi_label=True, category_columns=CATEGORIES) if several
               else ColumnMapping(text_columns=["text"], category_column="label"))
    return ExperimentSpec(data=DataSpec("texts.csv", mapping=mapping), evaluation=EvaluationSpec(folds=3),
                          models=[model])


@pytest.fixture()
def page(qtbot):
    shown = RunPage(ErrorSink(None), run_fn=lambda *args, **kwargs: None)
    qtbot.addWidget(shown)
    shown.load_reader = lambda: MachineLoad(2, 0.0)
    shown.session.set_data(report=ready_report())
    return shown


def prompts(described: str) -> int:
    found = re.search(r"\(([\d,]+) prompts for the language model in all\)", described)
    assert found, described
    return int(found.group(1).replace(",", ""))


def test_a_server_gets_one_question_per_category_and_text(page):
    server = ModelSpec("codebook_llm", "server", grid={"k": [0, 2]}, representation_options={
        "model": "llama3.2", "address": "http://127.0.0.1:11434"})
    single = prompts(page.run_size(study(server, several=False)).describe())
    several = prompts(page.run_size(study(server, several=True)).describe())
    assert single > 0 and several == len(CATEGORIES) * single


def test_a_model_in_textlab_takes_longer_with_a_question_per_category(page, tmp_path):
    folder = str(tiny_causal_lm(tmp_path / "tiny"))
    here = ModelSpec("codebook_llm", "in_textlab", grid={"k": [0]}, representation_options={
        "model": folder, "device": "cpu"})
    single = page.run_size(study(here, several=False)).seconds
    several = page.run_size(study(here, several=True)).seconds
    assert single and several and several > 2 * single
