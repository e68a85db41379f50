"""The replication package's shared format: its manifest, the fingerprint of a table, and the checks
that a package (a folder, or the same folder zipped) is whole and unchanged.

A package holds ``manifest.json`` with the SHA-256 and size of every other file; a reviewer's
TextLab reads it as an untrusted file (bounded in size and depth, every path kept inside the
package) and compares it with the files it finds. A zip is unpacked to a temporary folder first,
refusing absolute paths, ``..``, links, pickles and zip bombs, as when a project is opened.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import re
import shutil
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guiapp.core.errors import UserError
from guiapp.core.tables.cell_values import cell_text
from guiapp.core.untrusted.bounded import TooLarge, describe_size
from guiapp.core.untrusted.json_reading import UnreadableJson, read_json_file
from guiapp.core.untrusted.paths import UnsafePath, inside, path_problem

if TYPE_CHECKING:
    import pandas as pd

MANIFEST = "manifest.json"
FORMAT_NAME = "textlab-replication"
FORMAT_VERSION = 1
README = "README.md"

MANIFEST_LIMIT = 64 << 20  # a manifest lists files; even thousands of them take far less
FILE_LIMIT = 8 << 30  # one file of a package (a large Transformer's weights are 1–3 GB)
TOTAL_LIMIT = 64 << 30  # a whole package, unpacked
MAX_FILES = 100_000
MAX_INFLATION = 100  # deflate shrinks real files far less than this; more is a "zip bomb"
INFLATION_FREE = 16 << 20
_PICKLE_ENDINGS = frozenset({".pkl", ".pickle", ".joblib", ".pt", ".pth", ".bin", ".npy", ".npz", ".dill"})
_CHUNK = 1 << 20
# files a file manager adds to any folder it shows (macOS, Windows): never part of a package, never opened
SYSTEM_CLUTTER = frozenset({".DS_Store", "Thumbs.db", "desktop.ini", "Icon\r"})
_WHOLE_NUMBER_TEXT = re.compile(r"([+-]?\d+)\.0+")
_unpacked: list[Path] = []


def sha256_file(path: str | Path) -> str:
    """The SHA-256 of the file at ``path``, read in blocks (a model's weights may be gigabytes)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def data_fingerprint(frame: pd.DataFrame) -> str:
    """The SHA-256 of a table's content — its column names, in order, and every cell as the text a
    researcher sees in the spreadsheet (whole numbers without ``.0``, dates as ISO dates, missing
    cells as missing) — whatever file it was read from: the same table read from CSV (where every
    cell is text), Excel or Parquet gives the same fingerprint, one changed cell another. The row
    labels (index) are not part of it; the kinds of the columns are described beside it instead."""
    digest = hashlib.sha256()
    digest.update(f"textlab-table-1\n{len(frame)} rows\n".encode())
    for position, name in enumerate(frame.columns):
        digest.update(json.dumps(["column", str(name)], ensure_ascii=False).encode() + b"\n")
        values = [_plain_text(value) for value in frame.iloc[:, position].tolist()]
        for start in range(0, len(values), 10_000):
            digest.update(json.dumps(values[start:start + 10_000], ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


def _plain_text(value: Any) -> str | None:
    """A cell as text, the same from every reader: "2019" read as text from a CSV file and 2019
    read as a number from a workbook are both "2019"; "3.0" and 3.0 both "3"."""
    text = cell_text(value)
    if isinstance(value, str):
        whole = _WHOLE_NUMBER_TEXT.fullmatch(value)
        if whole:
            return str(int(whole.group(1)))
    return text


def column_kind(column: pd.Series) -> str:
    """The kind of a column in words that do not depend on the file format: "text", "whole numbers",
    "numbers", "true/false", "dates" or "other"."""
    import pandas as pd

    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "true/false"
    if pd.api.types.is_integer_dtype(dtype):
        return "whole numbers"
    if pd.api.types.is_float_dtype(dtype):
        return "numbers"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "dates"
    if pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        return "text"
    return "other"


def column_description(frame: pd.DataFrame, roles: dict[str, str] | None = None) -> list[dict[str, str]]:
    """``[{"name", "dtype", "role"}]`` for every column: what the manifest says about a table
    (``roles`` names the columns the study uses: "text", "label", "group", "id"; others "unused")."""
    roles = roles or {}
    return [{"name": str(name), "dtype": column_kind(frame.iloc[:, position]), "role": roles.get(str(name), "unused")}
            for position, name in enumerate(frame.columns)]


def _not_a_package(reason: str, details: str = "") -> UserError:
    return UserError(
        f"This is not a replication package TextLab can read: {reason}.",
        "Choose the folder (or .zip) that TextLab wrote with “Replication package…” or `textlab package`; "
        "if it is one, ask its author for a fresh copy — this one may be damaged.",
        details=details,
    )


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The package's ``manifest.json``, read as an untrusted file and checked: the format, a version
    this TextLab reads, and a list of files whose paths stay inside the package; else UserError."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise _not_a_package(f"there is no {MANIFEST} in {folder}")
    try:
        manifest = read_json_file(path, max_bytes=MANIFEST_LIMIT)
    except UnreadableJson as error:
        raise _not_a_package(f"its {MANIFEST} cannot be read ({error})") from None
    except OSError as error:
        raise UserError(f"The file {path} cannot be read: {error.strerror or error}.",
                        "Check that the drive is connected and that you may read the folder.",
                        details=repr(error)) from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise _not_a_package(f"its {MANIFEST} does not describe a TextLab replication package")
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _not_a_package(f"its format version ({version!r}) is not one TextLab writes")
    if version > FORMAT_VERSION:
        raise UserError(
            f"This package was written by a newer TextLab ({manifest.get('textlab_version') or 'a newer version'}, "
            f"package format {version}); this TextLab reads package formats up to {FORMAT_VERSION}.",
            "Update TextLab (the README names the version used), then run the command again.")
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise _not_a_package(f"its {MANIFEST} has no list of files")
    if len(files) > MAX_FILES:
        raise _not_a_package(f"its {MANIFEST} lists {len(files):,} files, more than a package ever holds")
    for relative, entry in files.items():
        problem = path_problem(relative)
        if problem:
            raise _not_a_package(f"its {MANIFEST} names the file {relative[:80]!r}, which {problem}")
        if relative == MANIFEST:
            raise _not_a_package(f"its {MANIFEST} lists itself")
        if (not isinstance(entry, dict) or not _is_sha256(entry.get("sha256"))
                or not isinstance(entry.get("size"), int) or isinstance(entry.get("size"), bool)
                or entry["size"] < 0):
            raise _not_a_package(f"its {MANIFEST} has no SHA-256 and size for {relative[:80]!r}")
    for key in ("data", "models", "results"):
        if key in manifest and not isinstance(manifest[key], dict):
            raise _not_a_package(f"the part “{key}” of its {MANIFEST} cannot be read")
    return manifest


def _is_sha256(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def check_files(folder: str | Path, manifest: dict[str, Any]) -> list[str]:
    """The problems with the package's files, in words (empty when every file is there unchanged):
    a file the manifest lists that is missing, one whose size or SHA-256 differs (changed after the
    package was written), a file that is there but not listed, and a path that leads outside."""
    root = Path(folder)
    problems: list[str] = []
    listed = manifest.get("files") or {}
    for relative in sorted(listed):
        entry = listed[relative]
        try:
            path = inside(root, relative, "the file")
        except UnsafePath as error:
            problems.append(f"{relative}: {error.reason}.")
            continue
        if not path.is_file():
            problems.append(f"{relative} is missing.")
            continue
        size = path.stat().st_size
        if size != entry.get("size"):
            problems.append(f"{relative} was changed: it has {describe_size(size)}, the package recorded "
                            f"{describe_size(int(entry.get('size', 0)))}.")
        elif sha256_file(path) != entry.get("sha256"):
            problems.append(f"{relative} was changed: its SHA-256 is not the one the package recorded.")
    for path in sorted(root.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            continue
        relative = path.relative_to(root).as_posix()
        if relative == MANIFEST or relative in listed or path.name in SYSTEM_CLUTTER:
            continue
        if path.is_symlink():
            problems.append(f"{relative} is a link, which a package never holds.")
        else:
            problems.append(f"{relative} is not listed in the manifest (it was added after the package was written).")
    return problems


def package_root(path: str | Path, *, unpack_to: str | Path | None = None) -> Path:
    """The folder of the package at ``path``: the folder itself, or a zip unpacked safely into
    ``unpack_to`` (a new temporary folder, removed when TextLab ends, when None) — its one top
    folder when it holds one. UserError when it is neither or the zip is unsafe."""
    path = Path(path)
    if path.is_dir():
        return path
    if not path.is_file():
        raise UserError(f"There is no replication package at {path}.",
                        "Give the folder or the .zip file that holds the package's manifest.json.")
    if not zipfile.is_zipfile(path):
        raise _not_a_package(f"{path.name} is neither a folder nor a zip archive")
    if unpack_to is None:
        target = Path(tempfile.mkdtemp(prefix="textlab-package-"))
        _unpacked.append(target)
    else:
        target = Path(unpack_to)
        target.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(path) as archive:
            _unpack(archive, target)
    except zipfile.BadZipFile as error:
        raise _not_a_package(f"{path.name} is not a complete zip archive", repr(error)) from error
    except (zlib.error, zipfile.LargeZipFile, EOFError, NotImplementedError, RuntimeError) as error:
        raise _not_a_package(f"part of {path.name} cannot be read", repr(error)) from error
    except OSError as error:
        raise UserError(f"The package {path.name} could not be unpacked into {target}: {error.strerror or error}.",
                        "Check that the drive has free space and that TextLab may write there.",
                        details=repr(error)) from error
    entries = [entry for entry in target.iterdir()]
    if not (target / MANIFEST).is_file() and len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return target


def _unpack(archive: zipfile.ZipFile, target: Path) -> None:
    """Every member checked before anything is written: a safe name, no pickle, no link, no more
    than its share of the limits; then the bytes are counted as they inflate."""
    infos = archive.infolist()
    if len(infos) > MAX_FILES:
        raise _not_a_package(f"it holds {len(infos):,} files, more than a package ever holds")
    total, seen = 0, set()
    for info in infos:
        name = info.filename[:-1] if info.filename.endswith("/") else info.filename
        problem = path_problem(name)
        if problem:
            raise _not_a_package(f"it holds a file with an unsafe name ({name[:80]!r}), which {problem}")
        if name in seen:
            raise _not_a_package(f"it holds {name[:80]!r} twice")
        seen.add(name)
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            raise _not_a_package(f"it holds a link ({name[:80]!r}), which a package never holds")
        if info.is_dir():
            continue
        if Path(name).suffix.lower() in _PICKLE_ENDINGS:
            raise _not_a_package(f"it holds a file that could run code when opened ({name[:80]!r}); "
                                 "TextLab never opens those")
        if info.file_size > FILE_LIMIT:
            raise _not_a_package(f"{name[:80]} would unpack to {describe_size(info.file_size)}, more than such a "
                                 "file ever needs")
        if (info.compress_type != zipfile.ZIP_STORED
                and info.file_size > max(INFLATION_FREE, MAX_INFLATION * info.compress_size)):
            raise _not_a_package(f"{name[:80]} would inflate from {describe_size(info.compress_size)} to "
                                 f"{describe_size(info.file_size)}, far more than real files shrink (a “zip bomb”)")
        total += info.file_size
    if total > TOTAL_LIMIT:
        raise _not_a_package(f"it would unpack to {describe_size(total)}, more than a package ever needs")
    for info in infos:
        name = info.filename.rstrip("/")
        destination = inside(target, name, "the file")
        if info.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        with archive.open(info) as stream, open(destination, "xb") as sink:
            while block := stream.read(_CHUNK):
                written += len(block)
                if written > info.file_size:
                    raise _not_a_package(f"{name[:80]} is larger than its zip entry says",
                                         repr(TooLarge(name, info.file_size)))
                sink.write(block)


@atexit.register
def _remove_unpacked() -> None:
    for folder in _unpacked:
        shutil.rmtree(folder, ignore_errors=True)
