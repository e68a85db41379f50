"""The settings of a language model with your codebook in a study file, and their checks.

Written as ``representation = "codebook_llm"`` with ``classifier`` saying where the model runs:

* ``"in_textlab"``: a causal language model folder or Hugging Face id (``model``) opened inside
  TextLab, on ``device`` ("auto": the GPU when there is one), ``batch_size`` prompts at once;
* ``"server"``: a language-model server at ``address`` speaking ``protocol`` ("ollama" or "openai",
  the OpenAI-compatible chat API of llama.cpp's server, vLLM and LM Studio), offering ``model``;
  ``texts_may_leave_computer`` is the researcher's consent for an address that is not this computer;
  ``temperature``, ``samples`` (answers per question where the server gives no log-probabilities) and
  ``timeout`` (seconds for one answer).

Both take the codebook: ``descriptions`` (a definition per category), ``examples`` (example texts per
category, from the codebook: shown to the model as part of the definition), an ``instruction`` of the
researcher's own (else TextLab's default and its paraphrases), and ``sensitivity``: how many
instructions (the chosen one and paraphrases of it) answer the test texts for the prompt-sensitivity
report (1: no report).

The grid is the prompt's variants: ``k`` (coded training texts shown per category; 0 = zero-shot)
and ``instruction`` (TextLab's instruction by number: 0 is the default, 1 and 2 its paraphrases;
left out where the researcher wrote their own). These checks import nothing heavy: a study file is
checked before anything runs.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.models.few_shot_options import check_descriptions_option, check_examples_option, model_label
from guiapp.core.models.grid_settings import check_setting_names, check_whole_option, setting_values
from guiapp.core.models.llm.codebook_prompt import INSTRUCTIONS, check_instruction
from guiapp.core.models.llm.prompt_examples import MAX_PER_CATEGORY
from guiapp.core.numbers import parse_number

CODEBOOK_LLM = "codebook_llm"
IN_TEXTLAB = "in_textlab"
SERVER = "server"
CODEBOOK_LLM_MODELS: tuple[tuple[str, str], ...] = ((CODEBOOK_LLM, IN_TEXTLAB), (CODEBOOK_LLM, SERVER))
FAMILY_TITLE = "Language model with your codebook"
SERVER_PROTOCOLS = ("ollama", "openai")
DEVICES = ("auto", "cpu", "cuda", "mps")
DEFAULT_SENSITIVITY = 3
MAX_SAMPLES = 100

COMMON_OPTIONS: dict[str, Any] = {
    "model": None,  # required: a folder or Hugging Face id (in TextLab), or the server's model name
    "descriptions": None,  # {category: definition}; a category left out is named only
    "examples": None,  # {category: [example texts from the codebook]}
    "instruction": None,  # the researcher's own instruction; None: TextLab's (grid: which paraphrase)
    "sensitivity": DEFAULT_SENSITIVITY,  # instructions answering the test texts for the sensitivity report
}
IN_TEXTLAB_OPTIONS: dict[str, Any] = {**COMMON_OPTIONS, "device": "auto", "batch_size": 8}
SERVER_OPTIONS: dict[str, Any] = {**COMMON_OPTIONS, "address": None, "protocol": "ollama",
                                  "texts_may_leave_computer": False, "temperature": 0.0, "samples": 5,
                                  "timeout": 120.0}
CODEBOOK_GRID: dict[str, list[int]] = {"k": [0, 2], "instruction": [0]}
GRID_LABELS = {"k": "Examples per category", "instruction": "Instruction"}

OPTION_HELP = {
    "model": "The language model: an instruction-tuned model's folder or Hugging Face id inside TextLab, or the "
             "name of one of the server's models.",
    "descriptions": "Each category's definition from the codebook; a category without one is given by its name.",
    "examples": "Example texts of each category from the codebook, shown to the model with the definition.",
    "instruction": "What the model is asked to do, in your own words; empty: TextLab's instruction.",
    "sensitivity": "How many wordings of the instruction answer the test texts, to show how much the answers "
                   "depend on the wording (1: only the chosen one).",
    "device": "Where to compute: the graphics card when there is one, else the processor.",
    "batch_size": "How many prompts the model reads at once.",
    "address": "The server's address, e.g. http://127.0.0.1:11434 for Ollama.",
    "protocol": "How the server is asked: Ollama's own chat, or the OpenAI-compatible chat of llama.cpp's server, "
                "vLLM or LM Studio.",
    "texts_may_leave_computer": "Your agreement that the texts are sent to a server that is not this computer.",
    "temperature": "How freely the server's model answers: 0 gives the same answer every time.",
    "samples": "How many answers per question give the shares, where the server returns no probabilities.",
    "timeout": "How many seconds one answer may take before the server counts as not answering.",
}
GRID_HELP = {
    "k": "How many coded training texts per category are shown to the model with their answers (0: none, "
         "zero-shot). They are drawn only from the texts the model is not scored on.",
    "instruction": "Which wording of TextLab's instruction: 0 is the default, 1 and 2 say the same in other words.",
}


def is_codebook_llm(representation: str) -> bool:
    return representation == CODEBOOK_LLM


def display_name(classifier: str, options: dict[str, Any]) -> str:
    """"Codebook language model (Qwen2.5-0.5B-Instruct)", "Codebook language model (llama3.2 on a
    server)"."""
    label = model_label(options.get("model")) if isinstance(options.get("model"), str) else ""
    if classifier == SERVER:
        return f"Codebook language model ({label} on a server)" if label else "Codebook language model (server)"
    return f"Codebook language model ({label})" if label else "Codebook language model"


def check_codebook_llm(classifier: str, options: dict[str, Any], grid: dict[str, Any] | None) -> None:
    """Raise :class:`UserError` when the settings cannot be used, in words."""
    family = "The language model with your codebook"
    if classifier not in (IN_TEXTLAB, SERVER):
        raise UserError(f"{family} runs either in TextLab or on a server, not {classifier!r}.",
                        f"Write classifier = \"{IN_TEXTLAB}\" or \"{SERVER}\".")
    allowed = IN_TEXTLAB_OPTIONS if classifier == IN_TEXTLAB else SERVER_OPTIONS
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise UserError(f"{family} has no option {', '.join(map(repr, unknown))} when it runs "
                        f"{'in TextLab' if classifier == IN_TEXTLAB else 'on a server'}.",
                        f"Allowed options: {', '.join(allowed)}.")
    model = options.get("model")
    if not isinstance(model, str) or not model.strip():
        raise UserError(f"{family} needs a model: {'a folder or Hugging Face id of an instruction-tuned model' if classifier == IN_TEXTLAB else 'the name of one of the server’s models'}.",
                        "Name it in its options, e.g. model = \"Qwen/Qwen2.5-0.5B-Instruct\"."
                        if classifier == IN_TEXTLAB else "Name it in its options, e.g. model = \"llama3.2\".")
    check_descriptions_option(family, options.get("descriptions"))
    check_examples_option(family, options.get("examples"))
    instruction = options.get("instruction")
    if instruction is not None:
        if not isinstance(instruction, str):
            raise UserError(f"{family}'s instruction must be text in quotes, not {instruction!r}.")
        check_instruction(instruction)
    check_whole_option(family, options, "sensitivity", 1, len(INSTRUCTIONS))
    if classifier == IN_TEXTLAB:
        if options.get("device", "auto") not in DEVICES:
            raise UserError(f"{family}'s device cannot be {options['device']!r}.", f"Choose one of: {', '.join(DEVICES)}.")
        check_whole_option(family, options, "batch_size", 1, 4096)
    else:
        _check_server(family, options)
    normalise_codebook_grid(grid, own_instruction=instruction is not None)


def _check_server(family: str, options: dict[str, Any]) -> None:
    address = options.get("address")
    if not isinstance(address, str) or not address.strip():
        raise UserError(f"{family} on a server needs the server's address.",
                        "Write e.g. address = \"http://127.0.0.1:11434\" (Ollama) or \"http://127.0.0.1:8080\".")
    protocol = options.get("protocol", "ollama")
    if protocol not in SERVER_PROTOCOLS:
        raise UserError(f"TextLab does not know the server kind {protocol!r}.",
                        "Write protocol = \"ollama\" or \"openai\" (an OpenAI-compatible server).")
    consent = options.get("texts_may_leave_computer", False)
    if not isinstance(consent, bool):
        raise UserError(f"{family}'s texts_may_leave_computer must be true or false, not {consent!r}.")
    temperature = options.get("temperature", 0.0)
    if (isinstance(temperature, bool) or not isinstance(temperature, int | float) or not math.isfinite(temperature)
            or not 0 <= temperature <= 2):
        raise UserError(f"{family}'s temperature must be a number from 0 to 2, not {temperature!r}.",
                        "Use 0 for the same answer every time.")
    check_whole_option(family, options, "samples", 1, MAX_SAMPLES)
    timeout = options.get("timeout", 120.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 86_400:
        raise UserError(f"{family}'s timeout must be a number of seconds above 0, not {timeout!r}.")


def codebook_llm_options(classifier: str, options: dict[str, Any]) -> dict[str, Any]:
    """The options with every default filled in (descriptions and examples as tables)."""
    check_codebook_llm(classifier, options, {})
    defaults = IN_TEXTLAB_OPTIONS if classifier == IN_TEXTLAB else SERVER_OPTIONS
    merged = {**defaults, **{key: value for key, value in options.items() if value is not None}}
    merged["model"] = merged["model"].strip()
    merged["descriptions"] = {str(key): str(value) for key, value in (merged["descriptions"] or {}).items()}
    merged["examples"] = {str(key): [value] if isinstance(value, str) else list(value)
                          for key, value in (merged["examples"] or {}).items()}
    if classifier == SERVER:
        merged["temperature"] = float(merged["temperature"])
        merged["timeout"] = float(merged["timeout"])
    return merged


def normalise_codebook_grid(grid: dict[str, Any] | None, *, own_instruction: bool = False) -> dict[str, list[int]]:
    """The grid with its defaults filled in, every value checked (no instruction numbers where the
    researcher wrote their own instruction)."""
    grid = dict(grid or {})
    family = "The language model with your codebook"
    check_setting_names(family, grid, CODEBOOK_GRID)
    if own_instruction and "instruction" in grid:
        raise UserError(f"{family} has your own instruction, so its grid cannot also try TextLab's instructions "
                        f"(it names instruction = {grid['instruction']!r}).",
                        "Leave out the instruction in the grid, or leave out your own instruction.")
    values = {name: setting_values(family, name, grid.get(name, CODEBOOK_GRID[name]),
                                   functools.partial(_grid_value, name))
              for name in CODEBOOK_GRID}
    if own_instruction:
        values["instruction"] = [-1]  # the researcher's own
    return values


_GRID_LIMITS = {"k": (0, MAX_PER_CATEGORY), "instruction": (0, len(INSTRUCTIONS) - 1)}


def _grid_value(name: str, value: Any) -> int:
    low, high = _GRID_LIMITS[name]
    words = (f"a whole number from {low} to {high}" if name == "k"
             else f"the number of one of TextLab's instructions, {low} to {high}")
    try:
        number = parse_number(value, int)
    except (ValueError, OverflowError):
        raise UserError(f"'{name}' in the grid of the language model with your codebook must be {words}, "
                        f"not {value!r}.") from None
    if not low <= number <= high:
        raise UserError(f"'{name}' in the grid of the language model with your codebook must be {words}, "
                        f"not {value!r}.")
    return int(number)


def expand_codebook_grid(grid: dict[str, Any] | None, *, own_instruction: bool = False) -> list[dict[str, int]]:
    """Every prompt variant of the grid, fewest examples first (ties in the scores go to the cheaper
    prompt). ``instruction`` -1 stands for the researcher's own."""
    values = normalise_codebook_grid(grid, own_instruction=own_instruction)
    return [{"k": k, "instruction": instruction}
            for k, instruction in itertools.product(sorted(values["k"]), values["instruction"])]


def describe_codebook_params(params: dict[str, Any]) -> str:
    """"2 examples per category, TextLab's instruction 1"."""
    parts = []
    if "k" in params:
        k = int(params["k"])
        parts.append("no examples (zero-shot)" if k == 0 else f"{k} example{'s' if k != 1 else ''} per category")
    if "instruction" in params:
        number = int(params["instruction"])
        parts.append("your own instruction" if number < 0 else
                     "TextLab's instruction" if number == 0 else f"TextLab's instruction, wording {number + 1}")
    return ", ".join(parts)


def runs_for(classifier: str, options: dict[str, Any], *, allow_download: bool = False) -> Any:
    """Where the model runs (:class:`~.codebook_model.InTextLab` or :class:`~.codebook_model.OnServer`)
    from the options as filled in by :func:`codebook_llm_options`."""
    from guiapp.core.models.llm.codebook_model import InTextLab, OnServer

    if classifier == IN_TEXTLAB:
        return InTextLab(options["model"], options["device"], options["batch_size"], allow_download)
    return OnServer(options["address"], options["protocol"], options["model"], options["texts_may_leave_computer"],
                    options["temperature"], options["samples"], options["timeout"])


def codebook_model_for(classifier: str, options: dict[str, Any], categories: Sequence[str], point: dict[str, int], *,
                       multi_label: bool, seed: int, allow_download: bool = False) -> Any:
    """An unfitted :class:`~.codebook_model.CodebookModel` for the study's categories with the grid
    point ``point`` (``k`` and ``instruction``); ``options`` as filled in by
    :func:`codebook_llm_options`. The codebook's definitions and examples of other categories are left
    out."""
    from guiapp.core.models.llm.codebook_model import CodebookModel
    from guiapp.core.models.llm.codebook_prompt import PromptCategory

    descriptions, examples = options["descriptions"], options["examples"]
    entries = [PromptCategory(name, descriptions.get(name, ""), tuple(examples.get(name, ()))) for name in categories]
    instruction = options["instruction"] if int(point.get("instruction", 0)) < 0 or options["instruction"] \
        else int(point.get("instruction", 0))
    return CodebookModel(entries, runs_for(classifier, options, allow_download=allow_download),
                         multi_label=multi_label, instruction=instruction, k=int(point.get("k", 0)), seed=seed)
