"""What every model description TextLab saves as JSON shares: the error that says in words why a file
cannot be used, and the check of the file's format name and version before its fields are read."""

from __future__ import annotations

from typing import Any

from guiapp.core.numbers import is_whole_number


class DamagedDescription(ValueError):
    """The file is not a model TextLab can use; ``str()`` says why in words, ``hint`` what to do."""

    def __init__(self, why: str, hint: str = "") -> None:
        super().__init__(why)
        self.hint = hint


def check_format(data: object, format_name: str, version: int, damaged: type[DamagedDescription],
                 described_as: str, saved_as: str) -> dict[str, Any]:
    """``data`` when it is a dict of ``format_name`` at a version this TextLab reads; else ``damaged``
    saying it is not ``described_as`` (e.g. "a zero-shot model's description") or not ``saved_as``
    (e.g. "a zero-shot model saved by TextLab"), or that a newer TextLab wrote it."""
    if not isinstance(data, dict):
        raise damaged(f"it is not {described_as}")
    if data.get("format") != format_name:
        raise damaged(f"it is not {saved_as}")
    found = data.get("version")
    if not is_whole_number(found) or found < 1:
        raise damaged("its version is missing")
    if found > version:
        raise damaged(f"it was saved by a newer TextLab (format {found})", "Update TextLab to open it.")
    return data
