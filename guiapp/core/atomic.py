"""Files written safely: to a temporary file next to the target, then renamed over it; the rename
made durable; and the SHA-256 that tells whether a file is still the one that was written."""

from __future__ import annotations

import hashlib
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


def fsync_folder(folder: str | Path) -> None:
    """Make a rename into ``folder`` durable (POSIX); Windows has no folder handles to flush."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sha256_of_file(path: str | Path, chunk: int = 1 << 20) -> str:
    """The SHA-256 of a file's bytes, read in chunks (hashlib releases the GIL on large ones)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()
