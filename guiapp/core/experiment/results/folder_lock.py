"""The lock of a results folder: a second run into the same ``--out`` is refused, naming the first.

The lock is a file beside the folder (``.DIR.textlab-lock``), created with ``O_EXCL`` and holding
the pid, host name, process start time and start date of the run that writes DIR. It is stale,
and taken over, when that process is gone from this computer or its pid now belongs to another
process (Linux: a different start time in ``/proc``); a lock written from another computer (a
shared drive) is never taken over, and the message says which file to delete if that run is gone.
"""

from __future__ import annotations

import json
import os
import socket
import time
from datetime import UTC, datetime
from pathlib import Path

from guiapp.core.compute.processes import process_start_mark, same_process_running
from guiapp.core.errors import UserError

EMPTY_LOCK_STALE_SECONDS = 60  # a lock file without content: a run crashed while writing it


def take_lock(path: Path, target: Path) -> None:
    """Create the lock file ``path`` for writing ``target``, or say which run holds it (UserError);
    an OSError means the folder cannot be written."""
    mine = {"pid": os.getpid(), "host": socket.gethostname(), "process_start": process_start_mark(os.getpid()) or None,
            "started_at": datetime.now(UTC).isoformat(timespec="seconds"), "target": str(target)}
    for _ in range(5):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            seen = _read(path)
            holder = _parse(seen)
            if not _is_stale(holder, path):
                raise _locked_error(holder, path, target) from None
            _break_stale(path, seen)
            continue
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(mine, handle)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return
    raise UserError(f"TextLab could not take the lock {path}.", "Try again in a moment.")


def _locked_error(holder: dict | None, path: Path, target: Path) -> UserError:
    who = ("process {pid} on {host}, started {started_at}".format(**holder)
           if holder and {"pid", "host", "started_at"} <= holder.keys() else "a run that is just starting")
    return UserError(f"Another TextLab run is writing its results to {target} ({who}).",
                     "Wait until it has finished, or give this run another `--out` folder. If that run is "
                     f"no longer running (its computer was switched off, for instance), delete {path}.")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _parse(raw: bytes | None) -> dict | None:
    try:
        holder = json.loads(raw or b"")
    except ValueError:
        return None
    return holder if isinstance(holder, dict) else None


def _is_stale(holder: dict | None, path: Path) -> bool:
    """A lock is stale when its process is gone from this computer (or the pid now belongs to
    another process); a lock from another computer is never taken over."""
    if holder is None:  # being written this instant, or its writer crashed half-way
        try:
            return time.time() - path.stat().st_mtime > EMPTY_LOCK_STALE_SECONDS
        except FileNotFoundError:
            return True
    if holder.get("host") != socket.gethostname():
        return False
    pid = holder.get("pid")
    return not isinstance(pid, int) or not same_process_running(pid, holder.get("process_start") or "")


def _break_stale(path: Path, seen: bytes | None) -> None:
    """Remove a stale lock, unless another run replaced it in the meantime."""
    aside = path.with_name(f"{path.name}.stale-{os.getpid()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return
    if _read(aside) != seen:  # a fresh lock of another run: put it back
        try:
            os.link(aside, path)
        except OSError:
            pass
    aside.unlink(missing_ok=True)
