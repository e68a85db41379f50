"""Checking a replication package without rerunning it: every file the manifest lists is there and
unchanged (size and SHA-256), no file was added, every file the README names is there, and the
manifest itself is whole (the models' files and the data it names are among the files, the original
scores are numbers). The answer is a :class:`VerifyReport` that says in words what is fine and what
is wrong, for ``textlab verify`` and the window alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.replication.manifest import README, check_files, package_root, read_manifest
from guiapp.core.replication.reviewer_readme import named_files
from guiapp.core.untrusted.bounded import TooLarge, read_file_at_most
from guiapp.core.untrusted.paths import UnsafePath, inside

README_LIMIT = 4 << 20  # a README of a package is a few kilobytes


@dataclass
class VerifyReport:
    """What ``verify_package`` found: ``problems`` in words (none: the package is whole)."""

    package: Path
    study_name: str = ""
    textlab_version: str = ""
    created: str = ""
    files_checked: int = 0
    data_included: bool = True
    problems: list[str] = field(default_factory=list)
    reruns: list[str] = field(default_factory=list)  # results folders of reruns inside the package, left alone

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        """The report as a reviewer reads it."""
        lines = [f"Replication package: {self.package}"]
        if self.study_name:
            lines.append(f"Study: {self.study_name} (written by TextLab {self.textlab_version or '?'}"
                         f"{', ' + self.created[:10] if self.created else ''})")
        if self.ok:
            lines.append(f"OK: all {self.files_checked} files are there and unchanged (checked by SHA-256), and every "
                         "file the README names is there.")
            if self.reruns:
                lines.append("Not part of the package, and not checked: the results of a rerun in "
                             + ", ".join(f"{folder}/" for folder in self.reruns) + ".")
            if not self.data_included:
                lines.append("The texts are not in the package: to rerun the study, obtain the data the README "
                             "describes and give it with --data.")
            return "\n".join(lines)
        count = len(self.problems)
        lines.append(f"{count} problem{'s' if count != 1 else ''} found — the package is not as it was written:")
        lines += [f"  - {problem}" for problem in self.problems]
        lines.append("Ask the package's author for a fresh copy; a rerun from this one may not give the original "
                     "numbers.")
        return "\n".join(lines)


def verify_package(path: str | Path) -> VerifyReport:
    """Check the package at ``path`` (a folder or a zip); a UserError when it is not a package at all."""
    root = package_root(path)
    manifest = read_manifest(root)
    data = manifest.get("data") if isinstance(manifest.get("data"), dict) else {}
    report = VerifyReport(
        package=Path(path),
        study_name=str(manifest.get("study_name") or ""),
        textlab_version=str(manifest.get("textlab_version") or ""),
        created=str(manifest.get("created") or ""),
        files_checked=len(manifest["files"]),
        data_included=bool(data.get("included", True)),
    )
    report.reruns = rerun_folders(root, manifest)
    report.problems += [problem for problem in check_files(root, manifest)
                        if not any(problem.startswith(_beside(folder)) for folder in report.reruns)]
    report.problems += _readme_problems(root, manifest)
    report.problems += manifest_problems(manifest)
    return report


def rerun_folders(root: Path, manifest: dict[str, Any]) -> list[str]:
    """Folders inside the package that hold the results of a rerun (``textlab replicate . --out
    rerun``: a results.json) and none of the package's own files."""
    listed = list(manifest["files"])
    found: list[str] = []
    for results in sorted(root.rglob("results.json")):
        folder = results.parent.relative_to(root).as_posix()
        if folder == "." or any(name.startswith(folder + "/") for name in listed):
            continue
        if not any(folder.startswith(known + "/") for known in found):
            found.append(folder)
    return found


def _beside(folder: str) -> tuple[str, str]:
    """How the problems about a rerun's folder begin: its files, and the lock and partial folder a
    results folder has beside it while it is written."""
    parent, _, name = folder.rpartition("/")
    return folder + "/", (f"{parent}/.{name}." if parent else f".{name}.")


def _readme_problems(root: Path, manifest: dict[str, Any]) -> list[str]:
    readme = root / README
    if not readme.is_file():
        return [] if README in manifest["files"] else [f"There is no {README}, so a reviewer has no instructions."]
    try:
        text = read_file_at_most(readme, README_LIMIT, README).decode("utf-8", errors="replace")
    except TooLarge as error:
        return [f"{README}: {error}."]
    except OSError as error:
        return [f"{README} cannot be read: {error.strerror or error}."]
    problems = []
    for name in named_files(text):
        if name in manifest["files"]:  # a listed file: checked with the others (a missing one said once)
            continue
        try:
            path = inside(root, name.rstrip("/"), "the file")
        except UnsafePath as error:
            problems.append(f"{README} names {error.reason}.")
            continue
        if not (path.is_dir() if name.endswith("/") else path.exists()):
            problems.append(f"{README} names {name}, which is not in the package.")
    return problems


def manifest_problems(manifest: dict[str, Any]) -> list[str]:
    """What in the manifest does not fit together: a model file or data file it names that is not
    among its files (or has another SHA-256 there), an original score that is not a number."""
    files = manifest["files"]
    problems: list[str] = []
    data = manifest.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("table"), dict):
        problems.append("The manifest does not describe the study's data.")
    else:
        for key in ("table", "test_table"):
            table = data.get(key)
            if table is None:
                continue
            if not isinstance(table, dict) or not isinstance(table.get("sha256"), str):
                problems.append(f"The manifest's description of the {key.replace('_', ' ')} cannot be read.")
                continue
            if data.get("included") and table.get("file") not in files:
                problems.append(f"The manifest says the data is included, but {table.get('file')} is not among "
                                "its files.")
    models = manifest.get("models") or {}
    for name, model in models.items():
        if not isinstance(model, dict) or not isinstance(model.get("files"), dict):
            problems.append(f"The manifest's entry for the model “{name}” cannot be read.")
            continue
        folder = str(model.get("folder", "")).rstrip("/")
        for relative, sha in model["files"].items():
            listed = files.get(f"{folder}/{relative}")
            if listed is None:
                problems.append(f"The model “{name}” has a file {folder}/{relative} that is not among the "
                                "package's files.")
            elif listed.get("sha256") != sha:
                problems.append(f"The model “{name}”: the SHA-256 of {folder}/{relative} differs between the "
                                "manifest's list of models and its list of files.")
    for name, scores in (manifest.get("results") or {}).items():
        score = scores.get("macro_f1") if isinstance(scores, dict) else None
        if not isinstance(score, int | float) or isinstance(score, bool) or not math.isfinite(score):
            problems.append(f"The original macro-F1 of the model “{name}” in the manifest is not a number.")
    if "study.toml" not in files:
        problems.append("The manifest lists no study.toml, so the study cannot be rerun.")
    return problems


def verify_or_message(path: str | Path) -> tuple[VerifyReport | None, str]:
    """The report, or None and the reason in words when the package cannot be checked at all."""
    try:
        return verify_package(path), ""
    except UserError as error:
        return None, f"{error.message} {error.hint}".strip()
