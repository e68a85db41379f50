"""A fine-tuned Transformer as a model of a study: its options, its grid, and their checks.

In a spec it is ``representation = "transformer"``, ``classifier = "fine_tune"``; the options
name the model (the bundled MiniLM, the assembled MPNet, a Hugging Face id or a local folder)
and how texts are fed to it; the grid is learning rate × epochs. Anything left out comes from
the model's entry in ``transformer_registry.py`` (e.g. the paper's grid for base-size models,
a higher learning rate for the small bundled one).
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.models.grid_settings import check_setting_names, setting_values
from guiapp.core.numbers import parse_number

FAMILY = ("transformer", "fine_tune")
DEFAULT_MODEL = "all-MiniLM-L6-v2"
TRUNCATIONS = ("head_tail", "head", "middle")
DEVICES = ("auto", "cpu", "cuda", "mps")

# None = the model's own default (from the registry)
DEFAULT_OPTIONS: dict[str, Any] = {
    "model": DEFAULT_MODEL,
    "max_length": None,
    "truncation": None,
    "batch_size": None,
    "dropout": 0.1,
    "device": "auto",
    "mixed_precision": True,
}
OPTION_HELP = {
    "model": "Which pre-trained language model is fine-tuned on your coded texts.",
    "max_length": "Longest text the model reads, in subword tokens; longer texts are cut.",
    "truncation": "How long texts are cut: keep the start and the end (the paper's choice), only the start, or drop the middle.",
    "batch_size": "How many texts the model learns from at once (the paper: 16).",
    "dropout": "Share of connections switched off at random while training, against overfitting (the paper: 0.1).",
    "device": "Where to compute: the graphics card when there is one, else the processor.",
    "mixed_precision": "Compute in 16-bit numbers where safe: faster, same results in practice. On a graphics card "
                       "while training and answering; on a processor only for answers, and only after they were "
                       "checked against full precision.",
}
GRID_HELP = {
    "learning_rate": "How big each learning step is. Small models need larger steps than base-size ones.",
    "epochs": "How many times the model reads all training texts.",
}


def is_transformer(representation: str) -> bool:
    return representation == FAMILY[0]


def full_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options with every default filled in (the model's own defaults where None)."""
    from guiapp.core.models.transformers.sources.registry import info_for

    check_options(options)
    merged = {**DEFAULT_OPTIONS, **options}
    info = info_for(merged["model"])
    if merged["max_length"] is None:
        merged["max_length"] = info.default_max_length
    if merged["truncation"] is None:
        merged["truncation"] = info.default_truncation
    if merged["batch_size"] is None:
        merged["batch_size"] = info.default_batch_size
    return merged


def check_options(options: dict[str, Any]) -> None:
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
    if unknown:
        raise UserError(
            f"The Transformer has no option {', '.join(map(repr, unknown))}.",
            f"Allowed options: {', '.join(DEFAULT_OPTIONS)}.",
        )
    model = options.get("model", DEFAULT_MODEL)
    if not isinstance(model, str) or not model.strip():
        raise UserError("The Transformer's 'model' must name a model: a short-list name, a Hugging Face id or a folder.")
    for name, low, high in (("max_length", 8, 100_000), ("batch_size", 1, 4096)):
        value = options.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
            raise UserError(f"The Transformer's '{name}' must be a whole number from {low} to {high}, not {value!r}.")
    dropout = options.get("dropout", 0.1)
    if isinstance(dropout, bool) or not isinstance(dropout, int | float) or not 0 <= dropout < 1:
        raise UserError(f"The Transformer's dropout must be at least 0 and below 1, not {dropout!r}.")
    if options.get("truncation") not in (None, *TRUNCATIONS):
        raise UserError(
            f"The Transformer's truncation cannot be {options['truncation']!r}.", f"Choose one of: {', '.join(TRUNCATIONS)}."
        )
    if options.get("device", "auto") not in DEVICES:
        raise UserError(f"The Transformer's device cannot be {options['device']!r}.", f"Choose one of: {', '.join(DEVICES)}.")


def normalise_transformer_grid(grid: dict[str, Any] | None, model: str = DEFAULT_MODEL) -> dict[str, list[Any]]:
    """The grid with the model's defaults filled in, values checked and converted."""
    from guiapp.core.models.transformers.sources.registry import info_for

    grid = dict(grid or {})
    check_setting_names("Transformer", grid, GRID_HELP)  # learning_rate, epochs
    defaults = info_for(model).default_grid
    return {name: setting_values("Transformer", name, grid.get(name, defaults[name]),
                                 functools.partial(_grid_value, name, kind))
            for name, kind in (("learning_rate", float), ("epochs", int))}


def _grid_value(name: str, kind: type, value: Any) -> int | float:
    try:
        number = parse_number(value, kind)
    except ValueError:
        raise UserError(f"'{name}' in the Transformer grid must be a number, not {value!r}.") from None
    if not math.isfinite(number) or number <= 0 or (name == "learning_rate" and number >= 1):
        raise UserError(f"'{name}' in the Transformer grid cannot be {value!r}.", "Learning rates lie between 0 and 1 (e.g. 2e-5); epochs are at least 1.")
    return number


def expand_transformer_grid(grid: dict[str, Any] | None, model: str = DEFAULT_MODEL) -> list[dict[str, Any]]:
    grid = normalise_transformer_grid(grid, model)
    return [
        {"learning_rate": rate, "epochs": epochs}
        for rate, epochs in itertools.product(grid["learning_rate"], grid["epochs"])
    ]


def describe_transformer_params(params: dict[str, Any]) -> str:
    return f"learning rate = {params['learning_rate']:g}, epochs = {params['epochs']}"
