"""A SetFit model's folder: the fine-tuned sentence model and ``setfit.json``, written atomically and
read back without running anything from it.

The folder holds the sentence model as a Hugging Face model folder (``config.json``,
``model.safetensors``, the tokenizer's files) and ``setfit.json``: format and version, categories,
settings, the head's weights as plain JSON numbers, and the SHA-256 of every other file, so a
changed or damaged file is refused in words. It is written into a temporary folder beside the
target and renamed into place: an interrupted save leaves the old folder or the new one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from guiapp.core.atomic import sha256_of_file, write_text_atomic
from guiapp.core.errors import UserError
from guiapp.core.untrusted.json_reading import read_json_file

SETFIT_FILE = "setfit.json"
FORMAT = "textlab-setfit-model"
FORMAT_VERSION = 1
JSON_LIMIT = 256 << 20  # the head and the training record: a few MB even for many categories
_PICKLES = ("pytorch_model.bin", "training_args.bin")
AGAIN = "Train the SetFit model again in TextLab."


def write_folder(net: Any, tokenizer: Any, folder: str | Path, info: dict[str, Any]) -> None:
    """The sentence model, its tokenizer and ``info`` (with the format and the files' checksums
    added) as the folder ``folder``, replacing an older one only once the new one is complete."""
    from guiapp.core.models.transformers.sources.files import quiet_loading, write_folder_atomically

    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"“{folder}” is a file, so the model cannot be saved there.",
                        "Choose another name for the model folder.")

    def fill(tmp: Path) -> None:
        with quiet_loading():  # no "Writing model shards" progress bar on the console
            net.save_pretrained(str(tmp))  # safetensors
            tokenizer.save_pretrained(str(tmp))
        for name in _PICKLES:
            (tmp / name).unlink(missing_ok=True)
        checksums = {child.name: sha256_of_file(child) for child in sorted(tmp.iterdir()) if child.is_file()}
        record = {"format": FORMAT, "format_version": FORMAT_VERSION, **info, "files": checksums}
        write_text_atomic(tmp / SETFIT_FILE, json.dumps(record, indent=1, ensure_ascii=False, allow_nan=False))

    write_folder_atomically(folder, fill)


def read_record(folder: str | Path) -> dict[str, Any]:
    """``setfit.json`` of ``folder``, after checking its format and that every file it lists is
    there, unchanged; :class:`UserError` otherwise. Its other contents are checked by the caller."""
    folder = Path(folder)
    path = folder / SETFIT_FILE
    if not folder.is_dir():
        raise UserError(f"The SetFit model folder “{folder}” does not exist.",
                        "Check where the model was saved, or train it again.")
    if not path.is_file():
        raise UserError(f"The folder “{folder.name}” does not hold a SetFit model saved by TextLab "
                        f"({SETFIT_FILE} is missing).", "Choose the folder of a trained model. " + AGAIN)
    try:
        record = read_json_file(path, max_bytes=JSON_LIMIT)
    except (OSError, ValueError) as error:
        raise damaged(folder, f"{SETFIT_FILE}: {error}") from error
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise UserError(f"The folder “{folder.name}” does not hold a SetFit model saved by TextLab.",
                        "Choose the folder of a trained model. " + AGAIN)
    version = record.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise damaged(folder, f"format_version = {version!r}")
    if version > FORMAT_VERSION:
        raise UserError(f"The SetFit model “{folder.name}” was saved by a newer version of TextLab "
                        f"(format {version}; this TextLab reads up to {FORMAT_VERSION}).",
                        "Update TextLab to open this model, or train it again with this version.")
    _check_files(folder, record.get("files"))
    return record


def _check_files(folder: Path, listed: Any) -> None:
    if not isinstance(listed, dict) or "model.safetensors" not in listed or "config.json" not in listed:
        raise damaged(folder, f"{SETFIT_FILE} does not list the model's files")
    for name, digest in listed.items():
        if not isinstance(name, str) or Path(name).name != name or name in (SETFIT_FILE, "", ".", ".."):
            raise damaged(folder, f"unexpected file entry {name!r}")
        path = folder / name
        if not path.is_file():
            raise UserError(f"The SetFit model “{folder.name}” is incomplete: the file “{name}” is missing.",
                            "Copy the whole model folder again, or train the model again.")
        if not isinstance(digest, str) or sha256_of_file(path) != digest:
            raise damaged(folder, f"{name}: the checksum does not match")


def damaged(folder: Path, details: str) -> UserError:
    return UserError(f"The SetFit model “{Path(folder).name}” cannot be opened: its files are damaged or "
                     "were changed after TextLab saved them.",
                     "Copy the model folder again, or train the SetFit model again in TextLab.",
                     details=details)


__all__ = ["FORMAT", "FORMAT_VERSION", "SETFIT_FILE", "damaged", "read_record", "write_folder"]
