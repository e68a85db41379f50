"""The bundle's entry script: the folder PyInstaller's matplotlib hook makes in /tmp is removed at
once and matplotlib's settings go to TextLab's cache, so a killed app leaves nothing in /tmp."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import pytest

LAUNCHER = Path(__file__).resolve().parents[1] / "installers" / "launcher.py"


@pytest.fixture
def launcher():
    spec = importlib.util.spec_from_file_location("textlab_launcher", LAUNCHER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def test_the_hooks_folder_in_tmp_is_removed_and_the_settings_go_to_the_cache(launcher, own_tmp, tmp_path, monkeypatch):
    made = tempfile.mkdtemp()  # as PyInstaller's run-time hook does before the launcher runs
    monkeypatch.setenv("MPLCONFIGDIR", made)
    launcher.matplotlib_settings_outside_tmp()
    assert list(own_tmp.iterdir()) == []
    settings = Path(launcher.os.environ["MPLCONFIGDIR"])
    assert settings.is_dir() and settings == tmp_path / "cache" / "matplotlib"


def test_a_settings_folder_the_user_chose_is_kept(launcher, own_tmp, tmp_path, monkeypatch):
    chosen = tmp_path / "my matplotlib"
    chosen.mkdir()
    monkeypatch.setenv("MPLCONFIGDIR", str(chosen))
    launcher.matplotlib_settings_outside_tmp()
    assert launcher.os.environ["MPLCONFIGDIR"] == str(chosen) and chosen.is_dir()
