"""Write the lock file of exact versions and hashes for this platform.

Resolves TextLab with the pinned PyTorch build (as ``scripts/setup-env.sh`` installs it) without
installing anything (``pip install --dry-run --report``), and writes every package it would install
with the version and the SHA-256 of the very file pip chose, so that ``pip install --require-hashes
-r <lock>`` installs the same files next month. Two locks: the development one (with the test,
cluster and installer extras: the set-up and CI) and the bundle's (the installer extra only: the
installers' build environment, so the bundle holds no test or cluster library), the second pinned
to the first's versions. Usage: ``python scripts/write_lock.py [--torch "torch==2.13.0"]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = "test,cluster,installers"  # the development lock's
BUNDLE_EXTRAS = "installers"  # the bundle's build environment's


def lock_name(bundle: bool = False) -> str:
    """requirements/lock-<system>-<machine>-py<major.minor>[-bundle].txt, e.g. lock-linux-x86_64-py3.11.txt."""
    system = {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return f"lock-{system}-{platform.machine().lower()}-py{version}{'-bundle' if bundle else ''}.txt"


def resolve(torch: str, extras: str, constraints: Path | None = None) -> list[dict]:
    """What pip would install for TextLab with ``extras`` and ``torch`` in an empty environment (within
    ``constraints`` when given), with each file's hashes."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        pins = []
        if constraints is not None:
            versions = Path(folder) / "constraints.txt"
            versions.write_text("".join(line.split(" ")[0] + "\n" for line in constraints.read_text(encoding="utf-8")
                                        .splitlines() if "==" in line and not line.startswith("#")), encoding="utf-8")
            pins = ["-c", str(versions)]
        subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                        "--report", str(report), *pins, torch, f"{ROOT}[{extras}]"], check=True)
        return json.loads(report.read_text(encoding="utf-8"))["install"]


def lock_lines(install: list[dict]) -> list[str]:
    lines = []
    for item in sorted(install, key=lambda entry: entry["metadata"]["name"].lower()):
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        if name.lower() == "textlab":  # the project itself: installed from the checkout, without its dependencies
            continue
        hashes = item["download_info"].get("archive_info", {}).get("hashes", {})
        if "sha256" not in hashes:
            raise SystemExit(f"pip gave no SHA-256 for {name} {version} ({item['download_info'].get('url')}).")
        lines.append(f"{name}=={version} \\\n    --hash=sha256:{hashes['sha256']}")
    return lines


def write(path: Path, torch: str, extras: str, install: list[dict], use: str) -> None:
    lines = lock_lines(install)
    header = [
        f"# Exact versions and SHA-256 hashes of every package TextLab needs on {platform.system()} "
        f"{platform.machine()}, Python {sys.version_info.major}.{sys.version_info.minor},",
        f"# with {torch} and the extras [{extras}], for {use}.",
        f"# Written by scripts/update-lock.sh on {datetime.now(UTC):%Y-%m-%d}; do not edit by hand.",
        "# Install: pip install --require-hashes -r <this file>, then pip install --no-deps .",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {len(lines)} packages")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", default="torch==2.13.0", help="the PyTorch build to lock (default: %(default)s)")
    args = parser.parse_args()
    development = ROOT / "requirements" / lock_name()
    write(development, args.torch, EXTRAS, resolve(args.torch, EXTRAS), "the set-up, the tests and CI")
    write(ROOT / "requirements" / lock_name(bundle=True), args.torch, BUNDLE_EXTRAS,
          resolve(args.torch, BUNDLE_EXTRAS, constraints=development), "the installers' build environment")


if __name__ == "__main__":
    main()
