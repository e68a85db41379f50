"""How much work a language model with your codebook does in a study, and how long it takes.

The work is counted in prompts the model reads (one per text; where a text can have several
categories, one yes/no question per text and category). In a study (``codebook_runner.py``):

* every prompt variant of the grid answers every training text once — each in the one fold where it
  is held out (k > 0: the examples are drawn from the fold's other texts), or once for all folds
  (k = 0: nothing is drawn, so one pass serves every fold);
* the chosen variant, with examples drawn from all training texts, answers the test texts;
* for the prompt-sensitivity report, each other wording of the instruction answers them too.

Inside TextLab the seconds follow from the model's size and the prompt's length. The model's
parameters are counted from its folder's ``config.json`` (hidden size, layers, the feed-forward
width and the vocabulary; no weights are loaded), the prompt's tokens from the codebook (each
category's name, definition and codebook examples), the instruction, k examples per category of
the study's mean text length, the text, and the answers scored after it (each category's name, or
yes and no). A prompt costs

    :data:`CPU_SECONDS_PER_TEXT` + :data:`CPU_SECONDS_PER_TOKEN_PARAMETER` × tokens × parameters

measured with ``benchmarks/bench_llm.py`` on a 2-core processor (a random 0.5 B model of Qwen2.5's
shape: 4.4 s for a 615-token prompt and 20 categories; a 24 M model in a small study of 300-token
prompts: 0.08 s; a 0.6 M model: 0.006 s), scaled to this computer's cores. A small model reading a
long prompt takes longer than its weights say: the attention over the prompt (tokens² × layers ×
hidden size) and scoring each category's name against the whole prompt cost time that does not
shrink with the model, so a prompt costs at least

    :data:`CPU_SECONDS_PER_TEXT` + :data:`CPU_SECONDS_PER_ATTENTION` × tokens² × layers × hidden
    + :data:`CPU_SECONDS_PER_ANSWER_TOKEN` × answers × tokens

(measured on a random 2-layer model of width 32 in the example study's 20 categories: 18 ms for a
415-token prompt, 95 ms for a 1,954-token one, where its weights alone say 11 and 17 ms). On a GPU the figure :data:`GPU_SECONDS_PER_TOKEN_PARAMETER` is an assumption (about
a hundredth of the processor's time; no GPU could be measured where this was written) and is said
as such. A model that is not on this computer yet cannot be estimated (its size is not known).

On a language-model server the time depends on the server's computer, which TextLab cannot see:
the estimate refuses in words (:class:`~guiapp.core.errors.UserError`) and says how many questions
the study will ask; the run plan counts the questions instead of seconds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.study.sections import ModelSpec

CPU_SECONDS_PER_TEXT = 0.01  # tokenising, batching, the answers' bookkeeping: about a tiny model's whole time
CPU_SECONDS_PER_TOKEN_PARAMETER = 1.2e-11  # 2 cores: 0.5 B: 4.4 s ÷ (695 tokens × 0.49 B); 24 M: 0.95e-11
MEASURED_CORES = 2
CPU_SECONDS_PER_ATTENTION = 1.9e-10  # per token² × layer × hidden unit: a small model's attention over its prompt
CPU_SECONDS_PER_ANSWER_TOKEN = 1.3e-6  # per answer scored × prompt token: each name read against the whole prompt
GPU_SECONDS_PER_TOKEN_PARAMETER = 1.5e-13  # an assumption: about a hundredth of 2 processor cores' time
GPU_SECONDS_PER_TEXT = 0.005
LOAD_SECONDS_PER_GB = 2.0  # reading the weights from disk and hashing them, per GB of weights
TOKENS_PER_WORD = 1.3
INSTRUCTION_TOKENS = 60  # the instruction and the answer's format
PER_CATEGORY_TOKENS = 8  # a category's line: its name and punctuation (without its definition)
PER_EXAMPLE_TOKENS = 12  # an example's frame: "Text:", quotes, its category's name
QUESTION_TOKENS = 15  # "Does this text belong to the category …?" (several categories per text)
ANSWER_TOKENS = 4  # a category's name scored after the prompt (yes and no: 1 each)
DEFAULT_TEXT_TOKENS = 64.0
CODEBOOK_LLM = "codebook_llm"


def is_codebook_model(model: ModelSpec) -> bool:
    return model.representation == CODEBOOK_LLM


def prompt_variants(model: ModelSpec) -> list[dict[str, int]]:
    """The grid's prompt variants (``k``, ``instruction``), fewest examples first."""
    from guiapp.core.models.llm.codebook_options import codebook_llm_options, expand_codebook_grid

    options = codebook_llm_options(model.classifier, dict(model.representation_options or {}))
    return expand_codebook_grid(model.grid, own_instruction=options["instruction"] is not None)


def sensitivity_of(model: ModelSpec) -> int:
    """How many wordings answer the test texts for the sensitivity report (1: only the chosen one)."""
    from guiapp.core.models.llm.codebook_options import codebook_llm_options

    return int(codebook_llm_options(model.classifier, dict(model.representation_options or {}))["sensitivity"])


def codebook_passes(model: ModelSpec, n_train: int, n_test: int, n_categories: int,
                    multi_label: bool = False) -> int:
    """Prompts the model reads in a study (see the module docstring)."""
    per_text = max(n_categories, 1) if multi_label else 1
    return per_text * sum(codebook_pass_counts(model, n_train, n_test).values())


def codebook_pass_counts(model: ModelSpec, n_train: int, n_test: int) -> dict[int, int]:
    """Texts answered per k (examples per category): the grid's variants on the training texts,
    the chosen one (costed at the largest k) and the other wordings on the test texts."""
    counts: dict[int, int] = {}
    for point in prompt_variants(model):
        counts[point["k"]] = counts.get(point["k"], 0) + max(n_train, 0)
    largest = max(counts) if counts else 0
    counts[largest] = counts.get(largest, 0) + max(n_test, 0) * sensitivity_of(model)
    return counts


def prompt_tokens(model: ModelSpec, k: int, n_categories: int, mean_tokens: float | None,
                  multi_label: bool = False) -> float:
    """About how many tokens one prompt has: instruction, codebook, k examples per category and the text."""
    from guiapp.core.models.llm.codebook_options import codebook_llm_options

    options = codebook_llm_options(model.classifier, dict(model.representation_options or {}))
    text = float(mean_tokens) if mean_tokens else DEFAULT_TEXT_TOKENS
    codebook = sum(_words(value) for value in options["descriptions"].values()) * TOKENS_PER_WORD
    codebook += sum(_words(value) for texts in options["examples"].values() for value in texts) * TOKENS_PER_WORD
    instruction = _words(options["instruction"]) * TOKENS_PER_WORD if options["instruction"] else INSTRUCTION_TOKENS
    examples = k * max(n_categories, 1) * (text + PER_EXAMPLE_TOKENS)
    question = QUESTION_TOKENS if multi_label else 0
    answers = 2 if multi_label else max(n_categories, 1) * ANSWER_TOKENS
    return instruction + max(n_categories, 1) * PER_CATEGORY_TOKENS + codebook + examples + text + question + answers


def _words(text: Any) -> int:
    return len(str(text or "").split())


@dataclass(frozen=True)
class ModelShape:
    """What the time of a causal language model depends on, from its ``config.json``."""

    parameters: int
    layers: int
    hidden: int


def model_parameters(source: str) -> int:
    """The causal language model's parameters (:func:`model_shape`)."""
    return model_shape(source).parameters


def model_shape(source: str) -> ModelShape:
    """The causal language model's parameters, counted from its ``config.json`` (no weights loaded):
    the embeddings (twice where the output layer is not tied to them) and per layer the attention
    (queries and outputs h², keys and values h × the key/value heads' width) and the feed-forward
    part (three h × width matrices in gated models such as Llama and Qwen, two in GPT-2), and GPT-2's
    learned positions; biases and norms are left out (well under 1 % of a real model).
    :class:`UserError` where the model is not on this computer (its size is not known)."""
    config = _config(source)
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    hidden = _first(text, "hidden_size", "n_embd", "d_model")
    layers = _first(text, "num_hidden_layers", "n_layer", "num_layers")
    vocabulary = _first(text, "vocab_size")
    if not (hidden and layers and vocabulary):
        raise UserError(f"The configuration of “{source}” does not give its size (hidden size, layers, vocabulary), "
                        "so its time cannot be estimated.")
    heads = _first(text, "num_attention_heads", "n_head") or 1
    kv_heads = _first(text, "num_key_value_heads") or heads
    head_width = _first(text, "head_dim") or hidden // max(heads, 1)
    gated = str(text.get("model_type", "")) not in ("gpt2", "gpt_neo", "gptj", "gpt_bigcode", "opt", "bloom")
    width = _first(text, "intermediate_size", "n_inner", "ffn_dim") or 4 * hidden
    attention = 2 * hidden * heads * head_width + 2 * hidden * kv_heads * head_width
    feed_forward = (3 if gated else 2) * hidden * width
    tied = text.get("tie_word_embeddings", config.get("tie_word_embeddings", True))
    embeddings = vocabulary * hidden * (1 if tied is not False else 2)
    if not gated:  # learned positions (GPT-2 and its kind)
        embeddings += (_first(text, "n_positions", "max_position_embeddings") or 0) * hidden
    return ModelShape(int(embeddings + layers * (attention + feed_forward)), layers, hidden)


def _first(config: dict[str, Any], *names: str) -> int:
    for name in names:
        value = config.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0


def _config(source: str) -> dict[str, Any]:
    from guiapp.core.models.transformers.sources.folders import find_model_dir, read_config
    from guiapp.core.models.transformers.sources.resolve import is_local_path, resolve_model

    if is_local_path(source):  # only its config.json is read: the weights need not be checked here
        folder = Path(source).expanduser()
        if not folder.is_dir():
            raise UserError(f"The language model folder “{folder}” does not exist, so its time cannot be estimated.")
    else:
        folder = resolve_model(source, allow_download=False)  # never downloads; not on this computer: UserError
    return read_config(find_model_dir(Path(folder)) or Path(folder))  # bounded; in words when it cannot be read


def seconds_per_prompt(parameters: int, tokens: float, *, on_gpu: bool = False, cores: int | None = None,
                       layers: int = 0, hidden: int = 0, answers: int = 0) -> float:
    """Expected seconds for the model to read one prompt of ``tokens`` tokens and score its
    ``answers`` (see the module docstring: on a processor, at least what the attention over the
    prompt and the answers against it cost, for a model of ``layers`` × ``hidden``)."""
    if on_gpu:
        return GPU_SECONDS_PER_TEXT + GPU_SECONDS_PER_TOKEN_PARAMETER * tokens * parameters
    cores = max(1, cores or os.cpu_count() or 1)
    scale = MEASURED_CORES / min(cores, 16)  # more cores help, up to a point (memory speed limits a CPU)
    weights = CPU_SECONDS_PER_TOKEN_PARAMETER * tokens * parameters
    overheads = CPU_SECONDS_PER_ATTENTION * tokens**2 * layers * hidden + CPU_SECONDS_PER_ANSWER_TOKEN * answers * tokens
    return CPU_SECONDS_PER_TEXT + max(weights, overheads) * scale


def codebook_on_gpu(model: ModelSpec, gpu: bool) -> bool:
    """Whether the model runs on the GPU ``gpu`` says this computer has (not when its device is the processor)."""
    device = (model.representation_options or {}).get("device", "auto")
    return bool(gpu) and device not in ("cpu", "mps")


def codebook_seconds(model: ModelSpec, n_train: int, n_test: int, n_categories: int, *, on_gpu: bool = False,
                     mean_tokens: float | None = None, multi_label: bool = False) -> float:
    """Expected seconds of the model's work in a study inside TextLab (see the module docstring);
    :class:`UserError`, in words, on a server or for a model that is not on this computer."""
    if model.classifier == "server":
        raise UserError(server_words(model, n_train, n_test, n_categories, multi_label))
    shape = model_shape(str((model.representation_options or {}).get("model") or ""))
    parameters = shape.parameters
    per_text = max(n_categories, 1) if multi_label else 1
    answers = 2 if multi_label else max(n_categories, 1)
    on_gpu = codebook_on_gpu(model, on_gpu)
    seconds = 0.0
    for k, texts in codebook_pass_counts(model, n_train, n_test).items():
        tokens = prompt_tokens(model, k, n_categories, mean_tokens, multi_label)
        seconds += texts * per_text * seconds_per_prompt(parameters, tokens, on_gpu=on_gpu, layers=shape.layers,
                                                         hidden=shape.hidden, answers=answers)
    load = LOAD_SECONDS_PER_GB * parameters * (2 if on_gpu else 4) / 1e9
    return seconds + load + 6.0  # importing PyTorch and Transformers once


def server_words(model: ModelSpec, n_train: int, n_test: int, n_categories: int, multi_label: bool = False) -> str:
    """Why a server's time is not estimated, with the number of questions it will be asked."""
    questions = codebook_passes(model, n_train, n_test, n_categories, multi_label)
    return (f"TextLab cannot estimate how long the language-model server takes: that depends on the computer it "
            f"runs on. The study will ask it {questions:,} question{'s' if questions != 1 else ''}.")
