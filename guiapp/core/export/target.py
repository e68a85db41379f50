"""Where an export goes: refuse to overwrite (unless asked) or to touch the user's own files;
write to a temporary file in the same folder and rename it into place only when complete.

Like :func:`guiapp.core.atomic.write_bytes_atomic`, but for writers that stream into a file
(XlsxWriter, pyarrow, chunked CSV) and may be cancelled half-way: the temporary file is removed
on any error or :class:`~guiapp.core.events.Cancelled`, so no half-written file is left behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from guiapp.core.atomic import usual_permissions
from guiapp.core.errors import UserError


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def study_data_files(spec: dict | None) -> list[str]:
    """The data files a study's spec (``result.spec``) reads: exports never write over them."""
    data = (spec or {}).get("data", {}) if isinstance(spec, dict) else {}
    return [str(data[key]) for key in ("source", "test_source") if isinstance(data, dict) and data.get(key)]


def check_target(path: str | Path, overwrite: bool = False, protected: Iterable[str | Path] = ()) -> Path:
    """The target as a ``Path``; a :class:`UserError` if it must not be written."""
    target = Path(path).expanduser()
    for keep in protected:
        if keep and _same_file(target, Path(keep).expanduser()):
            raise UserError(
                f"{target.name} is the file your texts come from; TextLab never changes it.",
                "Choose another file name for the export.",
            )
    if target.is_dir():
        raise UserError(f"{target} is a folder, not a file.", "Choose a file name for the export.")
    if target.exists() and not overwrite:
        raise UserError(
            f"{target.name} already exists in {target.parent}.",
            "Choose another name, or confirm that it may be replaced.",
        )
    return target


@contextmanager
def writing_to(
    path: str | Path, overwrite: bool = False, protected: Iterable[str | Path] = ()
) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it into place when the block ends cleanly."""
    target = check_target(path, overwrite, protected)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as error:
        raise UserError(
            f"TextLab cannot write into {target.parent}.",
            "Choose a folder where you may save files.",
            str(error),
        ) from error
    usual_permissions(fd)
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        with open(temporary, "rb+") as handle:
            os.fsync(handle.fileno())
        if target.exists() and not overwrite:  # appeared while we wrote
            check_target(target, overwrite)
        try:
            os.replace(temporary, target)
        except PermissionError as error:
            raise UserError(
                f"TextLab cannot replace {target.name}: another program may have it open.",
                "Close the file (for example in Excel) and export again.",
                str(error),
            ) from error
    finally:
        temporary.unlink(missing_ok=True)
