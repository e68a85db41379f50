"""Atomic file writes: write to a temporary file next to the target, then rename over it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# tempfile.mkstemp makes files only their owner may read (0600); a file the user keeps should get
# the permissions any new file of theirs gets (their umask), so colleagues can open it too.
_UMASK = os.umask(0)
os.umask(_UMASK)


def usual_permissions(fd: int) -> None:
    """Give a file made by ``tempfile.mkstemp`` the permissions of an ordinary new file."""
    if hasattr(os, "fchmod"):
        os.fchmod(fd, 0o666 & ~_UMASK)


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    write_bytes_atomic(path, text.encode(encoding))


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see either the old or the new file, never half."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        usual_permissions(fd)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
