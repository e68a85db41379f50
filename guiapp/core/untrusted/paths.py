"""Paths taken from a project file or a results folder, kept inside their folder.

Every path such a file names — a member of a project, a model folder, a file listed in a results
manifest, a model's recorded folder — goes through :func:`inside` (or :func:`path_problem`) before
anything is created or read there: no absolute paths or drives, no ``..``, no link that leads out,
and no name longer than file systems allow (refused in words instead of an OS error).
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath, PureWindowsPath

from guiapp.core.errors import UserError

NAME_MAX_BYTES = 255  # one file or folder name (ext4, APFS; NTFS counts 255 UTF-16 units)
RELATIVE_MAX_CHARS = 1024  # a path inside the folder, leaving room for where the folder itself is
_NOT_IN_NAMES = set('<>:"|?*') | {chr(code) for code in range(32)}
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{n}" for n in range(10)), *(f"LPT{n}" for n in range(10))}


class UnsafePath(UserError):
    """A path from a file that would leave its folder or that no file system can hold."""

    def __init__(self, what: str, relative: object, reason: str) -> None:
        shown = repr(relative) if len(repr(relative)) <= 90 else repr(relative)[:80] + "…"
        self.reason = f"{what} {shown} {reason}"
        super().__init__(
            f"TextLab did not use {what} {shown}: it {reason}.",
            "The file may be damaged or was not written by TextLab; TextLab reads and writes only inside "
            "the folder it opened. Open an earlier copy, or run the study again.",
        )


def path_problem(relative: object) -> str | None:
    """Why ``relative`` (parts joined by ``/``) cannot name a place inside its folder, or None."""
    if not isinstance(relative, str) or not relative:
        return "is not a path inside its folder"
    if relative.startswith(("/", "\\")) or PureWindowsPath(relative).drive or PurePosixPath(relative).is_absolute():
        return "is an absolute path, outside its folder"
    if "\\" in relative:
        return "uses backslashes, which could lead outside its folder on Windows"
    parts = relative.split("/")
    if ".." in parts:
        return "climbs out of its folder (“..”)"
    if any(part in ("", ".") for part in parts):
        return "has an empty part"
    if len(relative) > RELATIVE_MAX_CHARS:
        return (f"is {len(relative):,} characters long, longer than file systems allow "
                f"({RELATIVE_MAX_CHARS:,} characters)")
    for part in parts:
        size = len(part.encode("utf-8", "surrogatepass"))
        if size > NAME_MAX_BYTES:
            return f"has a name of {_name_size(part, size)}, longer than file systems allow ({NAME_MAX_BYTES} bytes)"
        if _NOT_IN_NAMES & set(part):
            return "has a character that file names cannot hold on every system"
        if part.split(".")[0].upper() in _RESERVED:
            return "has a name that Windows reserves for devices"
    return None


def _name_size(name: str, size: int) -> str:
    """A name's length as file systems count it: "265 bytes", and its characters too where letters
    beyond plain English take several bytes each ("400 bytes (200 characters …)")."""
    if size == len(name):
        return f"{size:,} bytes"
    return (f"{size:,} bytes ({len(name):,} characters; letters beyond plain English take 2 to 4 bytes each "
            "in a file name)")


def inside(root: str | Path, relative: object, what: str = "the path") -> Path:
    """``root`` joined with ``relative`` once it is sure to stay inside ``root`` — also through links
    that already exist there; else :class:`UnsafePath`. Nothing is created."""
    problem = path_problem(relative)
    if problem:
        raise UnsafePath(what, relative, problem)
    root = Path(root)
    path = root.joinpath(*str(relative).split("/"))
    try:
        leads_out = not path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a loop of links, or a part that cannot be followed
        leads_out = True
    if leads_out:
        raise UnsafePath(what, relative, "leads outside its folder through a link")
    return path


def too_long_for_file_systems(path: str) -> bool:
    """Whether a path recorded elsewhere (absolute or not) has a part, or a length, that no file
    system here can hold: asking the system about it would fail with an error, not say "absent"."""
    parts = str(path).replace("\\", "/").split("/")
    return len(str(path)) > 4096 or "\x00" in str(path) or any(
        len(part.encode("utf-8", "surrogatepass")) > NAME_MAX_BYTES for part in parts)


def single_name(name: object, what: str = "the folder name") -> str:
    """``name`` when it is one plain file or folder name (no ``/``), else :class:`UnsafePath`."""
    problem = path_problem(name)
    if problem is None and "/" in str(name):
        problem = "is a path, not one folder's name"
    if problem:
        raise UnsafePath(what, name, problem)
    return str(name)


def short_name(name: str, max_bytes: int = 100) -> str:
    """``name`` when it fits in ``max_bytes`` (UTF-8), else its beginning and a short fingerprint of
    the whole name, so that two long names that begin alike still get different, readable names."""
    encoded = name.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return name
    fingerprint = hashlib.sha256(encoded).hexdigest()[:8]
    beginning = encoded[: max_bytes - len(fingerprint) - 1].decode("utf-8", "ignore").rstrip("-._ ")
    return f"{beginning}-{fingerprint}" if beginning else fingerprint
