"""Whether a process (by id) is still running — to tell a crashed session, or the stale lock of a
results folder, from a live one."""

from __future__ import annotations

import os
import sys


def process_running(pid: int) -> bool:
    """True if a process with this id exists (it may belong to another user)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":
        return _windows_process_running(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return not _zombie(pid)


def process_start_mark(pid: int) -> str:
    """Something that tells this process from a later one with the same id (Linux: its start
    time in clock ticks since boot); empty where the platform gives none cheaply."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return fields[19]
    except (OSError, IndexError):
        return ""


def same_process_running(pid: int, start_mark: str) -> bool:
    """True if process ``pid`` runs and is the one that recorded ``start_mark``."""
    if not process_running(pid):
        return False
    return not start_mark or not (now := process_start_mark(pid)) or now == start_mark


def _zombie(pid: int) -> bool:
    """A killed child not yet reaped by its parent still has an id but no longer runs."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _windows_process_running(pid: int) -> bool:
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return ctypes.GetLastError() == 5  # access denied: it exists
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)
