"""Save dialogs that propose a fitting name, remember where the user saves, and keep the data safe.

Every "Save …" and "Export …" dialog of the window goes through :func:`ask_save_path`:

- it opens in the folder the user last saved anything to (remembered across sessions in
  ``QSettings``), at first beside the data file, else in the Documents folder;
- it proposes a name made of the data's name and what is saved — “debates – TextLab results.xlsx”
  (:func:`proposed_name`), never the data file's own name;
- a name without an ending gets the one of the chosen file type;
- a name that is one of the user's data files is refused in words, and the dialog opens again:
  TextLab never writes over the texts it was given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from guiapp.core.errors import UserError
from guiapp.core.export.target import check_target

EXPORT_FOLDER_KEY = "last_export_folder"  # QSettings key: the folder of the last file saved
DATA_FOLDER_KEY = "last_folder"  # QSettings key the window keeps: where a data file was last opened
DASH = " – "
MAX_NAME = 120  # characters of the proposed name before its ending
_NOT_IN_NAMES = re.compile(r'[<>:"/\\|?*\x00-\x1f]+')  # what Windows, macOS or Linux refuse in a file name
_PATTERN = re.compile(r"\*(\.[^\s;)]+)")


def data_name(data_file: str | Path | None) -> str:
    """“debates” for “/data/debates.2016.xlsx” (the name up to its first dot), "" without a file."""
    if not data_file:
        return ""
    name = Path(str(data_file)).name
    return name.split(".")[0].strip() or name


def safe_file_name(name: str) -> str:
    """``name`` with the characters file systems refuse replaced by “-”, at most ``MAX_NAME`` long."""
    cleaned = _NOT_IN_NAMES.sub("-", name).strip().rstrip(".")
    return cleaned[:MAX_NAME].rstrip() or "TextLab"


def proposed_name(data_file: str | Path | None, what: str, ending: str) -> str:
    """The name a save dialog proposes: “debates – TextLab results.xlsx”; ``what`` alone
    (“TextLab results.xlsx”) when there is no data file."""
    stem = data_name(data_file)
    return safe_file_name(f"{stem}{DASH}{what}" if stem else what) + ending


def export_folder(near: str | Path | None = None) -> Path:
    """Where a save dialog opens: the folder of the last file saved, else the folder of ``near``
    (the data file), else where a data file was last opened, else Documents, else home."""
    settings = QSettings()
    candidates = [settings.value(EXPORT_FOLDER_KEY, "", type=str)]
    if near:
        candidates.append(str(Path(str(near)).parent))
    candidates.append(settings.value(DATA_FOLDER_KEY, "", type=str))
    candidates.append(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation))
    for folder in candidates:
        if folder and Path(folder).is_dir():
            return Path(folder)
    return Path.home()


def remember_export_folder(folder: str | Path) -> None:
    QSettings().setValue(EXPORT_FOLDER_KEY, str(folder))


def endings(filters: str) -> list[list[str]]:
    """Per file type of a Qt filter string, its endings: “Excel (*.xlsx);;CSV (*.csv)” → [[.xlsx], [.csv]]."""
    return [[match.lower() for match in _PATTERN.findall(part)] for part in filters.split(";;")]


def with_ending(path: Path, filters: str, chosen: str) -> Path:
    """``path`` as typed when it ends as one of the file types does, else with the chosen type's ending."""
    kinds = endings(filters)
    known = {ending for kind in kinds for ending in kind}
    if not known or any(path.name.lower().endswith(ending) for ending in known):
        return path
    parts = filters.split(";;")
    kind = kinds[parts.index(chosen)] if chosen in parts else next((k for k in kinds if k), [])
    return path.with_name(path.name + kind[0]) if kind else path


def refusal(path: Path, protected: Iterable[str | Path]) -> str:
    """Why ``path`` must not be written, in words ("" when it may)."""
    try:
        check_target(path, overwrite=True, protected=[p for p in protected if p])
    except UserError as error:
        return f"{error.message}\n\n{error.hint}".strip()
    return ""


def ask_save_path(
    parent: QWidget | None,
    title: str,
    name: str,
    filters: str,
    *,
    protected: Iterable[str | Path] = (),
    folder: str | Path | None = None,
) -> tuple[Path | None, str]:
    """Ask where to save; returns (the path with its ending, the chosen filter), or (None, "") when
    the user cancels. ``name`` is the proposed file name, ``folder`` where to open (default:
    :func:`export_folder` near the first of ``protected``); ``protected`` are the user's data files,
    never to be written over."""
    protected = [p for p in protected if p]
    start = Path(folder) if folder else export_folder(protected[0] if protected else None)
    proposal = start / name
    while True:
        path, chosen = QFileDialog.getSaveFileName(parent, title, str(proposal), filters)
        if not path:
            return None, ""
        target = with_ending(Path(path), filters, chosen)
        problem = refusal(target, protected)
        if not problem:
            break
        QMessageBox.warning(parent, title, problem)
        proposal = target.parent / name
    remember_export_folder(target.parent)
    return target, chosen
