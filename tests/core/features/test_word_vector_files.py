"""Converting users' GloVe/word2vec text files into the cached, memory-mapped form."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.features import word_vector_text
from guiapp.core.features.word_vector_files import (
    convert_word_vector_file,
    open_word_vectors,
)

GLOVE = "the 0.1 0.2 0.3\nTax -1 2.5e-1 3\n. 0 0 1\nthe 9 9 9\ncut 1 1 1\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_glove_text_converts_once_and_keeps_first_duplicate(tmp_path, cache):
    path = tmp_path / "glove.txt"
    path.write_text(GLOVE, encoding="utf-8")
    events: list[object] = []
    folder = convert_word_vector_file(path, on_event=events.append)
    assert folder.parent == cache / "word-vectors"
    messages = [e.message for e in events if isinstance(e, Progress)]
    assert messages[-1] == "Converting word vectors: 4 words"
    meta = json.loads((folder / "meta.json").read_text())
    assert (meta["n_words"], meta["dim"], meta["duplicates_skipped"], meta["format"]) == (4, 3, 1, "glove")

    stamp = (folder / "vectors.npy").stat().st_mtime_ns
    again: list[object] = []
    assert convert_word_vector_file(path, on_event=again.append) == folder
    assert again == [] and (folder / "vectors.npy").stat().st_mtime_ns == stamp

    vectors = open_word_vectors(path)
    assert list(vectors.words) == ["the", "Tax", ".", "cut"]
    assert vectors.matrix.dtype == np.float32 and vectors.dim == 3
    np.testing.assert_array_equal(vectors.matrix[vectors.index["the"]], np.float32([0.1, 0.2, 0.3]))
    np.testing.assert_array_equal(vectors.matrix[1], np.float32([-1, 0.25, 3]))


def test_word2vec_header_and_gzip(tmp_path, cache):
    path = tmp_path / "w2v.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("2 3\nhello 1 2 3\nworld 4 5 6\n")
    vectors = open_word_vectors(path)
    assert list(vectors.words) == ["hello", "world"]
    np.testing.assert_array_equal(vectors.matrix, np.float32([[1, 2, 3], [4, 5, 6]]))
    meta = json.loads((convert_word_vector_file(path) / "meta.json").read_text())
    assert meta["format"] == "word2vec"


def test_word_with_spaces_like_glove_840b(tmp_path, cache):
    path = tmp_path / "v.txt"
    path.write_text("a 1 2\n. . . 3 4\n", encoding="utf-8")
    assert list(open_word_vectors(path).words) == ["a", ". . ."]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a 1 2 3\nb 1 2\nc 1 2 3\n", r"Line 2 of “bad.txt” has 2 numbers, but the file has 3"),
        ("a 1 2 3\nb 1 2 3\nc 1 x 3\n", r"Line 3 of “bad.txt” has “x” where a number should be"),
        ("a 1 2 3\nb 1 2 3 4\n", r"Line 2 of “bad.txt” has 4 numbers"),
        ("word\n", r"Line 1 of “bad.txt” has a word but no numbers"),
        ("\n\n", r"contains no word vectors"),
    ],
)
def test_bad_files_name_the_line(tmp_path, cache, content: str, message: str):
    path = tmp_path / "bad.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=message):
        convert_word_vector_file(path)
    assert not list((cache / "word-vectors").iterdir())  # nothing half-written remains


def test_missing_empty_and_binary_files(tmp_path, cache):
    with pytest.raises(UserError, match="does not exist"):
        convert_word_vector_file(tmp_path / "nope.txt")
    (tmp_path / "empty.txt").write_bytes(b"")
    with pytest.raises(UserError, match="is empty"):
        convert_word_vector_file(tmp_path / "empty.txt")
    (tmp_path / "vectors.bin").write_bytes(b"2 3\nhello \x00\x00\x80?\x00\x00")
    with pytest.raises(UserError, match="not a text file") as error:
        convert_word_vector_file(tmp_path / "vectors.bin")
    assert ".bin" in error.value.hint
    with pytest.raises(UserError, match="is a folder"):
        convert_word_vector_file(tmp_path)


@pytest.mark.parametrize("cancel_after", [1, 3])
def test_cancel_during_conversion_leaves_nothing(tmp_path, cache, monkeypatch, cancel_after: int):
    monkeypatch.setattr(word_vector_text, "CHUNK_LINES", 2)
    path = tmp_path / "glove.txt"
    path.write_text("".join(f"w{i} {i} {i + 1}\n" for i in range(10)), encoding="utf-8")
    seen = []

    def cancel(event: object) -> None:
        seen.append(event)
        if isinstance(event, Progress) and len(seen) > cancel_after:
            raise Cancelled

    with pytest.raises(Cancelled):
        convert_word_vector_file(path, on_event=cancel)
    assert list((cache / "word-vectors").iterdir()) == []
    folder = convert_word_vector_file(path)  # a later run converts from scratch
    assert json.loads((folder / "meta.json").read_text())["n_words"] == 10
