"""The file a zero-shot model is saved as: ``zero_shot.json`` (plus, for a model folder of the
researcher's own, that model's files under ``model/``).

Nothing in it is learnt from coded texts: the categories, their descriptions and example texts,
the sentence that phrases a category, the temperature and, for several categories per text with
similarity, each category's centre. Written atomically, last (a folder with ``zero_shot.json`` is
complete); read with the bounded JSON reader, and every field is checked, so a damaged or hostile
file gives a message in words, never a traceback, and opening it runs no code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from guiapp.core.atomic import write_text_atomic
from guiapp.core.errors import UserError
from guiapp.core.models.saved_description import DamagedDescription, check_format
from guiapp.core.numbers import is_finite_number, is_whole_number
from guiapp.core.untrusted.json_reading import read_json_file

ZERO_SHOT_FILE = "zero_shot.json"
FORMAT = "textlab-zero-shot"
VERSION = 1
KINDS = ("similarity", "nli")
SOURCES = ("bundled", "named", "folder")
MAX_BYTES = 64 << 20  # categories with many long example texts stay far below this


class DamagedRecord(DamagedDescription):
    """The file is not a zero-shot model TextLab can use; ``str()`` says why in words, ``hint`` what to do."""


def write_record(folder: str | Path, record: dict[str, Any]) -> None:
    """Write ``record`` (with the format and version added) as the folder's ``zero_shot.json``."""
    data = {"format": FORMAT, "version": VERSION, **record}
    write_text_atomic(Path(folder) / ZERO_SHOT_FILE, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_record(folder: str | Path) -> dict[str, Any]:
    """The checked contents of the folder's ``zero_shot.json``; a :class:`UserError` when it is
    missing, damaged or of a newer version."""
    path = Path(folder) / ZERO_SHOT_FILE
    try:
        data = read_json_file(path, max_bytes=MAX_BYTES)
        return check_record(data)
    except FileNotFoundError as error:
        raise UserError(f"The folder {folder} holds no zero-shot model ({ZERO_SHOT_FILE} is missing).",
                        "Choose the folder of a trained model, or run the study again.") from error
    except OSError as error:
        raise damaged(folder, f"it cannot be read ({error.strerror or error})") from error
    except ValueError as error:  # UnreadableJson, DamagedRecord
        raise damaged(folder, str(error), getattr(error, "hint", "")) from error


def damaged(folder: str | Path, why: str, hint: str = "") -> UserError:
    why = why[:1].lower() + why[1:] if why[1:2].islower() else why  # "The category …" → "the category …"
    return UserError(f"The zero-shot model in {folder} cannot be opened: {why.rstrip('.')}.",
                     hint or "Run the study again to make the model anew.", details=why)


def check_record(data: object) -> dict[str, Any]:
    """The fields of a zero-shot record, each of the right type (their values are checked again by
    the model that is built from them); :class:`DamagedRecord` says which is wrong."""
    data = check_format(data, FORMAT, VERSION, DamagedRecord, "a zero-shot model's description",
                        "a zero-shot model saved by TextLab")
    kind = data.get("kind")
    if kind not in KINDS:
        raise DamagedRecord("it does not say which kind of zero-shot model it is")
    categories = data.get("categories")
    if not isinstance(categories, list) or not categories or not all(isinstance(c, str) for c in categories):
        raise DamagedRecord("its list of categories is damaged")
    descriptions = data.get("descriptions", {})
    if not isinstance(descriptions, dict) or not all(isinstance(v, str) for v in descriptions.values()):
        raise DamagedRecord("the descriptions of its categories are damaged")
    examples = data.get("examples", {})
    if not isinstance(examples, dict) or not all(
            isinstance(v, list) and all(isinstance(t, str) for t in v) for v in examples.values()):
        raise DamagedRecord("the example texts of its categories are damaged")
    if not isinstance(data.get("template"), str):
        raise DamagedRecord("the sentence that phrases a category is missing")
    temperature = data.get("temperature")
    if kind == "similarity" and not is_finite_number(temperature):
        raise DamagedRecord("its temperature is missing or not a number")
    centres = data.get("centres")
    if centres is not None and (not isinstance(centres, list) or len(centres) != len(categories)
                                or not all(is_finite_number(c) and -1.0 <= c <= 1.0 for c in centres)):
        raise DamagedRecord("the centres of its categories are damaged")
    thresholds = data.get("thresholds")
    if thresholds is not None and (not isinstance(thresholds, list) or len(thresholds) != len(categories)
                                   or not all(is_finite_number(t) and 0.0 <= t <= 1.0 for t in thresholds)):
        raise DamagedRecord("the decision thresholds of its categories are damaged")
    model, source = data.get("model"), data.get("model_source")
    if not isinstance(model, str) or not model.strip() or len(model) > 4096 or source not in SOURCES:
        raise DamagedRecord("it does not say which language model it asks")
    if not isinstance(data.get("multi_label"), bool):
        raise DamagedRecord("it does not say whether a text can have several categories")
    for name in ("batch_size", "max_length"):
        if not is_whole_number(data.get(name)):
            raise DamagedRecord(f"its {name.replace('_', ' ')} is not a whole number")
    return data

