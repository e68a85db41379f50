"""The command line runs the same engine as the GUI: health report, specs, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from guiapp.core.locations import example_path
from guiapp.core.study.spec import ExperimentSpec

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "guiapp", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HOME": str(ROOT)},
    )


def test_health_of_the_example_as_json_and_spec(tmp_path):
    spec_path = tmp_path / "study.toml"
    result = _run("health", str(example_path()), "--json", "--save-spec", str(spec_path))
    assert result.returncode in (0, 1), result.stderr
    payload = json.loads(result.stdout)
    report = payload["report"]
    assert payload["sheet"] == "Bills"
    assert report["n_rows"] == 4449
    assert len(report["categories"]) == 20
    assert payload["mapping"]["text_columns"] == ["Title"]

    spec = ExperimentSpec.load(spec_path)
    assert spec.data.sheet == "Bills" and len(spec.data.sha256) == 64
    again = _run("health", "--spec", str(spec_path))
    # the saved spec holds the data part only: `textlab run` would stop, as it has no models to compare
    assert again.returncode == 1, again.stderr
    assert "`textlab run` would stop here: The study has no models to compare." in again.stdout
    assert "Categories (coded texts, share):" in again.stdout
    assert "4,449" in again.stdout


def test_health_with_explicit_columns(tmp_path):
    path = tmp_path / "coded.csv"
    path.write_text("body,code,other\n" + "\n".join(f"text number {i},{'x' if i % 3 else 'y'},{i}" for i in range(60)), encoding="utf-8")
    result = _run("health", str(path), "--text", "body", "--category", "code", "--json")
    payload = json.loads(result.stdout)
    assert payload["mapping"]["category_column"] == "code"
    assert {c["label"]: c["count"] for c in payload["report"]["categories"]} == {"x": 40, "y": 20}


def test_unreadable_file_gives_message_not_traceback(tmp_path):
    fake = tmp_path / "table.xlsx"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
    result = _run("health", str(fake))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "PNG" in result.stderr


def test_unknown_column_is_explained(tmp_path):
    path = tmp_path / "coded.csv"
    path.write_text("text,label\na,b\nc,d\n", encoding="utf-8")
    result = _run("health", str(path), "--category", "labels")
    assert result.returncode == 2
    assert "labels" in result.stderr and "Traceback" not in result.stderr


def test_a_file_given_alone_opens_in_the_app(tmp_path, monkeypatch):
    """What a file manager runs on a double-click: ``TextLab study.textlab`` opens the app with it."""
    from guiapp.cli import entry
    from guiapp.ui import app

    opened = []
    monkeypatch.setattr(app, "run_app", lambda file=None, example=False: opened.append(file) or 0)
    project = tmp_path / "my study.textlab"
    project.write_bytes(b"PK")
    assert entry.main([str(project)]) == 0
    assert opened == [str(project)]
    with pytest.raises(SystemExit):  # a word that is neither a command nor a file is still an error
        entry.main(["no-such-command"])
