"""The replication package's shared checks: a table's fingerprint, the manifest, a zip unpacked safely."""

from __future__ import annotations

import json
import zipfile

import pandas as pd
import pytest

from guiapp.core.errors import UserError
from guiapp.core.replication.manifest import (
    MANIFEST,
    check_files,
    column_description,
    data_fingerprint,
    package_root,
    read_manifest,
    sha256_file,
)
from guiapp.core.tables.reader import read_table


def _table() -> pd.DataFrame:
    return pd.DataFrame({
        "text": ["Taxes should fall", "Schools need money", "Más hospitales", "Defend the border"],
        "label": ["economy", "education", "health", "security"],
        "year": [2019, 2020, 2021, 2022],
        "share": [0.5, 1.25, None, 3.0],
    })


def test_the_fingerprint_is_the_same_from_csv_excel_and_parquet_and_one_changed_cell_changes_it(tmp_path):
    frame = _table()
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_excel(tmp_path / "t.xlsx", index=False)
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    prints = {name: data_fingerprint(read_table(tmp_path / name).frame) for name in ("t.csv", "t.xlsx", "t.parquet")}
    assert len(set(prints.values())) == 1, prints
    assert data_fingerprint(frame) == prints["t.csv"]

    changed = frame.copy()
    changed.loc[2, "text"] = "Más hospitales!"
    assert data_fingerprint(changed) != prints["t.csv"]
    renamed = frame.rename(columns={"year": "Year"})
    assert data_fingerprint(renamed) != prints["t.csv"]
    assert data_fingerprint(frame.iloc[:3]) != prints["t.csv"]


def test_columns_are_described_by_kind_and_role():
    described = column_description(_table(), {"text": "text", "label": "label"})
    assert described == [{"name": "text", "dtype": "text", "role": "text"},
                         {"name": "label", "dtype": "text", "role": "label"},
                         {"name": "year", "dtype": "whole numbers", "role": "unused"},
                         {"name": "share", "dtype": "numbers", "role": "unused"}]


def _package(folder):
    (folder / "data").mkdir(parents=True)
    (folder / "README.md").write_text("Run `textlab verify .`\n")
    (folder / "data" / "table.csv").write_text("text,label\na,b\n")
    files = {rel: {"sha256": sha256_file(folder / rel), "size": (folder / rel).stat().st_size}
             for rel in ("README.md", "data/table.csv")}
    manifest = {"format": "textlab-replication", "version": 1, "files": files}
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return manifest


def test_an_untouched_package_has_no_problems_and_a_tampered_one_names_each_file(tmp_path):
    folder = tmp_path / "pkg"
    _package(folder)
    manifest = read_manifest(folder)
    assert check_files(folder, manifest) == []

    (folder / "data" / "table.csv").write_text("text,label\na,c\n")  # same size, other content
    (folder / "README.md").unlink()
    (folder / "extra.txt").write_text("x")
    problems = check_files(folder, manifest)
    assert any("data/table.csv was changed" in problem and "SHA-256" in problem for problem in problems)
    assert any("README.md is missing" in problem for problem in problems)
    assert any("extra.txt is not listed" in problem for problem in problems)
    assert len(problems) == 3


def test_a_manifest_that_is_not_ours_or_names_a_path_outside_is_refused_in_words(tmp_path):
    folder = tmp_path / "pkg"
    manifest = _package(folder)
    (folder / MANIFEST).write_text(json.dumps({"format": "something else"}))
    with pytest.raises(UserError, match="not a replication package"):
        read_manifest(folder)
    manifest["files"]["../outside.txt"] = {"sha256": "0" * 64, "size": 1}
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(UserError, match=r"\.\."):
        read_manifest(folder)
    (folder / MANIFEST).write_text(json.dumps({"format": "textlab-replication", "version": 99, "files": {}}))
    with pytest.raises(UserError, match="newer TextLab"):
        read_manifest(folder)
    (folder / MANIFEST).write_text("[" * 5000)
    with pytest.raises(UserError, match="cannot be read"):
        read_manifest(folder)


def test_a_zipped_package_is_unpacked_to_its_one_top_folder(tmp_path):
    folder = tmp_path / "study-package"
    _package(folder)
    archive = tmp_path / "study-package.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for path in sorted(folder.rglob("*")):
            out.write(path, f"study-package/{path.relative_to(folder).as_posix()}")
    root = package_root(archive, unpack_to=tmp_path / "unpacked")
    assert root == tmp_path / "unpacked" / "study-package"
    assert check_files(root, read_manifest(root)) == []
    assert package_root(folder) == folder


@pytest.mark.parametrize("bad_name", ["../evil.txt", "/etc/evil.txt", "pkg/../../evil.txt", "pkg/model.pkl"])
def test_a_zip_with_an_unsafe_member_is_refused_before_anything_is_written(tmp_path, bad_name):
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("pkg/README.md", "hello")
        out.writestr(bad_name, "boom")
    with pytest.raises(UserError, match="not a replication package"):
        package_root(archive, unpack_to=tmp_path / "unpacked")
    assert not (tmp_path / "evil.txt").exists()
    assert not any((tmp_path / "unpacked").rglob("*"))


def test_a_zip_bomb_is_refused(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("pkg/data/table.csv", b"0" * (40 << 20))
    with pytest.raises(UserError, match="zip bomb"):
        package_root(archive, unpack_to=tmp_path / "unpacked")


def test_a_missing_path_or_a_plain_file_is_not_a_package(tmp_path):
    with pytest.raises(UserError, match="no replication package"):
        package_root(tmp_path / "nowhere")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(UserError, match="neither a folder nor a zip"):
        package_root(tmp_path / "notes.txt")
