"""Opening a SetFit model saved by :meth:`SetFitModel.save`, checking everything first.

``setfit.json`` is read with the bounded reader and every value in it is checked (categories,
settings, thresholds, the head's numbers against the sentence model's vector size); the files it
lists must be there, unchanged (SHA-256); the sentence model is opened from safetensors only and no
code from the folder ever runs. Anything wrong is refused with a :class:`UserError` in plain words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.models.setfit.body import open_body
from guiapp.core.models.setfit.folder import SETFIT_FILE, damaged, read_record
from guiapp.core.models.setfit.head import head_from_json
from guiapp.core.models.setfit.model import SetFitModel
from guiapp.core.models.setfit.settings import SetFitSettings
from guiapp.core.numbers import is_finite_number

MAX_CATEGORIES = 100_000


def load_setfit(folder: str | Path) -> SetFitModel:
    """The SetFit model saved in ``folder``, on the best device here (a GPU when there is one)."""
    from guiapp.core.models.transformers.fine_tuning import pick_device

    folder = Path(folder)
    record = read_record(folder)
    try:
        categories = _categories(record.get("categories"))
        multi_label = record.get("multi_label")
        if not isinstance(multi_label, bool):
            raise ValueError("it does not say whether a text can have several categories")
        thresholds = _thresholds(record.get("thresholds"), len(categories), multi_label)
        settings = SetFitSettings.from_saved(record.get("settings"))
        training = record.get("training", {})
        if not isinstance(training, dict):
            raise ValueError("its training record is not a set of named values")
        losses, notes = training.get("losses", []), training.get("notes", [])
        if not isinstance(losses, list) or not all(is_finite_number(x) for x in losses) or not isinstance(notes, list):
            raise ValueError("its training record is damaged")
        record_numbers = [training.get("pairs", 0), training.get("truncated_texts", 0), training.get("seconds", 0.0)]
        if not all(is_finite_number(x) and x >= 0 for x in record_numbers):
            raise ValueError("its training record is damaged")
        source = record.get("sentence_model", "")
        if not isinstance(source, str):
            raise ValueError("the name of its sentence model is not a text")
    except (TypeError, ValueError, UserError) as error:
        raise damaged(folder, f"{SETFIT_FILE}: {_reason(error)}") from None
    net, tokenizer = open_body(folder)
    try:
        head = head_from_json(record.get("head"), len(categories), int(net.config.hidden_size), multi_label)
    except ValueError as error:
        raise damaged(folder, f"{SETFIT_FILE}: {error}") from None
    info = pick_device("auto")  # where it was trained does not matter
    net.to(info.kind)
    net.eval()
    return SetFitModel(net, tokenizer, head, settings, categories, info.kind, info.bf16, source, thresholds,
                       [float(x) for x in losses], int(record_numbers[0]), int(record_numbers[1]),
                       float(record_numbers[2]), [str(note) for note in notes])


def _categories(value: Any) -> list[str]:
    if (not isinstance(value, list) or not value or len(value) > MAX_CATEGORIES
            or not all(isinstance(name, str) and name for name in value) or len(set(value)) != len(value)):
        raise ValueError("its list of categories is damaged")
    return list(value)


def _thresholds(value: Any, n_categories: int, multi_label: bool) -> list[float]:
    if not multi_label:
        if value not in (None, []):
            raise ValueError("it records decision thresholds for a model of one category per text")
        return []
    if (not isinstance(value, list) or len(value) != n_categories
            or not all(is_finite_number(t) and 0.0 <= t <= 1.0 for t in value)):
        raise ValueError("its decision thresholds are not one number from 0 to 1 per category")
    return [float(t) for t in value]


def _reason(error: BaseException) -> str:
    return error.message if isinstance(error, UserError) else str(error)


__all__ = ["load_setfit"]
