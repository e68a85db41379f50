"""The manifest of a results folder (``textlab-results.json``): written last, required by readers.

It lists every file of the folder (``results.json``, ``predictions.csv``, ``models/…``) with its
size and SHA-256. A folder without it is not a finished run (stopped early, or written by a
TextLab from before the manifest), and a folder whose files differ from it was changed or
mixed with another run's files since; readers refuse both with a message instead of showing
results that may not belong together. Layout: ``docs/results-folder.md``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from guiapp.core.atomic import sha256_of_file, write_text_atomic
from guiapp.core.errors import UserError
from guiapp.core.untrusted.json_reading import read_json_file
from guiapp.core.untrusted.paths import UnsafePath, inside

MANIFEST_NAME = "textlab-results.json"
MANIFEST_LIMIT = 64 << 20  # the most a manifest can need (a few hundred bytes per file)
FORMAT = "textlab-results"
FORMAT_VERSION = 1
_AGAIN = "Run the study again with `textlab run SPEC --out FOLDER` to write complete results."


def write_manifest(folder: str | Path) -> dict[str, Any]:
    """List every file under ``folder`` with its size and SHA-256 in the manifest; call it last."""
    from guiapp import __version__

    folder = Path(folder)
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path != folder / MANIFEST_NAME:
            files[path.relative_to(folder).as_posix()] = {"bytes": path.stat().st_size,
                                                          "sha256": sha256_of_file(path)}
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "written_by": f"TextLab {__version__}",
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": files,
    }
    write_text_atomic(folder / MANIFEST_NAME, json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return manifest


def read_manifest(folder: str | Path) -> dict[str, Any] | None:
    """The manifest of ``folder`` if it has a readable one of this format, else None."""
    try:
        manifest = read_json_file(Path(folder) / MANIFEST_NAME, max_bytes=MANIFEST_LIMIT)
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        return None
    return manifest


def check_results_folder(folder: str | Path) -> dict[str, Any]:
    """The manifest of ``folder`` once every file it lists is there, unchanged; else UserError."""
    folder = Path(folder)
    if not (folder / MANIFEST_NAME).is_file():
        raise UserError(
            f"{folder} does not hold a complete set of TextLab results (it has no {MANIFEST_NAME}).",
            "A run that was stopped before it finished leaves no results, and earlier versions of "
            f"TextLab did not write this file. {_AGAIN}",
        )
    manifest = read_manifest(folder)
    files = manifest.get("files") if manifest else None
    if not isinstance(files, dict) or "results.json" not in files:
        raise UserError(f"The file {folder / MANIFEST_NAME} is damaged or was not written by TextLab.", _AGAIN)
    version = manifest.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise UserError(f"The results in {folder} were written by a newer TextLab ({manifest.get('written_by')}).",
                        "Update TextLab to open them.")
    problems = [problem for name, info in files.items() if (problem := _file_problem(folder, name, info))]
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise UserError(
            f"The results in {folder} were changed or damaged since the run, so they may not belong "
            f"together: {shown}.",
            "Copy the whole folder again from where the run wrote it, or run the study again.",
        )
    return manifest


def _file_problem(folder: Path, name: str, info: Any) -> str | None:
    try:
        path = inside(folder, name, "the file")
    except UnsafePath as error:
        return error.reason
    if not isinstance(info, dict):
        return f"{name!r} is not a file of a results folder"
    if not path.is_file():
        return f"{name} is missing"
    if path.stat().st_size != info.get("bytes") or sha256_of_file(path) != info.get("sha256"):
        return f"{name} is not the file the run wrote"
    return None
