"""The settings of the models that need few or no coded texts, and their checks.

Three families, written in a study file as ``representation`` × ``classifier``:

* ``zero_shot`` × ``similarity``: each text is compared with a sentence per category ("This text is
  about economy." or the category's description) in the space of a sentence-embedding model;
* ``zero_shot`` × ``nli``: a natural-language-inference model judges, per category, whether the
  text entails "This text is about <description>.";
* ``setfit`` × ``setfit``: a sentence-embedding model is tuned on pairs of coded texts (same or
  other category), then a logistic regression learns the categories from its embeddings.

Zero-shot models learn nothing from coded texts, so they have no grid; SetFit's grid is epochs ×
pairs per text × learning rate. These checks import nothing heavy: a study file is checked before
anything runs.
"""

from __future__ import annotations

import functools
import itertools
import math
from pathlib import Path
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.models.grid_settings import check_setting_names, check_whole_option, setting_values
from guiapp.core.models.setfit.settings import DEFAULT_MAX_PAIRS
from guiapp.core.models.zero_shot.category_names import coded_names, coded_names_note
from guiapp.core.numbers import parse_number

ZERO_SHOT = "zero_shot"
SETFIT = "setfit"
FAMILIES: tuple[tuple[str, str], ...] = (("zero_shot", "similarity"), ("zero_shot", "nli"), ("setfit", "setfit"))
BUNDLED_MODEL = "all-MiniLM-L6-v2"
DEFAULT_TEMPLATE = "This text is about {}."
DEFAULT_TEMPERATURE = 0.05
TEMPERATURE_MAX = 100.0

ZERO_SHOT_OPTIONS: dict[str, Any] = {
    "model": None,  # similarity: the bundled MiniLM; NLI: required
    "descriptions": None,  # {category: one-sentence definition}; a category left out is described by its name
    "examples": None,  # {category: [example texts from the codebook]}: embedded with the description, never learnt from
    "template": DEFAULT_TEMPLATE,
    "temperature": DEFAULT_TEMPERATURE,  # similarity only
    "batch_size": 16,
}
SETFIT_OPTIONS: dict[str, Any] = {"model": BUNDLED_MODEL, "max_length": 128, "batch_size": 16, "device": "auto",
                                  "max_pairs": DEFAULT_MAX_PAIRS}
MAX_PAIRS_LIMITS = (2, 10_000_000)
DEVICES = ("auto", "cpu", "cuda", "mps")
SETFIT_GRID: dict[str, list[Any]] = {"epochs": [1], "pairs_per_text": [20], "learning_rate": [2e-5]}
# name: (kind, smallest, largest, words for the limits)
SETFIT_LIMITS: dict[str, tuple[type, float, float, str]] = {
    "epochs": (int, 1, 100, "a whole number from 1 to 100"),
    "pairs_per_text": (int, 1, 1000, "a whole number from 1 to 1000"),
    "learning_rate": (float, 0.0, 1.0, "a number above 0 and below 1, e.g. 2e-5"),
}
SETFIT_GRID_LABELS = {"epochs": "Epochs", "pairs_per_text": "Pairs per text", "learning_rate": "Learning rate"}

OPTION_HELP = {
    "model": "The pre-trained model: a sentence-embedding model for similarity and SetFit, a model trained "
             "for natural-language inference (e.g. facebook/bart-large-mnli) for NLI.",
    "descriptions": "One sentence per category saying what it means; a category without one is described by "
                    "its name.",
    "examples": "Example texts of each category from the codebook: they describe the category together with its "
                "description (the model learns nothing from them).",
    "template": "The sentence a category's description is put into; {} marks where it goes.",
    "temperature": "How sharply similarity turns into a probability: smaller values make the model surer.",
    "batch_size": "How many texts the model reads at once.",
    "max_length": "Longest text the model reads, in subword tokens; longer texts are cut.",
    "device": "Where to compute: the graphics card when there is one, else the processor.",
    "max_pairs": "The most pairs of coded texts SetFit fine-tunes on per epoch, drawn at random when pairs per "
                 "text × coded texts would make more: SetFit is made for a few coded texts per category, and "
                 "with thousands the pairs would take hours on a processor. The logistic regression still "
                 "learns from every coded text.",
}
GRID_HELP = {
    "epochs": "How many times SetFit goes through its pairs of coded texts.",
    "pairs_per_text": "How many pairs (same category or not) SetFit draws per coded text to tune the model.",
    "learning_rate": "How big each step of tuning the sentence-embedding model is.",
}


def is_few_shot(representation: str) -> bool:
    return representation in (ZERO_SHOT, SETFIT)


def model_label(model: Any) -> str:
    """A model named by hub id or folder, as shown: its last part ("facebook/bart-large-mnli" →
    "bart-large-mnli")."""
    text = str(model or "").strip().rstrip("/\\")
    return Path(text).name or text


def display_name(classifier: str, options: dict[str, Any]) -> str:
    """"Zero-shot · similarity (all-MiniLM-L6-v2)", "Zero-shot · NLI (bart-large-mnli)",
    "SetFit (all-MiniLM-L6-v2)"."""
    label = model_label(options.get("model")) if isinstance(options.get("model"), str) else ""
    if classifier == "nli":
        return f"Zero-shot · NLI ({label})" if label else "Zero-shot · NLI"
    name = label or BUNDLED_MODEL
    if classifier == "similarity":
        return f"Zero-shot · similarity ({name})"
    return f"SetFit ({name})"


# --------------------------------------------------------------------------- zero-shot


def check_zero_shot(classifier: str, options: dict[str, Any], grid: dict[str, Any]) -> None:
    """Raise :class:`UserError` when a zero-shot model's settings cannot be used, in words."""
    family = "The zero-shot model" if classifier != "nli" else "The zero-shot NLI model"
    unknown = sorted(set(options) - set(ZERO_SHOT_OPTIONS))
    if unknown:
        raise UserError(f"{family} has no option {', '.join(map(repr, unknown))}.",
                        f"Allowed options: {', '.join(ZERO_SHOT_OPTIONS)}.")
    if grid:
        raise UserError(f"{family} has no settings to try: it learns nothing from the coded texts "
                        f"(the grid names {', '.join(map(repr, grid))}).", "Leave out its grid.")
    model = options.get("model")
    if classifier == "nli" and (model is None or (isinstance(model, str) and not model.strip())):
        raise UserError("The zero-shot NLI model needs a model trained for natural-language inference.",
                        "Name one in its options, e.g. model = \"facebook/bart-large-mnli\" or a folder.")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise UserError(f"{family}'s 'model' must name a model: a Hugging Face id or a folder, not {model!r}.")
    check_descriptions_option(family, options.get("descriptions"))
    check_examples_option(family, options.get("examples"))
    template = options.get("template", DEFAULT_TEMPLATE)
    if not isinstance(template, str) or template.count("{}") != 1 or _other_braces(template):
        raise UserError(f"{family}'s template must hold {{}} exactly once, where the category's description "
                        f"goes, not {template!r}.", f"Write e.g. template = \"{DEFAULT_TEMPLATE}\".")
    temperature = options.get("temperature", DEFAULT_TEMPERATURE)
    if (isinstance(temperature, bool) or not isinstance(temperature, int | float) or not math.isfinite(temperature)
            or not 0 < temperature <= TEMPERATURE_MAX):
        raise UserError(f"{family}'s temperature must be a number above 0 and at most {TEMPERATURE_MAX:g}, "
                        f"not {temperature!r}.", f"The default, {DEFAULT_TEMPERATURE}, suits cosine similarities.")
    check_whole_option(family, options, "batch_size", 1, 4096)


def _other_braces(template: str) -> bool:
    rest = template.replace("{}", "", 1)
    return "{" in rest or "}" in rest


def check_descriptions_option(family: str, descriptions: Any) -> None:
    """A :class:`UserError` when ``descriptions`` (where given) is not a table of category = "sentence"."""
    if descriptions is None:
        return
    if not isinstance(descriptions, dict):
        raise UserError(f"{family}'s descriptions must be a table of category = \"description\", "
                        f"not {descriptions!r}.",
                        "Write e.g. descriptions = { economy = \"Taxes, jobs and prices.\" }.")
    for category, text in descriptions.items():
        if not isinstance(text, str) or not text.strip():
            raise UserError(f"{family}'s description of the category '{category}' must be a sentence in "
                            f"quotes, not {text!r}.", "Write a short sentence, or leave the category out "
                            "to describe it by its name.")


def check_examples_option(family: str, examples: Any) -> None:
    """A :class:`UserError` when ``examples`` (where given) is not a table of category = ["example text", …]."""
    if examples is None:
        return
    if not isinstance(examples, dict):
        raise UserError(f"{family}'s examples must be a table of category = [\"example text\", …], "
                        f"not {examples!r}.", "Write e.g. examples = { economy = [\"Taxes will rise.\"] }.")
    for category, texts in examples.items():
        listed = [texts] if isinstance(texts, str) else texts
        if not isinstance(listed, list) or not all(isinstance(text, str) for text in listed):
            raise UserError(f"{family}'s examples of the category '{category}' must be a list of texts in "
                            f"quotes, not {texts!r}.")


def zero_shot_options(classifier: str, options: dict[str, Any]) -> dict[str, Any]:
    """The options with every default filled in (the similarity model: the bundled MiniLM)."""
    check_zero_shot(classifier, options, {})
    merged = {**ZERO_SHOT_OPTIONS, **{key: value for key, value in options.items() if value is not None}}
    if not merged["model"]:
        merged["model"] = BUNDLED_MODEL
    merged["descriptions"] = dict(merged["descriptions"] or {})
    merged["examples"] = {str(key): [value] if isinstance(value, str) else list(value)
                          for key, value in (merged["examples"] or {}).items()}
    if classifier == "nli":
        merged.pop("temperature")
    return merged


def category_descriptions(categories: list[str], given: dict[str, str] | None) -> tuple[dict[str, str], list[str]]:
    """The descriptions given for the study's categories (the others are described by their name) and
    what was noted about them, in words."""
    given = {str(key): str(value).strip() for key, value in (given or {}).items()}
    descriptions = {category: given[category] for category in categories if given.get(category)}
    notes = []
    named = [category for category in categories if not given.get(category)]
    coded = coded_names(named)
    if coded:  # a number or code tells the model nothing: say so, and that descriptions are needed
        notes.append(coded_names_note(coded))
        named = [category for category in named if category not in coded]
    if named and len(named) == len(categories):
        notes.append("Every category was described by its name (no descriptions were given).")
    elif named:
        notes.append(f"{_series(named)} had no description and {'was' if len(named) == 1 else 'were'} described "
                     f"by {'its' if len(named) == 1 else 'their'} name.")
    unused = [key for key in given if key not in categories]
    if unused:
        notes.append(f"The description{'s' if len(unused) != 1 else ''} of {_series(unused)} "
                     f"{'were' if len(unused) != 1 else 'was'} not used: not a category of this study.")
    return descriptions, notes


def _series(items: list[str]) -> str:
    quoted = [f"“{item}”" for item in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


# --------------------------------------------------------------------------- SetFit


def check_setfit(options: dict[str, Any], grid: dict[str, Any]) -> None:
    """Raise :class:`UserError` when SetFit's options or grid cannot be used, in words."""
    unknown = sorted(set(options) - set(SETFIT_OPTIONS))
    if unknown:
        raise UserError(f"SetFit has no option {', '.join(map(repr, unknown))}.",
                        f"Allowed options: {', '.join(SETFIT_OPTIONS)}.")
    model = options.get("model", BUNDLED_MODEL)
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise UserError(f"SetFit's 'model' must name a sentence-embedding model: a Hugging Face id or a folder, "
                        f"not {model!r}.")
    check_whole_option("SetFit", options, "max_length", 8, 100_000)
    check_whole_option("SetFit", options, "batch_size", 1, 4096)
    check_whole_option("SetFit", options, "max_pairs", *MAX_PAIRS_LIMITS)
    if options.get("device", "auto") not in DEVICES:
        raise UserError(f"SetFit's device cannot be {options['device']!r}.", f"Choose one of: {', '.join(DEVICES)}.")
    normalise_setfit_grid(grid)


def setfit_options(options: dict[str, Any]) -> dict[str, Any]:
    """SetFit's options with every default filled in."""
    check_setfit(options, {})
    return {**SETFIT_OPTIONS, **{key: value for key, value in options.items() if value is not None}}


def normalise_setfit_grid(grid: dict[str, Any] | None) -> dict[str, list[Any]]:
    """SetFit's grid with its defaults filled in, every value checked and converted."""
    grid = dict(grid or {})
    check_setting_names("SetFit", grid, SETFIT_GRID)
    return {name: setting_values("SetFit", name, grid.get(name, SETFIT_GRID[name]),
                                 functools.partial(_setfit_grid_value, name))
            for name in SETFIT_LIMITS}


def _setfit_grid_value(name: str, value: Any) -> int | float:
    kind, low, high, words = SETFIT_LIMITS[name]
    try:
        number = parse_number(value, kind)
    except (ValueError, OverflowError):
        raise UserError(f"'{name}' in the SetFit grid must be {words}, not {value!r}.") from None
    fits = low <= number <= high if kind is int else low < number < high
    if not math.isfinite(number) or not fits:
        raise UserError(f"'{name}' in the SetFit grid must be {words}, not {value!r}.")
    return number


def expand_setfit_grid(grid: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Every combination of SetFit's grid, in a fixed order (fewest epochs and pairs first)."""
    grid = normalise_setfit_grid(grid)
    return [{"epochs": epochs, "pairs_per_text": pairs, "learning_rate": rate}
            for epochs, pairs, rate in itertools.product(grid["epochs"], grid["pairs_per_text"],
                                                         grid["learning_rate"])]


def describe_setfit_params(params: dict[str, Any]) -> str:
    """"epochs = 1, pairs per text = 20, learning rate = 2e-05"."""
    parts = []
    for name, value in params.items():
        label = SETFIT_GRID_LABELS.get(name, name).lower()
        parts.append(f"{label} = {value:g}" if isinstance(value, float) else f"{label} = {value}")
    return ", ".join(parts)
