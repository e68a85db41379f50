"""Write the lock file of exact versions and hashes for this platform.

Resolves TextLab with its test, cluster and installer extras and the pinned PyTorch build (as
``scripts/setup-env.sh`` installs it) without installing anything (``pip install --dry-run
--report``), and writes every package it would install with the version and the SHA-256 of the very
file pip chose, so that ``pip install --require-hashes -r <lock>`` installs the same files next month.
Usage: ``python scripts/write_lock.py [--torch "torch==2.13.0"] [--out requirements/lock-….txt]``.
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
EXTRAS = "test,cluster,installers"


def lock_name() -> str:
    """requirements/lock-<system>-<machine>-py<major.minor>.txt, e.g. lock-linux-x86_64-py3.11.txt."""
    system = {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    return f"lock-{system}-{platform.machine().lower()}-py{sys.version_info.major}.{sys.version_info.minor}.txt"


def resolve(torch: str) -> list[dict]:
    """What pip would install for TextLab and ``torch`` in an empty environment, with each file's hashes."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                        "--report", str(report), torch, f"{ROOT}[{EXTRAS}]"], check=True)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", default="torch==2.13.0", help="the PyTorch build to lock (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=ROOT / "requirements" / lock_name())
    args = parser.parse_args()
    lines = lock_lines(resolve(args.torch))
    header = [
        f"# Exact versions and SHA-256 hashes of every package TextLab needs on {platform.system()} "
        f"{platform.machine()}, Python {sys.version_info.major}.{sys.version_info.minor},",
        f"# with {args.torch} and the extras [{EXTRAS}]. Written by scripts/update-lock.sh on "
        f"{datetime.now(UTC):%Y-%m-%d}; do not edit by hand.",
        "# Install: pip install --require-hashes -r <this file>, then pip install --no-deps -e .",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{args.out.relative_to(ROOT)}: {len(lines)} packages")


if __name__ == "__main__":
    main()
