"""Where TextLab keeps its files: one module, platform folders, environment overrides."""

from __future__ import annotations

import platformdirs

from guiapp.core import locations


def test_cache_dir_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    assert locations.cache_dir() == tmp_path / "cache"


def test_data_dir_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_DATA_DIR", str(tmp_path / "data"))
    assert locations.data_dir() == tmp_path / "data"


def test_default_folders_are_the_platforms_own(monkeypatch):
    monkeypatch.delenv("TEXTLAB_CACHE_DIR", raising=False)
    monkeypatch.delenv("TEXTLAB_DATA_DIR", raising=False)
    cache, data = locations.cache_dir(), locations.data_dir()
    assert str(cache) == platformdirs.user_cache_dir(cache.name, appauthor=False)
    assert str(data) == platformdirs.user_data_dir(data.name, appauthor=False)
    assert cache.name.lower() == data.name.lower() == "textlab"
    assert cache != data


def test_example_study_is_found():
    assert locations.example_path().is_file()
