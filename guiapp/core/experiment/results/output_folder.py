"""A results folder that is whole or absent (``textlab run SPEC --out DIR``).

Before the study starts, :class:`OutputFolder` takes a lock beside the target (``folder_lock.py``:
a second run into the same folder is refused with a message naming the first), which also proves
that the parent folder is writable; it checks the free space there and refuses a target that holds
files TextLab did not write. Everything is then written into ``.DIR.partial-<pid>`` beside the
target, and :meth:`OutputFolder.commit` writes the manifest last and moves the folder into place in
one step: on Linux ``renameat2(RENAME_EXCHANGE)`` swaps it with an older run's folder atomically;
elsewhere the old folder is renamed aside (``.DIR.old-<pid>``), the new one renamed in, the old one
removed. A process killed at any moment leaves DIR absent, the previous complete results, or the new
complete results, never a mix; the next run into DIR tidies what was left (and puts an aside folder
back if the kill fell between the two renames). Layout and guarantees: ``docs/results-folder.md``.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from guiapp.core.atomic import fsync_folder
from guiapp.core.errors import UserError
from guiapp.core.experiment.results.folder_lock import take_lock
from guiapp.core.experiment.results.results_manifest import MANIFEST_NAME, read_manifest

MIN_FREE_BYTES = 200 * 2**20  # results, predictions and conventional models of a large study
TRANSFORMER_BYTES = 2**30  # one fine-tuned Transformer's weights and tokenizer, rounded up
# What an older TextLab run leaves in its folder; a folder holding anything else is not replaced.
# what `textlab run` and `textlab learning-curve` write at the top of their folder
_RESULT_NAMES = {"results.json", "predictions.csv", "models", "learning-curve.json", "learning-curve.csv", MANIFEST_NAME}
_SYSTEM_FILES = {".DS_Store", "Thumbs.db", "desktop.ini"}  # what file browsers leave in a folder they showed
_SPACE_HINT = "Free some space there, or give `--out` a folder on another drive."


def space_needed(spec: Any) -> int:
    """A conservative estimate of the bytes a run of ``spec`` writes into its results folder."""
    transformers = sum(1 for model in spec.models if model.representation == "transformer")
    return MIN_FREE_BYTES + transformers * TRANSFORMER_BYTES


def free_bytes(folder: Path) -> int:
    return shutil.disk_usage(folder).free


class OutputFolder:
    """``with OutputFolder(out) as folder:`` write into ``folder.partial``, then ``folder.commit()``.

    Leaving the block without a commit (error, Cancel, Ctrl-C) removes the partial folder and leaves
    DIR as it was; the lock is released either way. Problems found before the study starts (folder
    not writable, too little space, another run, foreign files in DIR) raise :class:`UserError`."""

    def __init__(self, target: str | Path, need_bytes: int = MIN_FREE_BYTES) -> None:
        self.target = Path(os.path.realpath(target))
        self.parent = self.target.parent
        self.partial = self.parent / f".{self.target.name}.partial-{os.getpid()}"
        self.lock_file = self.parent / f".{self.target.name}.textlab-lock"
        self.need_bytes = need_bytes
        self.committed = False
        self._remove_on_exit: Path | None = None
        self._locked = False

    def __enter__(self) -> OutputFolder:
        if self.target == self.target.parent:
            raise UserError(f"TextLab cannot put the results into {self.target} itself.",
                            "Give `--out` the name of a new folder, e.g. `--out results`.")
        try:
            self.parent.mkdir(parents=True, exist_ok=True)
            take_lock(self.lock_file, self.target)
            self._locked = True
            _tidy_leftovers(self.target)
            _check_replaceable(self.target)
            free = free_bytes(self.parent)
            if free < self.need_bytes:
                raise UserError(f"There is not enough free space in {self.parent} for the results: "
                                f"{free / 2**20:,.0f} MB free, about {self.need_bytes / 2**20:,.0f} MB needed.",
                                _SPACE_HINT)
            os.mkdir(self.partial)  # the user's umask applies, as to any new folder of theirs
            self._remove_on_exit = self.partial
        except BaseException as error:
            self._release()
            if isinstance(error, OSError):
                raise cannot_write(self.parent, error) from error
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            if self._remove_on_exit is not None:
                shutil.rmtree(self._remove_on_exit, ignore_errors=True)
        finally:
            self._release()

    def commit(self) -> None:
        """Write the manifest (last) and move the finished folder into place in one step."""
        from guiapp.core.experiment.results.results_manifest import write_manifest

        write_manifest(self.partial)
        fsync_folder(self.partial)
        with _ctrl_c_deferred():
            self._remove_on_exit = swap_into_place(self.partial, self.target)
            self.committed = True
        fsync_folder(self.parent)

    def _release(self) -> None:
        if self._locked:
            self._locked = False
            self.lock_file.unlink(missing_ok=True)


def cannot_write(folder: Path, error: OSError) -> UserError:
    """The message for a results folder that cannot be written (read-only, full, no permission)."""
    full = error.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
    return UserError(f"TextLab cannot write the results into {folder}: {error.strerror or error}.",
                     _SPACE_HINT if full else "Give `--out` a folder where you may save files "
                     "(not on a read-only or write-protected drive).", details=repr(error))


# ------------------------------------------------------------------ the folder and its neighbours
def _leftovers(target: Path, kind: str) -> list[Path]:
    prefix = f".{target.name}.{kind}-"
    return [entry for entry in target.parent.iterdir()
            if entry.name.startswith(prefix) and entry.name[len(prefix):].isdigit()]


def _tidy_leftovers(target: Path) -> None:
    """Under the lock: no other run is writing, so partial folders are from killed runs; an aside
    folder is the previous complete results if a kill fell between the two renames."""
    olds = sorted(_leftovers(target, "old"), key=lambda path: path.stat().st_mtime)
    if olds and not os.path.lexists(target):
        os.rename(olds.pop(), target)
    for leftover in olds + _leftovers(target, "partial"):
        shutil.rmtree(leftover, ignore_errors=True)


def _check_replaceable(target: Path) -> None:
    if not os.path.lexists(target):
        return
    if not target.is_dir():
        raise UserError(f"{target} is a file, so the results cannot be written there.",
                        "Give `--out` the name of a new folder.")
    foreign = _foreign_files(target)
    if foreign:
        raise UserError(f"The folder {target} holds files that TextLab did not write "
                        f"({', '.join(foreign[:3])}{' …' if len(foreign) > 3 else ''}), so TextLab will not "
                        "replace it with the new results.",
                        "Move those files elsewhere, or give `--out` a new or empty folder.")


def _foreign_files(folder: Path) -> list[str]:
    """Files in an older results folder that its run did not write (a user's notes, say): all those
    its manifest does not list, or, in a folder from before the manifest, any unknown name at its top."""
    foreign = sorted(entry.name for entry in folder.iterdir()
                     if entry.name not in _RESULT_NAMES and entry.name not in _SYSTEM_FILES)
    manifest = read_manifest(folder)
    if foreign or manifest is None:
        return foreign
    listed = {*manifest.get("files", {}), MANIFEST_NAME}
    return [relative for path in sorted(folder.rglob("*")) if path.is_file() and path.name not in _SYSTEM_FILES
            and (relative := path.relative_to(folder).as_posix()) not in listed]


def swap_into_place(new: Path, target: Path) -> Path | None:
    """Put the folder ``new`` at ``target``; returns where the replaced older folder now is (to be
    removed), or None when there was none. Atomic where the system can exchange two paths, else the
    older folder is renamed aside first and put back when the second rename fails."""
    if not os.path.lexists(target):
        os.rename(new, target)
        return None
    if _exchange(new, target):
        return new
    aside = target.parent / f".{target.name}.old-{os.getpid()}"
    os.rename(target, aside)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(aside, target)
        raise
    return aside


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2`` with ``RENAME_EXCHANGE``); False where the
    system or the file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))


@contextmanager
def _ctrl_c_deferred():
    """Hold Ctrl-C back while the folder is moved into place; it takes effect right after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received and callable(previous):
            previous(signal.SIGINT, None)
