"""The wheel carries resources/ as the package guiapp_resources: example data, its licence, the icons;
and the data files of guiapp itself (the Transformer short list)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_wheel_holds_the_example_its_licence_and_the_icons(tmp_path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path)], check=True, cwd=tmp_path, timeout=240)
    wheel = next(tmp_path.glob("textlab-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("example/us_congress_bills.xlsx", "example/LICENSE-GPL-3.0.txt", "example/README.md",
                 "icons/textlab.svg", "icons/textlab-16.png", "icons/textlab-256.png", "icons/textlab.ico",
                 "icons/textlab.icns", "__init__.py"):
        assert f"guiapp_resources/{name}" in names
    assert "guiapp/core/self_test.py" in names and "guiapp/core/locations.py" in names
    assert "guiapp/core/models/transformers/sources/transformer_models.toml" in names
