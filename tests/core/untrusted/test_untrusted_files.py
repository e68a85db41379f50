"""The readers for files TextLab did not write itself: JSON bounded in size and depth, paths kept
inside their folder, names shortened to fit any file system, streams cut at their limit."""

from __future__ import annotations

import io
import json
import os

import pytest

from guiapp.core.untrusted.bounded import TooLarge, describe_size, read_at_most
from guiapp.core.untrusted.json_reading import MAX_DEPTH, UnreadableJson, loads_json, read_json_file, too_deep
from guiapp.core.untrusted.paths import UnsafePath, inside, path_problem, short_name, single_name


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_json_as_deep_as_allowed_is_read_and_one_level_more_is_refused_in_words():
    assert loads_json(nested(MAX_DEPTH)) is not None
    with pytest.raises(UnreadableJson, match=f"nested more than {MAX_DEPTH} levels deep"):
        loads_json(nested(MAX_DEPTH + 1))
    with pytest.raises(UnreadableJson, match="nested more than"):
        loads_json(nested(200_000).encode())


def test_brackets_inside_strings_do_not_count_and_escaped_quotes_stay_inside():
    text = json.dumps({"text": "[" * 5000 + '"\\' + "{" * 5000, "list": [[1, 2], {"a": "]]]"}]})
    assert not too_deep(text)
    assert loads_json(text)["list"] == [[1, 2], {"a": "]]]"}]


def test_what_is_not_json_says_so():
    with pytest.raises(UnreadableJson, match="not valid JSON"):
        loads_json("{not json")
    with pytest.raises(UnreadableJson, match="not UTF-8"):
        loads_json(b"\xff\xfe{}")
    assert loads_json(b"\xef\xbb\xbf{\"a\": 1}") == {"a": 1}  # a byte-order mark is fine


def test_a_file_larger_than_its_kind_can_need_is_refused_before_it_is_read_whole(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(["x" * 1000] * 100))
    assert len(read_json_file(path, max_bytes=1 << 20)) == 100
    with pytest.raises(UnreadableJson, match="larger than 10 KB"):
        read_json_file(path, max_bytes=10 << 10)


def test_a_stream_is_cut_at_its_limit_whatever_it_claims():
    class Endless:
        given = 0

        def read(self, size: int) -> bytes:
            self.given += size
            return b"0" * size

    stream = Endless()
    with pytest.raises(TooLarge):
        read_at_most(stream, 3 << 20, "the stream")
    assert stream.given <= (3 << 20) + 1
    assert read_at_most(io.BytesIO(b"abc"), 3, "it") == b"abc"
    assert describe_size(1536) == "1.5 KB" and describe_size(16 << 20) == "16 MB"


def test_a_name_too_long_for_file_systems_is_measured_in_bytes_as_they_count_it():
    assert "265 characters" not in path_problem("a" * 265)
    assert path_problem("a" * 265) == "has a name of 265 bytes, longer than file systems allow (255 bytes)"
    assert "name of 265 bytes (133 characters;" in path_problem("é" * 132 + "a")
    assert path_problem("é" * 127) is None  # 254 bytes: fits


@pytest.mark.parametrize(("relative", "words"), [
    ("../x", "climbs out"), ("a/../../x", "climbs out"), ("/etc/x", "absolute"), ("C:/x", "absolute"),
    ("a\\..\\x", "backslashes"), ("a//b", "empty part"), ("a" * 300, "name of 300 bytes, longer than file systems allow (255 bytes)"),
    ("é" * 200, "name of 400 bytes (200 characters;"), ("a/" * 600 + "b", "longer than file systems allow"),
    ("a/x:stream", "character"), ("aux.json", "reserves"), ("a\x00b", "character"), ("", "not a path"),
])
def test_paths_that_leave_their_folder_or_cannot_exist_are_refused(tmp_path, relative, words):
    assert words in path_problem(relative)
    with pytest.raises(UnsafePath) as caught:
        inside(tmp_path, relative, "the file")
    assert words in caught.value.message and "the file" in caught.value.reason
    assert list(tmp_path.iterdir()) == []


def test_a_link_that_leads_out_of_the_folder_is_refused(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", tmp_path / "folder" / "models")
    with pytest.raises(UnsafePath, match="through a link"):
        inside(tmp_path / "folder", "models/x.json")
    assert inside(tmp_path / "folder", "data/x.json") == tmp_path / "folder" / "data" / "x.json"


def test_one_name_is_not_a_path():
    assert single_name("Naive-Bayes---Basic-BOW") == "Naive-Bayes---Basic-BOW"
    for name in ("a/b", "..", "/x", 7):
        with pytest.raises(UnsafePath):
            single_name(name)


def test_long_names_are_shortened_readably_and_stay_apart():
    assert short_name("SVM---Basic-BOW") == "SVM---Basic-BOW"
    first, second = short_name("N" * 300 + "a"), short_name("N" * 300 + "b")
    assert first != second and first.startswith("N" * 80)
    assert len(first.encode()) <= 100 and len(second.encode()) <= 100
    accented = short_name("é" * 300)
    assert len(accented.encode()) <= 100 and accented.startswith("é" * 40)
