"""scripts/install-qt-system-libs.sh: installs the missing X11 libraries Qt needs with apt-get when it
may (as root, or with sudo that asks no password), prints the command otherwise, and never fails.
Run here with stand-ins for dpkg-query, apt-get, id and sudo that record what they were asked."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from guiapp.ui.qt_system_libraries import XCB_LIBRARIES

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "install-qt-system-libs.sh"
BASH = shutil.which("bash")
ALL = list(dict.fromkeys(library.debian for library in XCB_LIBRARIES))
FRESH_DESKTOP = [name for name in ALL if name not in ("libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1")]

pytestmark = pytest.mark.skipif(BASH is None or not sys.platform.startswith("linux"), reason="a Linux shell script")


def _tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!{BASH}\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


def _run(tmp_path: Path, installed: list[str], uid: str = "1000", sudo: str | None = None, apt_fails: bool = False):
    """Run the script with stand-in tools; returns (result, the apt-get calls as lines)."""
    tools = tmp_path / "bin"
    tools.mkdir()
    log = tmp_path / "apt.log"
    (tmp_path / "installed").write_text("\n".join(installed) + "\n", encoding="utf-8")
    _tool(tools, "dpkg-query", f'''for name in "$@"; do :; done
while read -r line; do [ "$line" = "$name" ] && {{ printf 'install ok installed'; exit 0; }}; done < {tmp_path / "installed"}
exit 1''')
    _tool(tools, "apt-get", f'echo "$*" >> {log}\nexit {1 if apt_fails else 0}')
    _tool(tools, "id", f"echo {uid}")
    if sudo is not None:  # "ok": sudo without a password; "asks": sudo -n refuses
        _tool(tools, "sudo", '[ "$1" = -n ] && shift\n'
              + ('"$@"' if sudo == "ok" else "exit 1"))
    result = subprocess.run([BASH, str(SCRIPT)], check=False, capture_output=True, text=True, timeout=60,
                            env={"PATH": str(tools), "HOME": str(tmp_path)})
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return result, calls


def test_nothing_missing_installs_nothing(tmp_path):
    result, calls = _run(tmp_path, ALL, uid="0")
    assert result.returncode == 0
    assert calls == []


def test_as_root_the_missing_packages_are_installed_with_apt_get(tmp_path):
    result, calls = _run(tmp_path, FRESH_DESKTOP, uid="0")
    assert result.returncode == 0, result.stderr
    assert calls == ["install -y --no-install-recommends libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"]


def test_with_sudo_that_asks_no_password_it_installs_through_sudo(tmp_path):
    result, calls = _run(tmp_path, FRESH_DESKTOP, sudo="ok")
    assert result.returncode == 0, result.stderr
    assert calls == ["install -y --no-install-recommends libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"]


@pytest.mark.parametrize("sudo", [None, "asks"])
def test_without_root_it_prints_the_command_and_succeeds(tmp_path, sudo):
    result, calls = _run(tmp_path, FRESH_DESKTOP, sudo=sudo)
    assert result.returncode == 0
    assert calls == []
    assert "sudo apt-get install -y --no-install-recommends libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in result.stderr


def test_a_failing_apt_get_still_lets_the_set_up_go_on(tmp_path):
    result, calls = _run(tmp_path, FRESH_DESKTOP, uid="0", apt_fails=True)
    assert result.returncode == 0
    assert calls[0].startswith("install ") and "update -qq" in calls  # tried again after reading the lists
    assert "sudo apt-get install -y --no-install-recommends libxcb-cursor0" in result.stderr


def test_newer_systems_glib_under_its_t64_name_counts_as_installed(tmp_path):
    installed = [name if name != "libglib2.0-0" else "libglib2.0-0t64" for name in ALL]
    result, calls = _run(tmp_path, installed, uid="0")
    assert result.returncode == 0
    assert calls == []


def test_a_system_without_apt_gets_a_hint_and_success(tmp_path):
    tools = tmp_path / "bin"
    tools.mkdir()
    _tool(tools, "dnf", "exit 0")
    result = subprocess.run([BASH, str(SCRIPT)], check=False, capture_output=True, text=True, timeout=60,
                            env={"PATH": str(tools), "HOME": str(tmp_path)})
    assert result.returncode == 0
    assert "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms" in result.stderr
