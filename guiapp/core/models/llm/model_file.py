"""The file a language model with your codebook is saved as: ``codebook_model.json``.

It holds what makes the model answer as it did — the codebook (each category's name, definition and
example texts), the instruction, whether a text can have several categories, k and the seed, the
drawn few-shot examples (their texts, categories and rows), each category's decision threshold
where a text can have several categories, where the model runs (a model folder or
Hugging Face id, or a server's address, kind, model, temperature and samples) — plus the prompt's
SHA-256, the weights' SHA-256 and the record for the appendix. The language model's own files are
not copied: the model is found again by its folder or id (and refused if its weights differ), or
asked on its server.

Written atomically; read with the bounded JSON reader and every field checked, so a damaged or
foreign file gives a message in words, never a traceback, and opening it runs no code (JSON only,
never pickle). :meth:`~.codebook_model.CodebookModel.save` and
:meth:`~.codebook_model.CodebookModel.load` use :func:`save` and :func:`load`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from guiapp.core.atomic import write_text_atomic
from guiapp.core.errors import UserError
from guiapp.core.models.saved_description import DamagedDescription, check_format
from guiapp.core.numbers import is_finite_number, is_whole_number
from guiapp.core.untrusted.json_reading import read_json_file

CODEBOOK_MODEL_FILE = "codebook_model.json"
FORMAT = "textlab-codebook-language-model"
VERSION = 1
MAX_BYTES = 64 << 20
_SHA256 = frozenset("0123456789abcdef")


class DamagedFile(DamagedDescription):
    """The file is not a codebook language model TextLab can use; ``str()`` says why, ``hint`` what to do."""


def is_codebook_model_folder(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` holds a saved language model with a codebook."""
    return (Path(folder) / CODEBOOK_MODEL_FILE).is_file()


def save(folder: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write ``data`` (a model's ``file_record()``, with the format and version added) as the
    folder's ``codebook_model.json``; the data is checked first, as :func:`load` checks it."""
    record = {"format": FORMAT, "version": VERSION, **data}
    check(record)
    text = json.dumps(record, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    Path(folder).mkdir(parents=True, exist_ok=True)
    write_text_atomic(Path(folder) / CODEBOOK_MODEL_FILE, text)


def load(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The checked contents of the folder's ``codebook_model.json``; a :class:`UserError` in plain
    words when it is missing, damaged, foreign or from a newer TextLab."""
    path = Path(folder) / CODEBOOK_MODEL_FILE
    try:
        return check(read_json_file(path, max_bytes=MAX_BYTES))
    except FileNotFoundError as error:
        raise UserError(f"The folder {folder} holds no language model with a codebook ({CODEBOOK_MODEL_FILE} "
                        "is missing).", "Choose the folder of a saved model, or run the study again.") from error
    except OSError as error:
        raise damaged(folder, f"it cannot be read ({error.strerror or error})") from error
    except ValueError as error:  # the JSON reader's UnreadableJson, or DamagedFile
        raise damaged(folder, str(error), getattr(error, "hint", "")) from error


def damaged(folder: str | os.PathLike[str], why: str, hint: str = "") -> UserError:
    why = why[:1].lower() + why[1:] if why[1:2].islower() else why
    return UserError(f"The language model with a codebook in {folder} cannot be opened: {why.rstrip('.')}.",
                     hint or "Run the study again to make the model anew.", details=why)


def check(data: object) -> dict[str, Any]:
    """The fields of a saved model, each of the right type (their values are checked again by the
    model built from them); :class:`DamagedFile` says which is wrong."""
    data = check_format(data, FORMAT, VERSION, DamagedFile, "a saved model's description",
                        "a language model with a codebook saved by TextLab")
    categories = data.get("categories")
    if not isinstance(categories, list) or not categories or not all(
            isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("definition"), str)
            and _texts(c.get("examples")) for c in categories):
        raise DamagedFile("its codebook (the categories, their definitions and examples) is damaged")
    names = {c["name"] for c in categories}
    if not isinstance(data.get("multi_label"), bool):
        raise DamagedFile("it does not say whether a text can have several categories")
    if not isinstance(data.get("instruction"), str):
        raise DamagedFile("its instruction to the language model is missing")
    variant = data.get("instruction_variant")
    if variant is not None and not is_whole_number(variant):
        raise DamagedFile("its choice of instruction is damaged")
    for name in ("k", "seed"):
        if not is_whole_number(data.get(name)) or data[name] < 0:
            raise DamagedFile(f"its {'number of examples per category' if name == 'k' else 'seed'} is not a whole number")
    examples = data.get("examples")
    if not isinstance(examples, list) or not all(
            isinstance(e, dict) and isinstance(e.get("text"), str) and _texts(e.get("categories"))
            and set(e["categories"]) <= names and (e.get("position") is None or is_whole_number(e.get("position")))
            for e in examples):
        raise DamagedFile("the examples shown to the language model are damaged")
    _check_runs(data.get("runs"))
    for name in ("prompt_sha256", "weights_sha256"):
        value = data.get(name)
        if not (value is None and name == "weights_sha256") and not _is_sha256(value):
            raise DamagedFile(f"its {'prompt' if name == 'prompt_sha256' else 'weights'}' SHA-256 is damaged")
    thresholds = data.get("thresholds")
    if thresholds is not None and not (isinstance(thresholds, list) and len(thresholds) == len(categories) and all(
            is_finite_number(value) and 0 <= value <= 1 for value in thresholds)):
        raise DamagedFile("its decision thresholds (one per category, from 0 to 1) are damaged")
    if not isinstance(data.get("record", {}), dict):
        raise DamagedFile("its record for the appendix is damaged")
    return data


def _check_runs(runs: object) -> None:
    if not isinstance(runs, dict) or runs.get("where") not in ("textlab", "server"):
        raise DamagedFile("it does not say where the language model runs")
    if not isinstance(runs.get("model"), str) or not runs["model"].strip() or len(runs["model"]) > 4096:
        raise DamagedFile("it does not say which language model it asks")
    if runs["where"] == "textlab":
        if not isinstance(runs.get("device"), str) or not is_whole_number(runs.get("batch_size")):
            raise DamagedFile("where the language model runs in TextLab is damaged")
        return
    if not isinstance(runs.get("address"), str) or not isinstance(runs.get("protocol"), str) \
            or not isinstance(runs.get("texts_may_leave_computer"), bool):
        raise DamagedFile("the language-model server's address or kind is damaged")
    if not is_finite_number(runs.get("temperature")) or not is_whole_number(runs.get("samples")) or not is_finite_number(runs.get("timeout")):
        raise DamagedFile("the temperature, samples or time allowed for the server are damaged")


def _texts(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(text, str) for text in value)



def _is_sha256(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= _SHA256
