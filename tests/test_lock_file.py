"""The lock files in requirements/: every package at one exact version with the SHA-256 of its file,
each within the ranges pyproject.toml declares, the PyTorch build the set-up script pins, and the
bundle's lock at the development lock's versions."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCKS = sorted((ROOT / "requirements").glob("lock-*.txt"))
ENTRY = re.compile(r"^([A-Za-z0-9._-]+)==(\S+) \\\n    --hash=sha256:([0-9a-f]{64})$", re.MULTILINE)
LINUX = {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "python_version": "3.11",
         "platform_machine": "x86_64"}


def locked(path: Path) -> dict[str, Version]:
    text = path.read_text(encoding="utf-8")
    entries = ENTRY.findall(text)
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert len(body) == 2 * len(entries), f"{path.name}: a line is not 'name==version' with one SHA-256"
    return {canonicalize_name(name): Version(version) for name, version, _ in entries}


def declared(bundle: bool = False) -> list[Requirement]:
    """pyproject.toml's requirements: with the test and cluster extras for the development lock, the
    installer extra alone for the bundle's."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    wanted = ["installers"] if bundle else ["test", "cluster", "installers"]
    return [Requirement(text) for text in [*project["dependencies"], *(e for name in wanted for e in extras[name])]]


def test_there_is_a_lock_for_the_platform_the_set_up_runs_on_and_for_its_bundle():
    assert (ROOT / "requirements" / "lock-linux-x86_64-py3.11.txt") in LOCKS
    assert (ROOT / "requirements" / "lock-linux-x86_64-py3.11-bundle.txt") in LOCKS


@pytest.mark.parametrize("path", [path for path in LOCKS if path.stem.endswith("-bundle")],
                         ids=lambda path: path.name)
def test_the_bundle_is_built_from_the_development_lock_s_versions(path):
    bundle = locked(path)
    development = locked(path.with_name(path.name.replace("-bundle", "")))
    assert set(bundle) < set(development)
    assert {name: version for name, version in bundle.items() if development[name] != version} == {}
    assert not {"pytest", "distributed", "dask-jobqueue"} & set(bundle)  # no test or cluster tool in the bundle


@pytest.mark.parametrize("path", LOCKS, ids=[path.name for path in LOCKS])
def test_each_locked_version_is_within_pyproject_ranges(path):
    versions = locked(path)
    assert len(versions) > 50
    environment = LINUX if "linux-x86_64-py3.11" in path.name else None
    missing, outside = [], []
    for requirement in declared(bundle=path.stem.endswith("-bundle")):
        if environment is not None and requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        version = versions.get(canonicalize_name(requirement.name))
        if version is None:
            missing.append(requirement.name)
        elif not requirement.specifier.contains(version, prereleases=True):
            outside.append(f"{requirement.name} {version} (pyproject: {requirement.specifier})")
    assert not missing, f"{path.name} lacks {missing}: run scripts/update-lock.sh"
    assert not outside, f"{path.name} holds versions pyproject.toml does not allow: {outside}"


@pytest.mark.parametrize("path", LOCKS, ids=[path.name for path in LOCKS])
def test_the_lock_holds_the_pytorch_the_set_up_pins(path):
    pinned = re.search(r'TORCH="\$\{TEXTLAB_TORCH:-torch==([0-9.]+)\}"',
                       (ROOT / "scripts" / "setup-env.sh").read_text(encoding="utf-8"))
    assert pinned is not None
    assert locked(path)["torch"].base_version == pinned.group(1)
