"""Opening a saved zero-shot model: its ``zero_shot.json`` is read with the bounded reader and
every field checked (``record_file.py``); the language model is only found again, never run from
the folder's own code. A damaged file gives a :class:`UserError` in words."""

from __future__ import annotations

import os
from pathlib import Path

from guiapp.core.errors import UserError
from guiapp.core.models.transformers.sources.resolve import is_local_path
from guiapp.core.models.zero_shot.model_source import BUNDLED_RECORD, MODEL_FOLDER
from guiapp.core.models.zero_shot.nli import ZeroShotNLI
from guiapp.core.models.zero_shot.record_file import ZERO_SHOT_FILE, damaged, read_record
from guiapp.core.models.zero_shot.similarity import ZeroShotSimilarity


def is_zero_shot_folder(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` holds a saved zero-shot model."""
    return (Path(folder) / ZERO_SHOT_FILE).is_file()


def load_zero_shot(folder: str | os.PathLike[str]) -> ZeroShotSimilarity | ZeroShotNLI:
    """The zero-shot model saved in ``folder``."""
    folder = Path(folder)
    record = read_record(folder)
    source, model = record["model_source"], record["model"]
    saved_copy = None
    if source == "bundled":
        if model != BUNDLED_RECORD:
            raise damaged(folder, "it names an unknown bundled model")
    elif source == "named":
        if is_local_path(model):
            raise damaged(folder, "it names a folder where a model name belongs")
    else:
        saved_copy = folder / MODEL_FOLDER
        if not saved_copy.is_dir():
            raise UserError(f"The zero-shot model in {folder} is missing its language model (the folder "
                            f"“{MODEL_FOLDER}” beside {ZERO_SHOT_FILE}).",
                            "Copy the whole folder of the model, or run the study again.")
    common = {
        "categories": record["categories"], "descriptions": record.get("descriptions", {}),
        "model": model, "template": record["template"], "multi_label": record["multi_label"],
        "examples": record.get("examples", {}), "batch_size": record["batch_size"],
        "max_length": record["max_length"], "saved_copy": saved_copy,
    }
    try:
        if record["kind"] == "similarity":
            model = ZeroShotSimilarity(temperature=record["temperature"], centres=record.get("centres"), **common)
        else:
            model = ZeroShotNLI(**common)
    except UserError as error:  # a value no model of TextLab's would hold
        raise damaged(folder, error.message) from error
    model.thresholds = record.get("thresholds")  # the study's decision thresholds (several categories per text)
    return model
