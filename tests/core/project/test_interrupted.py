"""A save or an autosave killed half-way (SIGKILL) loses nothing: the previous file still opens,
and a session that died is offered for recovery; a session that ended cleanly is not."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pandas as pd
import pytest

from guiapp.core.project import autosave as autosave_module
from guiapp.core.project.autosave import autosave, discard, finish_session, recoverable
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from tests.core.project.helpers import plain_project

ROOT = Path(__file__).resolve().parents[3]

# The child builds a big project and saves it; once the table is half-way into the temporary
# file it says so and waits, and the test kills it there.
CHILD = textwrap.dedent("""
    import sys, time
    from guiapp.core.events import Progress
    from guiapp.core.project.autosave import autosave
    from guiapp.core.project.saving import save_project
    from tests.core.project.helpers import plain_project

    def stall(event):
        if isinstance(event, Progress) and event.done and "table" in event.message:
            print("SAVING", flush=True)
            time.sleep(60)

    how, target = sys.argv[1], sys.argv[2]
    big = plain_project(300_000, "New study")
    if how == "save":
        save_project(target, big, on_event=stall)
    else:
        autosave(plain_project(20, "Old study"), target, project_path="/somewhere/bills.textlab")
        autosave(big, target, on_event=stall)
""")


def kill_mid_save(how: str, target: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD, how, str(target)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(90, child.kill)  # a child that never reaches the save cannot hang the test
    watchdog.daemon = True
    watchdog.start()
    try:
        line = child.stdout.readline()
        assert line.strip() == "SAVING", child.stderr.read() if child.poll() is not None else line
        temporaries = list(target.parent.glob(".*.tmp")) if how == "save" else list(target.glob(".*.tmp"))
        assert temporaries and temporaries[0].stat().st_size > 0  # killed in the middle of writing
        child.kill()
    finally:
        watchdog.cancel()
        child.kill()
        child.wait(timeout=30)
        child.stdout.close()
        child.stderr.close()


def test_killed_save_leaves_the_old_project(tmp_path):
    path = tmp_path / "study.textlab"
    save_project(path, plain_project(20, "Old study"))
    before = path.read_bytes()
    kill_mid_save("save", path)
    assert path.read_bytes() == before
    again = open_project(path, extract_models_to=tmp_path / "models")
    assert again.spec.name == "Old study"
    pd.testing.assert_frame_equal(again.table, plain_project(20).table)
    assert [p.name for p in tmp_path.glob("*.textlab")] == ["study.textlab"]  # the leftover is no project
    save_project(path, plain_project(10, "Next"))  # the next save clears the dead save's leftover
    assert sorted(p.name for p in tmp_path.iterdir()) == ["study.textlab"]


def test_killed_autosave_leaves_the_previous_autosave_to_recover(tmp_path):
    folder = tmp_path / "autosave"
    kill_mid_save("autosave", folder)
    items = recoverable(folder)
    assert len(items) == 1
    item = items[0]
    assert item.study_name == "Old study" and item.n_models == 0
    assert item.project_path == Path("/somewhere/bills.textlab")
    assert "Old study" in item.describe()
    recovered = open_project(item.path, extract_models_to=tmp_path / "models")
    pd.testing.assert_frame_equal(recovered.table, plain_project(20).table)
    discard(item)
    assert recoverable(folder) == []
    assert not list(folder.glob("*.textlab")) and not list(folder.glob("*.session.json"))


def test_a_running_or_cleanly_ended_session_is_not_offered(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(autosave_module, "_session_id", "")
    path = autosave(plain_project(10, "Mine"))
    assert path.parent == tmp_path / "autosave" and path.is_file()
    assert recoverable() == []  # this process still runs
    finish_session()
    assert list((tmp_path / "autosave").iterdir()) == []


def test_recovery_lists_newest_first_and_forgets_sessions_without_an_autosave(tmp_path):
    folder = tmp_path / "autosave"
    code = textwrap.dedent("""
        import sys
        from guiapp.core.project import autosave
        from tests.core.project.helpers import plain_project
        for name in ("First", "Second"):
            autosave._session_id = ""  # a new session, as if TextLab had been started again
            autosave.autosave(plain_project(10, name), sys.argv[1])
    """)
    subprocess.run([sys.executable, "-c", code, str(folder)], cwd=ROOT, check=True, timeout=120)
    orphan = folder / "19990101-000000-999999-dead00.session.json"
    orphan.write_text('{"pid": 999999999}', encoding="utf-8")
    assert [item.study_name for item in recoverable(folder)] == ["Second", "First"]
    assert not orphan.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process ids")
def test_process_checks():
    from guiapp.core.compute.processes import (
        process_running,
        process_start_mark,
        same_process_running,
    )

    assert process_running(os.getpid()) and not process_running(999_999_999)
    assert same_process_running(os.getpid(), process_start_mark(os.getpid()))
    assert not same_process_running(os.getpid(), "not-my-start")
