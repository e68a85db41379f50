"""Where a run keeps its trained models: one folder per model, named after it."""

from __future__ import annotations

from pathlib import Path

from guiapp.core import locations
from guiapp.core.untrusted.paths import short_name


def run_folder(folder: str | Path | None, started: str) -> Path:
    """``folder`` if given, else a folder for this run in TextLab's cache."""
    if folder is not None:
        return Path(folder)
    return locations.cache_dir() / "runs" / started.replace(":", "-")


def model_folder_name(name: str) -> str:
    """A file-system-safe folder name for a model ("SVM · Basic BOW" → "SVM---Basic-BOW"); a long
    name keeps its beginning and gets a fingerprint of the whole, so the folder fits on any file
    system and two long names that begin alike still get folders of their own."""
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-")
    return short_name(safe) if safe not in ("", ".", "..") else "model"


# A combined model's folder holds this one JSON file (combined_models.py); kept here, in a module
# that imports nothing heavy, so that opening a model knows it without loading the engine.
COMBINED_FILE = "combined.json"
COMBINED_FORMAT = "textlab-combined-model"
