"""Opening a project never runs code, never writes outside its folder and never changes the file;
a damaged, foreign or newer file gets a message that says so."""

from __future__ import annotations

import hashlib
import json
import pickle
import zipfile

import pytest

from guiapp.core.errors import UserError
from guiapp.core.project.format import FORMAT_VERSION
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from tests.core.project.helpers import plain_project


@pytest.fixture
def good(tmp_path):
    return save_project(tmp_path / "good.textlab", plain_project(20))


def members_of(path) -> tuple[dict, dict[str, bytes]]:
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    return json.loads(members.pop("project.json")), members


def forge(path, header: dict, members: dict[str, bytes], index: bool = True):
    """A project file with these members; the index lists their true checksums unless told not to."""
    if index:
        header = {**header, "members": {name: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
                                        for name, data in members.items()}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("project.json", json.dumps(header))
        for name, data in members.items():
            archive.writestr(name, data)
    return path


class MakesMarker:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_pickle_inside_is_refused_and_never_loaded(good, tmp_path):
    marker = tmp_path / "pwned"
    payload = pickle.dumps(MakesMarker(marker))
    header, members = members_of(good)
    bad = forge(tmp_path / "bad.textlab", {**header, "model_folders": {"x": "x"}},
                {**members, "models/x/model.json": b"{}", "models/x/model.pkl": payload})
    with pytest.raises(UserError, match="could run code"):
        open_project(bad, extract_models_to=tmp_path / "models")
    assert not marker.exists() and not (tmp_path / "models").exists()


@pytest.mark.parametrize("name", ["models/../../escaped.txt", "/tmp/escaped.txt", "models/x/../../../escaped.txt",
                                  "models\\..\\escaped.txt", "C:/escaped.txt"])
def test_a_member_that_would_escape_its_folder_is_refused(good, tmp_path, name):
    header, members = members_of(good)
    bad = forge(tmp_path / "slip.textlab", {**header, "model_folders": {"x": "x"}},
                {**members, "models/x/model.json": b"{}", name: b"escaped"})
    with pytest.raises(UserError, match="unsafe name"):
        open_project(bad, extract_models_to=tmp_path / "out" / "models")
    assert not list(tmp_path.rglob("escaped.txt"))


def test_a_newer_format_asks_for_an_update_and_the_file_stays_as_it_was(good, tmp_path):
    header, members = members_of(good)
    newer = forge(tmp_path / "newer.textlab", {**header, "format_version": FORMAT_VERSION + 1, "textlab_version": "9.0"},
                  {**members, "data/new-kind-of-member.arrow": b"..."})
    before = newer.read_bytes()
    with pytest.raises(UserError, match="newer TextLab") as caught:
        open_project(newer, extract_models_to=tmp_path / "models")
    assert "Update TextLab" in caught.value.hint
    assert newer.read_bytes() == before


def test_a_changed_member_fails_its_checksum(good, tmp_path):
    header, members = members_of(good)
    changed = forge(tmp_path / "changed.textlab", header, {**members, "ui.json": b'{"step": "evil"}'}, index=False)
    with pytest.raises(UserError, match="checksum|size"):
        open_project(changed, extract_models_to=tmp_path / "models")


def test_a_truncated_or_scrambled_file_gets_a_message(good, tmp_path):
    data = good.read_bytes()
    truncated = tmp_path / "truncated.textlab"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(UserError, match="cannot be opened"):
        open_project(truncated, extract_models_to=tmp_path / "models")
    scrambled = tmp_path / "scrambled.textlab"
    middle = len(data) // 3
    scrambled.write_bytes(data[:middle] + bytes(b ^ 0x5A for b in data[middle:middle + 200]) + data[middle + 200:])
    with pytest.raises(UserError, match="cannot be opened"):
        open_project(scrambled, extract_models_to=tmp_path / "models")


@pytest.mark.parametrize("content", [b"text,label\nhello,a\n", b""])
def test_a_file_that_is_not_a_project(tmp_path, content):
    path = tmp_path / "table.textlab"
    path.write_bytes(content)
    with pytest.raises(UserError, match="not a readable zip"):
        open_project(path, extract_models_to=tmp_path / "models")
    other_zip = forge(tmp_path / "other.textlab", {"format": "something-else"}, {"a.txt": b"x"})
    with pytest.raises(UserError, match="not describe a TextLab project"):
        open_project(other_zip, extract_models_to=tmp_path / "models")
    with zipfile.ZipFile(tmp_path / "empty.textlab", "w") as archive:
        archive.writestr("study.json", "{}")
    with pytest.raises(UserError, match="no project.json"):
        open_project(tmp_path / "empty.textlab", extract_models_to=tmp_path / "models")
    with pytest.raises(UserError, match="no project file"):
        open_project(tmp_path / "missing.textlab", extract_models_to=tmp_path / "models")


def test_an_unlisted_member_is_refused(good, tmp_path):
    header, members = members_of(good)
    extra = forge(tmp_path / "extra.textlab", header, {**members, "ui.json": members["ui.json"]}, index=False)
    with zipfile.ZipFile(extra, "a") as archive:
        archive.writestr("models/y/config.json", b"{}")
    with pytest.raises(UserError, match="do not match|belongs to no model"):
        open_project(extra, extract_models_to=tmp_path / "models")


@pytest.mark.parametrize("name", ["explanations/a/b.json", "explanations/model.pkl", "explanations/x.txt"])
def test_an_unexpected_explanations_member_is_refused(good, tmp_path, name):
    header, members = members_of(good)
    bad = forge(tmp_path / "odd.textlab", header, {**members, name: b"{}"})
    with pytest.raises(UserError, match="unexpected file|could run code"):
        open_project(bad, extract_models_to=tmp_path / "models")


def test_a_damaged_explanations_file_opens_and_counts_as_empty(good, tmp_path):
    from guiapp.core.explain.cache import ExplanationCache, restore_cache_files

    header, members = members_of(good)
    fine = forge(tmp_path / "fine.textlab", header, {**members, "explanations/m-0123.json": b"not json"})
    project = open_project(fine, extract_models_to=tmp_path / "models")
    assert project.explanations == {"m-0123.json": b"not json"}
    restore_cache_files(tmp_path / "cache", project.explanations)
    assert ExplanationCache(tmp_path / "cache").models() == []
