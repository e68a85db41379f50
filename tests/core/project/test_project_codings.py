"""The project keeps the codebook, every coding made in TextLab and the second file of texts to code:
saved and opened again, autosaved after each coding, recovered after a crash; a project saved
without them opens with empty ones; a damaged coding log is refused in words."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codings import CodingLog
from guiapp.core.errors import UserError
from guiapp.core.project import format as fmt
from guiapp.core.project.autosave import autosave, recoverable
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from tests.core.project.helpers import plain_project
from tests.core.project.test_safety import forge, members_of

ROOT = Path(__file__).resolve().parents[3]


def coded(log: CodingLog, n: int) -> CodingLog:
    """``n`` codings of every kind: coded, changed, skipped, flagged, from a second file."""
    for i in range(n):
        at = f"2024-05-06T09:{i // 60:02d}:{i % 60:02d}.000+00:00"
        if i % 7 == 3:
            log.record(i, None, coder="Ann", chosen_by="in order", at=at)
        elif i % 5 == 4:
            log.record(i % 4, "health", coder="Bea", chosen_by="review", file_category="a", at=at,
                       flag="unsure", comment="two topics")
        else:
            log.record(i, "abc"[i % 3], coder="Ann", chosen_by="uncertainty", probability=1 / (i + 2), at=at,
                       source="second file" if i % 11 == 10 else "table")
    return log


def codebook() -> Codebook:
    return Codebook([CodebookCategory("a", "Texts about the army", ["Send the navy"]),
                     CodebookCategory("health", "", ["Care for all", "Fund hospitals"])])


def test_codebook_codings_and_texts_to_code_come_back_as_they_were(tmp_path):
    project = plain_project(40)
    project.codebook, project.codings = codebook(), coded(CodingLog(), 30)
    project.coding_texts = pd.DataFrame({"text": ["first new text", "second"], "source": ["blog", "news"]})
    path = save_project(tmp_path / "study.textlab", project)
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
    assert {fmt.CODEBOOK_JSON, fmt.CODINGS_JSON, fmt.CODING_TEXTS} <= names
    again = open_project(path, extract_models_to=tmp_path / "models")
    assert again.codebook == project.codebook
    assert again.codings == project.codings and len(again.codings) == 30
    pd.testing.assert_frame_equal(again.coding_texts, project.coding_texts)
    pd.testing.assert_frame_equal(again.table, project.table)


def test_a_project_saved_without_codings_opens_with_empty_ones(tmp_path):
    path = save_project(tmp_path / "old.textlab", plain_project(20))
    header, members = members_of(path)
    assert set(members) == {"study.json", "data/table.parquet", "ui.json"}  # what projects held before codings
    old = forge(tmp_path / "older.textlab", header, members)
    for file in (path, old):
        project = open_project(file, extract_models_to=None)
        assert len(project.codings) == 0 and project.codebook == Codebook() and project.coding_texts is None
        assert project.model_folders == {}


def test_an_empty_log_after_undo_saves_nothing_and_opens_empty(tmp_path):
    project = plain_project(10)
    project.codings = coded(CodingLog(), 1)
    project.codings.undo()
    path = save_project(tmp_path / "undone.textlab", project)
    assert fmt.CODINGS_JSON not in members_of(path)[1]
    assert len(open_project(path, extract_models_to=None).codings) == 0


def test_an_autosave_after_each_coding_keeps_every_coding(tmp_path):
    project = plain_project(30)
    project.codebook = codebook()
    folder = tmp_path / "autosave"
    for i in range(12):
        project.codings.record(i, "abc"[i % 3], coder="Ann", chosen_by="random", probability=0.5,
                               file_category="a", flag="unsure" if i % 5 == 0 else "")
        if i == 6:
            project.codings.undo()
        saved = autosave(project, folder)
        assert open_project(saved, extract_models_to=None).codings == project.codings
    again = open_project(saved, extract_models_to=None)
    assert len(again.codings) == 11 and again.codebook == project.codebook


# A TextLab that codes texts, autosaving after each coding as the study session does, then dies
# without cleaning up (no finish_session): what it had coded is printed before it dies.
CRASHING_CODER = textwrap.dedent("""
    import json, os, sys
    from guiapp.core.project import autosave
    from tests.core.project.helpers import plain_project

    project = plain_project(60)
    for i in range(25):
        project.codings.record(i * 2, "abc"[i % 3], coder="Ann", chosen_by="uncertainty", probability=0.9 / (i + 1),
                               flag="unsure" if i % 4 == 0 else "")
        autosave.autosave(project, sys.argv[1])
    print(json.dumps(project.codings.to_dict()), flush=True)
    os._exit(1)  # a crash: the session's marker and autosave stay behind
""")


def test_a_crash_during_coding_is_recovered_with_every_coding(tmp_path):
    folder = tmp_path / "autosave"
    done = subprocess.run([sys.executable, "-c", CRASHING_CODER, str(folder)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    made = CodingLog.from_dict(json.loads(done.stdout))
    (item,) = recoverable(folder)
    recovered = open_project(item.path, extract_models_to=None)
    assert len(made) == 25 and recovered.codings == made


@pytest.mark.parametrize(("member", "data", "words"), [
    (fmt.CODINGS_JSON, {"version": 1, "codings": [{"row": 1, "category": "a", "at": "soon"}]}, "entry 1"),
    (fmt.CODINGS_JSON, {"version": 1, "codings": "all of them"}, "not a list"),
    (fmt.CODEBOOK_JSON, {"categories": [{"name": "a"}, {"name": "a"}]}, "twice"),
])
def test_a_damaged_coding_log_or_codebook_is_refused_in_words(tmp_path, member, data, words):
    header, members = members_of(save_project(tmp_path / "good.textlab", plain_project(10)))
    bad = forge(tmp_path / "bad.textlab", header, {**members, member: json.dumps(data).encode()})
    with pytest.raises(UserError, match="cannot be opened") as caught:
        open_project(bad, extract_models_to=None)
    assert words in caught.value.message and member in caught.value.message


def test_codings_from_a_newer_textlab_ask_for_an_update(tmp_path):
    header, members = members_of(save_project(tmp_path / "good.textlab", plain_project(10)))
    newer = forge(tmp_path / "newer.textlab", header,
                  {**members, fmt.CODINGS_JSON: json.dumps({"version": 7, "codings": []}).encode()})
    with pytest.raises(UserError, match="newer TextLab"):
        open_project(newer, extract_models_to=None)
