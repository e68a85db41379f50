"""Autosave and recovery: the work of a session that crashed or was killed is offered back.

Each running TextLab (a *session*) keeps two files in the autosave folder
(``locations.data_dir() / "autosave"`` by default):

- ``<session>.session.json`` — the marker: the process id, its start mark, and the project's own
  path if it has one. It exists while the session runs;
- ``<session>.textlab`` — the latest autosave, in the project format, written atomically (a save
  that is killed leaves the previous autosave).

:func:`finish_session` removes both on a clean exit. A marker left behind by a process that no
longer runs means the session ended without finishing: :func:`recoverable` lists its autosave.
"""

from __future__ import annotations

import json
import os
import uuid
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from guiapp.core import locations
from guiapp.core.atomic import write_text_atomic
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.project import format as fmt
from guiapp.core.project.opening import read_header
from guiapp.core.compute.processes import process_start_mark, same_process_running
from guiapp.core.project.saving import save_project
from guiapp.core.untrusted.json_reading import read_json_file

MARKER_SUFFIX = ".session.json"
_session_id = ""


@dataclass(frozen=True)
class RecoveryItem:
    """The autosave of a session that did not finish: when it was saved and what it holds."""

    path: Path  # the autosaved project: open it with open_project
    marker: Path
    saved_at: datetime
    study_name: str
    n_models: int
    project_path: Path | None  # the project file the session was working on, if it had one
    pid: int

    def describe(self) -> str:
        what = f"“{self.study_name}”" if self.study_name else "an unnamed study"
        models = f"{self.n_models} model{'s' if self.n_models != 1 else ''}"
        return f"{what} with {models}, autosaved {self.saved_at.astimezone():%Y-%m-%d %H:%M}"


def autosave_folder() -> Path:
    return locations.data_dir() / "autosave"


def session_id() -> str:
    """This process's session name, made on first use."""
    global _session_id
    if not _session_id:
        started = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        _session_id = f"{started}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    return _session_id


def autosave(project: fmt.Project, folder: str | Path | None = None, *, project_path: str | Path | None = None,
             on_event: EventCallback = ignore_events) -> Path:
    """Save ``project`` as this session's autosave (atomically) and mark the session as running."""
    folder = Path(folder) if folder is not None else autosave_folder()
    folder.mkdir(parents=True, exist_ok=True)
    marker = {
        "session": session_id(),
        "pid": os.getpid(),
        "start_mark": process_start_mark(os.getpid()),
        "project_path": str(Path(project_path).resolve()) if project_path else None,
        "marked_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    marker_path = folder / f"{session_id()}{MARKER_SUFFIX}"
    if not marker_path.exists():  # the session runs from its first autosave on
        write_text_atomic(marker_path, json.dumps({**marker, "project_path": None}, indent=2) + "\n")
    saved = save_project(folder / f"{session_id()}{fmt.SUFFIX}", project, on_event=on_event)
    write_text_atomic(marker_path, json.dumps(marker, indent=2) + "\n")  # now it describes this autosave
    return saved


def finish_session(folder: str | Path | None = None) -> None:
    """A clean exit: remove this session's autosave, then its marker."""
    folder = Path(folder) if folder is not None else autosave_folder()
    (folder / f"{session_id()}{fmt.SUFFIX}").unlink(missing_ok=True)
    (folder / f"{session_id()}{MARKER_SUFFIX}").unlink(missing_ok=True)


def recoverable(folder: str | Path | None = None) -> list[RecoveryItem]:
    """Autosaves of sessions that ended without finishing (crash, kill), newest first."""
    folder = Path(folder) if folder is not None else autosave_folder()
    if not folder.is_dir():
        return []
    items = []
    for marker in folder.glob(f"*{MARKER_SUFFIX}"):
        session = marker.name[: -len(MARKER_SUFFIX)]
        if session == _session_id:
            continue
        try:
            data = read_json_file(marker, max_bytes=1 << 20)
            pid = int(data["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if same_process_running(pid, str(data.get("start_mark") or "")):
            continue  # another TextLab that is still open
        path = folder / f"{session}{fmt.SUFFIX}"
        if not path.is_file():
            marker.unlink(missing_ok=True)  # it ended before its first autosave: nothing to recover
            continue
        item = _describe(path, marker, pid, data.get("project_path"))
        if item is not None:
            items.append(item)
    return sorted(items, key=lambda item: item.saved_at, reverse=True)


def discard(item: RecoveryItem) -> None:
    """Forget a recoverable autosave (the user chose not to recover it)."""
    item.path.unlink(missing_ok=True)
    item.marker.unlink(missing_ok=True)


def _describe(path: Path, marker: Path, pid: int, project_path: object) -> RecoveryItem | None:
    try:
        with zipfile.ZipFile(path, "r") as archive:
            header, _ = read_header(archive)
    except (OSError, zipfile.BadZipFile, UserError):
        return None
    try:
        saved_at = datetime.fromisoformat(str(header.get("saved_at")))
    except ValueError:
        saved_at = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    if saved_at.tzinfo is None:
        saved_at = saved_at.replace(tzinfo=UTC)
    return RecoveryItem(
        path=path,
        marker=marker,
        saved_at=saved_at,
        study_name=str(header.get("study_name", "")),
        n_models=int(header.get("n_models", 0) or 0),
        project_path=Path(project_path) if isinstance(project_path, str) and project_path else None,
        pid=pid,
    )
