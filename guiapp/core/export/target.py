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
from typing import TYPE_CHECKING

from guiapp.core.atomic import usual_permissions
from guiapp.core.errors import UserError

if TYPE_CHECKING:
    from guiapp.core.experiment.results.experiment_result import ExperimentResult


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def study_data_files(result: ExperimentResult | None) -> list[str]:
    """The data files a study read (its table and test file): exports never write over them."""
    return result.study_source.data_files if result is not None else []


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
