"""A results folder is whole or absent: the lock, the checks before a study, the manifest, the move
into place (also when the process dies at any step of it), and the user's umask."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from guiapp.core import atomic
from guiapp.core.errors import UserError
from guiapp.core.experiment.results import output_folder
from guiapp.core.experiment.results.output_folder import OutputFolder
from guiapp.core.experiment.results.results_manifest import MANIFEST_NAME, check_results_folder, read_manifest


def fill(folder: Path, tag: str) -> None:
    """A small set of results, every file marked with ``tag``."""
    (folder / "models" / f"model-{tag}").mkdir(parents=True)
    (folder / "models" / f"model-{tag}" / "model.json").write_text(tag, encoding="utf-8")
    (folder / "results.json").write_text(json.dumps({"run": tag}), encoding="utf-8")
    (folder / "predictions.csv").write_text(f"run\n{tag}\n", encoding="utf-8")


def write_run(target: Path, tag: str) -> None:
    with OutputFolder(target) as out:
        fill(out.partial, tag)
        out.commit()


def tag_of(folder: Path) -> str:
    check_results_folder(folder)
    tag = json.loads((folder / "results.json").read_text(encoding="utf-8"))["run"]
    assert (folder / "predictions.csv").read_text(encoding="utf-8") == f"run\n{tag}\n"
    assert [path.name for path in (folder / "models").iterdir()] == [f"model-{tag}"]
    return tag


def hidden(parent: Path) -> list[str]:
    return sorted(path.name for path in parent.iterdir() if path.name.startswith("."))


def test_results_appear_whole_with_a_manifest_and_nothing_is_left_beside_them(tmp_path) -> None:
    target = tmp_path / "results"
    with OutputFolder(target) as out:
        assert out.partial.parent == tmp_path and out.partial.name == f".results.partial-{os.getpid()}"
        assert out.lock_file.is_file() and not target.exists()
        fill(out.partial, "first")
        out.commit()
        assert out.committed
    assert tag_of(target) == "first"
    manifest = read_manifest(target)
    assert set(manifest["files"]) == {"results.json", "predictions.csv", "models/model-first/model.json"}
    assert manifest["format_version"] == 1 and manifest["written_by"].startswith("TextLab")
    assert hidden(tmp_path) == []


def test_an_older_run_is_replaced_as_a_whole(tmp_path) -> None:
    target = tmp_path / "results"
    write_run(target, "old")
    write_run(target, "new")
    assert tag_of(target) == "new"  # no model folder, file or manifest entry of the old run is left
    assert hidden(tmp_path) == []


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "rename aside"])
def test_replacing_without_an_atomic_exchange_works_too(tmp_path, monkeypatch, exchange) -> None:
    if not exchange:
        monkeypatch.setattr(output_folder, "_exchange", lambda first, second: False)
    target = tmp_path / "results"
    write_run(target, "old")
    write_run(target, "new")
    assert tag_of(target) == "new" and hidden(tmp_path) == []


def test_leaving_without_commit_keeps_the_older_results_and_removes_the_partial_folder(tmp_path) -> None:
    target = tmp_path / "results"
    write_run(target, "old")
    with pytest.raises(KeyboardInterrupt), OutputFolder(target) as out:
        fill(out.partial, "new")
        raise KeyboardInterrupt
    assert tag_of(target) == "old" and hidden(tmp_path) == []


def test_a_folder_with_other_files_is_never_replaced(tmp_path) -> None:
    target = tmp_path / "thesis"
    target.mkdir()
    (target / "chapter 1.docx").write_text("years of work", encoding="utf-8")
    with pytest.raises(UserError, match="holds files that TextLab did not write") as error:
        OutputFolder(target).__enter__()
    assert "chapter 1.docx" in error.value.message
    assert (target / "chapter 1.docx").read_text(encoding="utf-8") == "years of work"
    assert hidden(tmp_path) == []
    results = tmp_path / "results"
    write_run(results, "old")
    (results / "models" / "model-old" / "my notes.txt").write_text("keep", encoding="utf-8")
    (results / ".DS_Store").write_bytes(b"")  # a file browser's, not the user's
    with pytest.raises(UserError, match=r"models/model-old/my notes\.txt"):
        OutputFolder(results).__enter__()
    (results / "models" / "model-old" / "my notes.txt").unlink()
    write_run(results, "new")
    assert tag_of(results) == "new"
    empty = tmp_path / "empty"
    empty.mkdir()
    write_run(empty, "first")  # an empty folder the user made for the results is fine
    assert tag_of(empty) == "first"


def test_a_second_run_into_the_same_folder_is_refused_and_named(tmp_path) -> None:
    target = tmp_path / "results"
    with OutputFolder(target) as first:
        with pytest.raises(UserError) as error:
            OutputFolder(target).__enter__()
        assert f"process {os.getpid()} on {socket.gethostname()}" in error.value.message
        assert str(first.lock_file) in error.value.hint
        assert first.partial.is_dir()  # the refused run touched nothing of the first
    assert not first.lock_file.exists()


def lock(tmp_path: Path, **holder) -> Path:
    path = tmp_path / ".results.textlab-lock"
    path.write_text(json.dumps({"host": socket.gethostname(), "started_at": "2024-05-01T10:00:00+00:00",
                                **holder}), encoding="utf-8")
    return path


def test_a_lock_of_a_process_that_is_gone_is_taken_over(tmp_path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    lock(tmp_path, pid=gone.pid)
    (tmp_path / ".results.partial-999999").mkdir()  # what that killed run left
    write_run(tmp_path / "results", "after")
    assert tag_of(tmp_path / "results") == "after" and hidden(tmp_path) == []


def test_a_lock_from_another_computer_or_a_live_process_is_respected(tmp_path) -> None:
    lock(tmp_path, pid=os.getpid(), host="lab-server-7")
    with pytest.raises(UserError, match="lab-server-7"):
        OutputFolder(tmp_path / "results").__enter__()
    lock(tmp_path, pid=os.getppid())  # alive, on this computer
    with pytest.raises(UserError, match=f"process {os.getppid()}"):
        OutputFolder(tmp_path / "results").__enter__()
    assert not (tmp_path / "results").exists()


def test_too_little_free_space_is_found_before_the_study(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(output_folder, "free_bytes", lambda folder: 50 * 2**20)
    with pytest.raises(UserError, match="not enough free space") as error:
        OutputFolder(tmp_path / "results", need_bytes=output_folder.MIN_FREE_BYTES).__enter__()
    assert "50 MB free, about 200 MB needed" in error.value.message
    assert list(tmp_path.iterdir()) == []


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder no one may write into: read-only for a user, /sys for root (who ignores modes)."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir(mode=0o555)
        return folder
    if not os.path.isdir("/sys") or os.access("/sys", os.W_OK) and _can_create("/sys"):
        pytest.skip("no unwritable folder to test with")
    return Path("/sys")


def _can_create(folder: str) -> bool:
    try:
        os.mkdir(os.path.join(folder, "textlab-probe"))
    except OSError:
        return False
    os.rmdir(os.path.join(folder, "textlab-probe"))
    return True


def test_an_unwritable_folder_gives_a_plain_message(tmp_path) -> None:
    parent = unwritable_folder(tmp_path)
    with pytest.raises(UserError, match=f"TextLab cannot write the results into {parent}"):
        OutputFolder(parent / "results").__enter__()


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_files_and_folders_get_the_users_umask(tmp_path, umask) -> None:
    previous = os.umask(umask)
    try:
        atomic.write_text_atomic(tmp_path / "note.txt", "x")
        write_run(tmp_path / "results", "first")
    finally:
        os.umask(previous)
    assert (tmp_path / "note.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    target = tmp_path / "results"
    for path in [target, *target.rglob("*")]:
        expected = (0o777 if path.is_dir() else 0o666) & ~umask
        assert path.stat().st_mode & 0o777 == expected, path


# -------------------------------------------------- a process killed at every step of the move


def die_at(step: int, target: Path, tag: str, exchange: bool) -> None:
    """In a forked child: write a run, dying (os._exit, no clean-up) at file-system step ``step``."""
    count = [0]

    def dying(original):
        def call(*args, **kwargs):
            count[0] += 1
            if count[0] == step:
                os._exit(9)
            return original(*args, **kwargs)
        return call

    os.rename = dying(os.rename)
    os.replace = dying(os.replace)
    output_folder.shutil.rmtree = dying(output_folder.shutil.rmtree)
    output_folder._exchange = dying(output_folder._exchange if exchange else lambda first, second: False)
    write_run(target, tag)
    os._exit(0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "rename aside"])
def test_a_process_killed_at_any_step_leaves_the_old_or_the_new_results(tmp_path, exchange) -> None:
    target = tmp_path / "results"
    write_run(target, "old")
    outcomes = []
    for step in range(1, 12):
        pid = os.fork()
        if pid == 0:
            try:
                die_at(step, target, f"new{step}", exchange)
            finally:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        killed = os.waitstatus_to_exitcode(status) == 9
        tag = tag_of(target) if target.exists() else None  # absent only between the two renames
        assert tag in ("old", f"new{step}", None) and (tag is not None or not exchange)
        write_run(target, "old")  # the next run tidies whatever the killed one left, and works
        assert tag_of(target) == "old" and hidden(tmp_path) == []
        outcomes.append((killed, tag))
        if not killed:
            break
    assert outcomes[-1] == (False, f"new{len(outcomes)}")  # every step was reached and survived
    assert len(outcomes) == (4 if exchange else 6), outcomes


def test_an_aside_folder_left_by_a_kill_is_put_back_by_the_next_run(tmp_path) -> None:
    target = tmp_path / "results"
    write_run(target, "old")
    os.rename(target, tmp_path / ".results.old-4242")  # killed between the two renames
    with pytest.raises(RuntimeError), OutputFolder(target):
        assert tag_of(target) == "old"  # back in place before this run writes anything
        raise RuntimeError("this run fails")
    assert tag_of(target) == "old" and hidden(tmp_path) == []


def test_manifest_names_a_mismatch(tmp_path) -> None:
    target = tmp_path / "results"
    write_run(target, "one")
    (target / "predictions.csv").write_text("run\nother\n", encoding="utf-8")
    with pytest.raises(UserError, match="predictions.csv is not the file the run wrote"):
        check_results_folder(target)
    (target / "models" / "model-one" / "model.json").unlink()
    with pytest.raises(UserError, match="model.json is missing"):
        check_results_folder(target)
    (target / MANIFEST_NAME).unlink()
    with pytest.raises(UserError, match="does not hold a complete set of TextLab results"):
        check_results_folder(target)
