"""Hostile project files: model folders that point outside the unpacking folder, zip bombs, JSON
nested 200,000 deep and names longer than file systems allow are all refused in words, before
anything is created outside the unpacking folder and without gigabytes of memory or disk."""

from __future__ import annotations

import hashlib
import json
import struct
import tracemalloc
import zipfile

import pytest

from guiapp.core.errors import UserError
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from tests.core.project.helpers import plain_project

DEEP = ("[" * 200_000 + "]" * 200_000).encode()
BOMB = 64 << 20  # zeros: deflate shrinks them about a thousand times


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = save_project(tmp_path_factory.mktemp("good") / "good.textlab", plain_project(20))
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    return json.loads(members.pop("project.json")), members


def forge(path, header: dict, members: dict[str, bytes], sizes: dict[str, int] | None = None):
    """A deflated project file with these members, its index listing their true sizes (unless
    ``sizes`` says otherwise) and checksums."""
    header = {**header, "members": {name: {"sha256": hashlib.sha256(data).hexdigest(),
                                           "size": (sizes or {}).get(name, len(data))}
                                    for name, data in members.items()}}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("project.json", json.dumps(header))
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def with_model(header: dict, members: dict[str, bytes], **folders: str):
    """The project with a model folder "x" (one small file) and the extra model folders given."""
    return {**header, "model_folders": {"x": "x", **folders}}, {**members, "models/x/model.json": b"{}"}


def refused(path, unpack_to, *words: str) -> UserError:
    with pytest.raises(UserError) as caught:
        open_project(path, extract_models_to=unpack_to)
    for word in words:
        assert word in caught.value.message, caught.value.message
    return caught.value


@pytest.mark.parametrize("folder", ["../../../escaped", "../../../../tmp/x", "ABSOLUTE", "x/../../escaped", "C:/escaped"])
def test_a_model_folder_outside_the_unpacking_folder_is_refused_before_anything_is_created(good, tmp_path, folder):
    folder = str(tmp_path / "escaped") if folder == "ABSOLUTE" else folder
    header, members = with_model(*good, evil=folder)
    unpack_to = tmp_path / "cache" / "projects"  # the staging folder is three levels below tmp_path
    error = refused(forge(tmp_path / "evil.textlab", header, members), unpack_to, "cannot be opened", "model folder")
    assert "outside" in error.message or "climbs out" in error.message
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "cache").exists()


def test_a_member_name_longer_than_file_systems_allow_is_refused_in_words(good, tmp_path):
    header, members = with_model(*good)
    members["models/x/" + "a" * 300 + ".json"] = b"{}"
    refused(forge(tmp_path / "long.textlab", header, members), tmp_path / "cache", "305 bytes",
            "longer than file systems allow")
    assert not (tmp_path / "cache").exists()


def test_a_zip_bomb_among_the_models_is_refused_before_anything_is_unpacked(good, tmp_path):
    header, members = with_model(*good)
    members["models/x/weights.json"] = bytes(BOMB)
    path = forge(tmp_path / "bomb.textlab", header, members)
    assert path.stat().st_size < BOMB / 100
    refused(path, tmp_path / "cache", "models/x/weights.json", "zip bomb")
    assert not (tmp_path / "cache").exists()


def test_a_window_state_bomb_is_refused_without_filling_the_memory(good, tmp_path):
    header, members = good
    path = forge(tmp_path / "ui-bomb.textlab", header, {**members, "ui.json": bytes(BOMB)})
    tracemalloc.start()
    try:
        refused(path, tmp_path / "cache", "ui.json", "more than such a file ever needs")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


def _understate(path, name: str, size: int) -> None:
    """Rewrite the zip headers of ``name`` so that they declare ``size`` bytes, inflated."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        struct.pack_into("<I", data, archive.getinfo(name).header_offset + 22, size)  # its local header
    at = 0
    while (at := data.find(b"PK\x01\x02", at)) != -1:  # its entry in the central directory
        length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46:at + 46 + length]) == name.encode():
            struct.pack_into("<I", data, at + 24, size)
        at += 4
    path.write_bytes(bytes(data))


def test_a_member_whose_headers_understate_its_size_is_read_only_up_to_that_size(good, tmp_path):
    """The inflated bytes are counted as they arrive: a declared size is never trusted alone."""
    header, members = good
    # the index and the zip headers both say 1,000 bytes; the member inflates to 64 MB
    path = forge(tmp_path / "liar.textlab", header, {**members, "ui.json": bytes(BOMB)}, sizes={"ui.json": 1000})
    _understate(path, "ui.json", 1000)
    with zipfile.ZipFile(path) as archive:
        assert archive.getinfo("ui.json").file_size == 1000
    tracemalloc.start()
    try:
        refused(path, tmp_path / "cache", "cannot be opened")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


@pytest.mark.parametrize("member", ["project.json", "study.json", "ui.json", "results.json"])
def test_json_nested_200000_deep_gives_a_plain_error(good, tmp_path, member):
    header, members = good
    if member == "project.json":
        path = tmp_path / "deep.textlab"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("project.json", DEEP)
            for name, data in members.items():
                archive.writestr(name, data)
    else:
        path = forge(tmp_path / "deep.textlab", header, {**members, member: DEEP})
    refused(path, tmp_path / "cache", member, "nested more than 100 levels deep")


def test_a_deep_learning_curve_or_explanation_costs_only_itself(good, tmp_path):
    header, members = good
    path = forge(tmp_path / "deep-extras.textlab", header,
                 {**members, "learning-curve.json": DEEP, "explanations/model.json": DEEP})
    project = open_project(path, extract_models_to=tmp_path / "cache")
    assert project.learning_curve is None and project.explanations == {"model.json": b""}
    assert project.ui_state == {"step": "data", "rows": 20}


def test_a_project_with_a_long_model_name_saves_and_opens(tmp_path):
    """The folder a project gives a model with a 300-character name fits on any file system."""
    model_folder = tmp_path / "run" / "model"
    model_folder.mkdir(parents=True)
    (model_folder / "model.json").write_text("{}")
    project = plain_project(10)
    project.model_folders = {"N" * 300: model_folder}
    path = save_project(tmp_path / "long names.textlab", project)
    opened = open_project(path, extract_models_to=tmp_path / "cache")
    unpacked = opened.model_folder("N" * 300)
    assert (unpacked / "model.json").read_text() == "{}"
    assert len(unpacked.name) <= 100 and unpacked.name.startswith("NNNN")


def test_models_that_would_fill_the_drive_are_not_unpacked(good, tmp_path, monkeypatch):
    import shutil
    from collections import namedtuple

    header, members = with_model(*good)
    path = forge(tmp_path / "big.textlab", header, members)
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda folder: usage(1 << 30, (1 << 30) - (1 << 20), 1 << 20))
    refused(path, tmp_path / "cache", "once unpacked", "1 MB free")
    assert not list((tmp_path / "cache").iterdir())
