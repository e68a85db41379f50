"""Where TextLab finds its bundled resources and keeps its own files."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def resources_dir() -> Path:
    """The ``resources/`` folder: next to the package in a checkout, inside the bundle when frozen."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    override = os.environ.get("TEXTLAB_RESOURCES")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[1] / "resources"


def example_path() -> Path:
    """The example study shipped with the app (US Congress bills coded by policy topic)."""
    return resources_dir() / "example" / "us_congress_bills.xlsx"
