"""Files written safely: to a temporary file next to the target, then renamed over it; the rename
made durable; and the SHA-256 that tells whether a file is still the one that was written."""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from pathlib import Path

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask, read now (a test or the user may change it while TextLab runs).

    Linux shows it in /proc/self/status, which changes nothing; elsewhere it is set and put back
    under a lock (``os.umask`` has no read-only form), so two of our threads never race on it."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o077)
        os.umask(mask)
    return mask


# tempfile.mkstemp makes files only their owner may read (0600) and mkdtemp such folders (0700); a
# file the user keeps should get the permissions any new file of theirs gets (their umask), so
# colleagues on a shared drive can open it too.
def usual_permissions(fd: int) -> None:
    """Give a file made by ``tempfile.mkstemp`` the permissions of an ordinary new file."""
    if hasattr(os, "fchmod"):
        os.fchmod(fd, 0o666 & ~current_umask())


def usual_folder_permissions(folder: str | Path) -> None:
    """Give a folder made by ``tempfile.mkdtemp`` the permissions of an ordinary new folder."""
    if os.name == "posix":
        os.chmod(folder, 0o777 & ~current_umask())


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
