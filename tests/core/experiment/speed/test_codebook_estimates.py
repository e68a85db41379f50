"""The expected time of a language model with your codebook: its parameters counted from config.json
without loading weights, its prompts counted from the grid, growing with k and the number of texts;
a language-model server's time is not guessed but said to be unknown, with the questions it gets."""

from __future__ import annotations

import json
import math

import pytest

from guiapp.core.errors import UserError
from guiapp.core.experiment.run.run_plan import plan_run
from guiapp.core.experiment.run.run_size import estimate_run
from guiapp.core.experiment.speed.codebook_estimates import (
    codebook_passes,
    codebook_seconds,
    model_parameters,
    prompt_tokens,
    seconds_per_prompt,
)
from guiapp.core.experiment.speed.estimates import estimate_seconds
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.models.llm.tiny_causal_lm import tiny_causal_lm


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("estimate models")
    found = {kind: str(tiny_causal_lm(root / kind, kind)) for kind in ("gpt2", "llama")}
    qwen = root / "qwen-shape"  # Qwen2.5-0.5B's published shape: only its config.json, no weights
    qwen.mkdir()
    qwen.joinpath("config.json").write_text(json.dumps({
        "model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 896, "intermediate_size": 4864,
        "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151936,
        "tie_word_embeddings": True}))
    found["qwen"] = str(qwen)
    return found


def in_textlab(folder: str, grid: dict | None = None, **options) -> ModelSpec:
    return ModelSpec("codebook_llm", "in_textlab", representation_options={"model": folder, **options},
                     grid=grid or {"k": [0, 2]})


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_parameters_are_counted_from_the_configuration(folders, kind):
    from transformers import AutoModelForCausalLM

    net = AutoModelForCausalLM.from_pretrained(folders[kind])
    counted = sum(p.numel() for p in net.parameters())
    assert model_parameters(folders[kind]) == pytest.approx(counted, rel=0.1)  # biases and norms left out


def test_a_half_billion_model_is_counted_without_its_weights(folders):
    assert model_parameters(folders["qwen"]) == pytest.approx(494e6, rel=0.03)  # Qwen2.5-0.5B: 0.49 B


def test_the_time_grows_with_examples_and_texts_and_stays_finite(folders):
    zero = in_textlab(folders["qwen"], {"k": [0]})
    few = in_textlab(folders["qwen"], {"k": [0, 4]})
    base = codebook_seconds(zero, 200, 50, 3, mean_tokens=40)
    assert math.isfinite(base) and base > 0
    assert codebook_seconds(few, 200, 50, 3, mean_tokens=40) > 2 * base  # a second variant, with longer prompts
    assert codebook_seconds(zero, 400, 50, 3, mean_tokens=40) > 1.5 * base
    assert prompt_tokens(few, 4, 3, 40) - prompt_tokens(few, 0, 3, 40) == pytest.approx(4 * 3 * (40 + 12))
    # on 2 cores (where it was measured) a 0.5 B model reads a 615-token prompt and scores 20 names in about 4.4 s
    assert seconds_per_prompt(model_parameters(folders["qwen"]), 615 + 20 * 4, cores=2) == pytest.approx(4.4, rel=0.1)
    assert seconds_per_prompt(model_parameters(folders["qwen"]), 615 + 20 * 4, cores=8) < 2.0
    assert codebook_seconds(zero, 200, 50, 3, mean_tokens=40, on_gpu=True) < base / 10
    assert estimate_seconds(zero, 200, 50, 3, 5, mean_tokens=40) == pytest.approx(base)


def test_prompts_count_every_variant_the_test_texts_and_the_wordings(folders):
    model = in_textlab(folders["gpt2"], {"k": [0, 1, 2]}, sensitivity=3)
    assert codebook_passes(model, 100, 20, 4) == 3 * 100 + 3 * 20
    assert codebook_passes(model, 100, 20, 4, multi_label=True) == 4 * (3 * 100 + 3 * 20)
    single = in_textlab(folders["gpt2"], {"k": [0]}, sensitivity=1)
    assert codebook_passes(single, 100, 20, 4) == 120


def test_a_server_is_not_guessed(folders):
    server = ModelSpec("codebook_llm", "server", representation_options={
        "model": "llama3.2", "address": "http://127.0.0.1:11434"}, grid={"k": [0, 2]})
    with pytest.raises(UserError) as unknown:
        estimate_seconds(server, 100, 20, 3, 5)
    assert "cannot estimate how long the language-model server takes" in unknown.value.message
    assert "ask it 260 questions" in unknown.value.message  # 2 variants × 100 + 20 × 3 wordings
    spec = ExperimentSpec(data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
                          evaluation=EvaluationSpec(folds=3), models=[
                              ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), server])
    size = estimate_run(spec, 100, 20, 3)
    assert size.seconds is not None and "without the language-model server's answers" in size.describe()
    assert "are not in the time above" in size.describe() and "(260 prompts for the language model in all)" in \
        size.describe()


def test_the_plan_counts_no_fits_and_a_missing_model_has_no_time(folders, tmp_path):
    spec = ExperimentSpec(data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
                          evaluation=EvaluationSpec(folds=4), models=[in_textlab(folders["gpt2"])])
    plan = plan_run(spec, 80, 20, 3)
    assert plan.fits == 0 and plan.seconds is not None and plan.models[0].passes == 2 * 80 + 3 * 20
    assert "2 prompt variants each answer every training text once on the first 4 folds" in plan.describe()
    assert "the test texts under 3 wordings of the instruction, for the prompt-sensitivity report" in plan.describe()
    assert "no fits: 2 prompt variants answer the training texts" in plan.models[0].describe_fits()
    missing = ExperimentSpec(data=spec.data, evaluation=spec.evaluation,
                             models=[in_textlab(str(tmp_path / "not here"))])
    assert plan_run(missing, 80, 20, 3).seconds is None


def test_a_small_model_reading_a_long_prompt_is_timed_by_its_attention_and_answers_not_its_weights(folders):
    """Measured on a random 2-layer model of width 32 with 20 categories: 18 ms for a 415-token prompt and
    95 ms for a 1,954-token one, where its weights alone would say about 11 and 17 ms."""
    from guiapp.core.experiment.speed.codebook_estimates import model_shape

    small = dict(layers=2, hidden=32, answers=20, cores=2)
    assert seconds_per_prompt(330_000, 415, **small) == pytest.approx(0.0185, rel=0.35)
    assert seconds_per_prompt(330_000, 1954, **small) == pytest.approx(0.095, rel=0.35)
    assert seconds_per_prompt(330_000, 1954, **small) > 4 * seconds_per_prompt(330_000, 1954, cores=2)
    qwen = model_shape(folders["qwen"])
    assert (qwen.layers, qwen.hidden) == (24, 896)
    big = seconds_per_prompt(qwen.parameters, 615 + 20 * 4, cores=2, layers=qwen.layers, hidden=qwen.hidden, answers=20)
    assert big == pytest.approx(seconds_per_prompt(qwen.parameters, 615 + 20 * 4, cores=2))  # its weights set it
