"""A saved fine-tuned model gets the permissions of any new folder and file of the user (their umask),
not the owner-only ones of a temporary folder, as docs/results-folder.md promises."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.tiny_bert import tiny_bert, tiny_tokenizer

pytestmark = pytest.mark.skipif(os.name != "posix", reason="permission bits are a POSIX matter")


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_a_saved_model_folder_follows_the_umask(tmp_path: Path, umask: int) -> None:
    from guiapp.core.models.transformers.sources.files import write_folder

    tokenizer = tiny_tokenizer(tmp_path / "vocabulary", ["speech", "debate"])
    before = os.umask(umask)
    try:
        write_folder(tiny_bert(len(tokenizer)), tokenizer, tmp_path / "results" / "model", {"categories": ["a", "b"]})
    finally:
        os.umask(before)
    folder = tmp_path / "results" / "model"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o777 & ~umask
    files = [path for path in folder.rglob("*") if path.is_file()]
    assert any(path.suffix == ".safetensors" for path in files)
    assert {path.name: stat.S_IMODE(path.stat().st_mode) for path in files} == {
        path.name: 0o666 & ~umask for path in files}
