"""Before the window opens on Linux, TextLab checks for the system libraries Qt needs to draw windows
on an X11 desktop, and names the packages to install when some are missing (Qt itself would abort
with a message that names one of them). The check is Qt-free: these tests need no Qt, and the
libraries are "found" by a finder the test gives."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from guiapp.ui import qt_system_libraries as libs
from guiapp.ui.qt_system_libraries import (
    XCB_LIBRARIES,
    missing_libraries_message,
    platform_needs_xcb,
    window_libraries_problem,
)

ROOT = Path(__file__).resolve().parents[2]
X11_DESKTOP = {"DISPLAY": ":0", "HOME": "/home/someone"}


def _all_but(*absent: str):
    return lambda name: name not in absent


def _never_asked(name: str) -> bool:
    raise AssertionError(f"the check asked for {name} where no X11 window is opened")


def test_a_missing_xcb_cursor_library_is_named_with_its_package():
    message = window_libraries_problem(X11_DESKTOP, _all_but("libxcb-cursor.so.0"), platform="linux")
    assert message is not None
    assert "libxcb-cursor.so.0" in message
    assert "sudo apt install libxcb-cursor0\n" in message + "\n"
    assert "sudo dnf install xcb-util-cursor" in message
    assert "libxcb-icccm" not in message  # only what is missing


def test_the_three_libraries_a_fresh_desktop_lacks_give_one_command():
    absent = ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1")
    message = window_libraries_problem(X11_DESKTOP, _all_but(*absent), platform="linux")
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in message
    assert "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms" in message
    for name in absent:
        assert name in message


def test_a_package_that_holds_several_missing_libraries_is_named_once():
    absent = ("libglib-2.0.so.0", "libgthread-2.0.so.0", "libxcb-shm.so.0", "libxcb-sync.so.1")
    message = window_libraries_problem(X11_DESKTOP, _all_but(*absent), platform="linux")
    apt = re.search(r"sudo apt install (.*)", message).group(1).split()
    dnf = re.search(r"sudo dnf install (.*)", message).group(1).split()
    assert sorted(apt) == ["libglib2.0-0", "libxcb-shm0", "libxcb-sync1"]
    assert sorted(dnf) == ["glib2", "libxcb"]


def test_all_libraries_present_gives_no_message():
    assert window_libraries_problem(X11_DESKTOP, _all_but(), platform="linux") is None


def test_offscreen_and_other_platforms_skip_the_check():
    for platform_name in ("offscreen", "minimal", "wayland", "vnc:size=800x600", "wayland;xcb"):
        environ = dict(X11_DESKTOP, QT_QPA_PLATFORM=platform_name)
        assert window_libraries_problem(environ, _never_asked, platform="linux") is None, platform_name


def test_xcb_named_outright_is_checked_even_without_a_display():
    environ = {"QT_QPA_PLATFORM": "xcb"}
    assert window_libraries_problem(environ, _all_but("libxcb-cursor.so.0"), platform="linux") is not None


def test_no_display_windows_and_mac_skip_the_check():
    assert window_libraries_problem({}, _never_asked, platform="linux") is None
    assert window_libraries_problem(X11_DESKTOP, _never_asked, platform="win32") is None
    assert window_libraries_problem(X11_DESKTOP, _never_asked, platform="darwin") is None


def test_a_wayland_desktop_uses_xcb_only_when_qt_has_no_wayland_plugin():
    wayland = dict(X11_DESKTOP, WAYLAND_DISPLAY="wayland-0", XDG_SESSION_TYPE="wayland")
    assert not platform_needs_xcb(wayland, platform="linux", wayland_plugin=True)
    assert platform_needs_xcb(wayland, platform="linux", wayland_plugin=False)  # the installers carry xcb only
    x11_session = dict(X11_DESKTOP, WAYLAND_DISPLAY="wayland-0", XDG_SESSION_TYPE="x11")
    assert platform_needs_xcb(x11_session, platform="linux", wayland_plugin=True)


def test_the_check_can_be_switched_off():
    environ = dict(X11_DESKTOP, TEXTLAB_SKIP_LIBRARY_CHECK="1")
    assert window_libraries_problem(environ, _never_asked, platform="linux") is None


def test_the_message_tells_how_to_start_without_the_check():
    message = missing_libraries_message([XCB_LIBRARIES[0]])
    assert "TEXTLAB_SKIP_LIBRARY_CHECK=1" in message


def test_the_real_finder_tells_a_present_library_from_an_absent_one():
    assert libs.library_loads("libc.so.6") if sys.platform.startswith("linux") else True
    assert not libs.library_loads("libtextlab-no-such-library.so.7")


def _needed(path: Path) -> list[str]:
    shown = subprocess.run(["readelf", "-d", str(path)], check=False, capture_output=True, text=True, timeout=30).stdout
    return re.findall(r"\(NEEDED\).*\[(.+?)\]", shown)


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("readelf") is None,
                    reason="reads Linux shared libraries with readelf")
def test_every_system_library_qts_x11_plugin_links_is_checked():
    """Guards a PySide6 upgrade: each system library that Qt's xcb plugin (and the Qt libraries it
    brings) links against is in the checked list, with its packages."""
    qt = Path(__import__("importlib.util").util.find_spec("PySide6").origin).parent / "Qt"
    plugin = qt / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.exists():
        pytest.skip("this PySide6 has no xcb plugin")
    bundled = {path.name for path in (qt / "lib").iterdir()}
    base = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1", "libdl.so.2", "libpthread.so.0"}
    linked = set()
    for path in (plugin, qt / "lib" / "libQt6XcbQpa.so.6", qt / "lib" / "libQt6Gui.so.6", qt / "lib" / "libQt6DBus.so.6"):
        linked |= {name for name in _needed(path) if name not in bundled and name not in base}
    assert linked, "readelf found no libraries"
    assert linked <= {library.file for library in XCB_LIBRARIES}


def test_the_install_script_installs_every_debian_package_named():
    script = (ROOT / "scripts" / "install-qt-system-libs.sh").read_text(encoding="utf-8")
    listed = set(re.search(r'PACKAGES="([^"]*)"', script).group(1).split())
    assert {library.debian for library in XCB_LIBRARIES} <= listed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the X11 check runs on Linux only")
def test_python_m_guiapp_names_the_package_and_exits_without_a_traceback(tmp_path):
    """End to end: ``python -m guiapp`` on an X11 desktop whose libxcb-cursor is missing (the finder
    pretends so) prints the plain message and stops, before Qt starts."""
    code = (
        "import runpy, guiapp.ui.qt_system_libraries as check\n"
        "check.library_loads = lambda name: name != 'libxcb-cursor.so.0'\n"
        "runpy.run_module('guiapp', run_name='__main__')\n"
    )
    env = {key: value for key, value in os.environ.items()
           if key not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE", "TEXTLAB_SKIP_LIBRARY_CHECK")}
    env.update(DISPLAY=":4711", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 1, done.stderr
    assert "sudo apt install libxcb-cursor0" in done.stderr
    assert "Traceback" not in done.stderr
    assert "qt.qpa" not in done.stderr  # stopped before Qt tried to load its plugin
    assert done.stdout == ""
