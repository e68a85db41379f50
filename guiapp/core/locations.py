"""Where TextLab finds its bundled resources and where it keeps its own files.

Folders follow each platform's rules (via ``platformdirs``); an environment variable moves each
one, which tests and portable installs use:

============  ===========================  ============================================================
what          variable                     default (Linux · macOS · Windows)
============  ===========================  ============================================================
cache         ``TEXTLAB_CACHE_DIR``        ``~/.cache/textlab`` · ``~/Library/Caches/TextLab`` ·
                                           ``%LOCALAPPDATA%\\TextLab\\Cache`` — files TextLab can
                                           rebuild: converted word vectors, text embeddings, hub
                                           downloads, unpacked models, run artefacts
user data     ``TEXTLAB_DATA_DIR``         ``~/.local/share/textlab`` · ``~/Library/Application
                                           Support/TextLab`` · ``%LOCALAPPDATA%\\TextLab`` — files
                                           that are the user's work: autosaves
============  ===========================  ============================================================

Settings of the window (recent files, sizes) are kept by Qt in the platform's settings store
(``QSettings``), which the core never touches.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

# Linux folders are lower case by convention (~/.cache/textlab); macOS and Windows show the name.
_DIR_NAME = "TextLab" if sys.platform in ("win32", "darwin") else "textlab"


def resources_dir() -> Path:
    """The ``resources/`` folder: inside the bundle when frozen, else the installed ``guiapp_resources``
    package (the wheel ships ``resources/`` under that name), else next to the package in a checkout."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    override = os.environ.get("TEXTLAB_RESOURCES")
    if override:
        return Path(override)
    checkout = Path(__file__).resolve().parents[2] / "resources"
    if (checkout / "example").is_dir():
        return checkout
    return _installed_resources() or checkout


def _installed_resources() -> Path | None:
    """The folder of the installed ``guiapp_resources`` package (pyproject.toml maps it to ``resources/``)."""
    import importlib.util

    found = importlib.util.find_spec("guiapp_resources")
    if found is None or not found.submodule_search_locations:
        return None
    return Path(next(iter(found.submodule_search_locations)))


def example_path() -> Path:
    """The example study shipped with the app (US Congress bills coded by policy topic)."""
    return resources_dir() / "example" / "us_congress_bills.xlsx"


def icon_path(size: int | None = None) -> Path:
    """The app icon: the SVG source, or the PNG rendered at ``size`` pixels (16 … 512)."""
    folder = resources_dir() / "icons"
    return folder / ("textlab.svg" if size is None else f"textlab-{size}.png")


def cache_dir() -> Path:
    """Where TextLab keeps files it can rebuild (converted vectors, text embeddings, models)."""
    override = os.environ.get("TEXTLAB_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir(_DIR_NAME, appauthor=False))


def data_dir() -> Path:
    """Where TextLab keeps files that hold the user's work (autosaves)."""
    override = os.environ.get("TEXTLAB_DATA_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(_DIR_NAME, appauthor=False))
