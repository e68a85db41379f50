"""Before the window opens on Linux: does this computer have the system libraries Qt needs to draw
windows on an X11 desktop (Qt's "xcb" platform)? Qt cannot be asked afterwards: when one is missing it
aborts the whole process with a message that names one library in Qt's words. This check names every
missing library and the packages that hold them. It imports no Qt, so it can run before Qt loads."""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

SKIP_VARIABLE = "TEXTLAB_SKIP_LIBRARY_CHECK"
INSTALL_SCRIPT = "scripts/install-qt-system-libs.sh"


@dataclass(frozen=True)
class SystemLibrary:
    file: str  # the name the dynamic loader looks for
    debian: str  # the Debian/Ubuntu package that holds it
    fedora: str  # the Fedora package that holds it


# What Qt's xcb plugin (libqxcb.so, libQt6XcbQpa.so.6) and the Qt libraries it brings (QtGui, QtDBus)
# load from the system, read from their ELF headers (PySide6 6.11). Since Qt 6.5 xcb-cursor is among
# them; it, xcb-icccm and xcb-keysyms are the ones a fresh desktop most often lacks.
XCB_LIBRARIES: tuple[SystemLibrary, ...] = (
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    SystemLibrary("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    SystemLibrary("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    SystemLibrary("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    SystemLibrary("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    SystemLibrary("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    SystemLibrary("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    SystemLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    SystemLibrary("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    SystemLibrary("libxcb.so.1", "libxcb1", "libxcb"),
    SystemLibrary("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    SystemLibrary("libX11.so.6", "libx11-6", "libX11"),
    SystemLibrary("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    SystemLibrary("libGL.so.1", "libgl1", "libglvnd-glx"),
    SystemLibrary("libEGL.so.1", "libegl1", "libglvnd-egl"),
    SystemLibrary("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    SystemLibrary("libfreetype.so.6", "libfreetype6", "freetype"),
    SystemLibrary("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
    SystemLibrary("libgthread-2.0.so.0", "libglib2.0-0", "glib2"),
    SystemLibrary("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
)


def platform_needs_xcb(environ: Mapping[str, str], platform: str = sys.platform, wayland_plugin: bool = True) -> bool:
    """Will Qt draw this app's windows through its xcb (X11) platform? ``QT_QPA_PLATFORM`` decides when
    set (its first choice); otherwise a Linux desktop with a display uses X11, unless it is a Wayland
    session and Qt has its Wayland plugin (the installers carry xcb only, which runs under XWayland)."""
    if not platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return chosen.split(";")[0].split(":")[0].strip() == "xcb"
    wayland_session = bool(environ.get("WAYLAND_DISPLAY")) and environ.get("XDG_SESSION_TYPE") == "wayland"
    if wayland_session and wayland_plugin:
        return False
    return bool(environ.get("DISPLAY"))


def missing_libraries(found: Callable[[str], bool], libraries: Iterable[SystemLibrary] = XCB_LIBRARIES) -> list[SystemLibrary]:
    return [library for library in libraries if not found(library.file)]


def _once(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def missing_libraries_message(missing: list[SystemLibrary], from_source: bool = True) -> str:
    """What to tell the user, in plain words: the missing libraries and the one command that installs them."""
    lines = [
        "TextLab cannot open its window: Qt, which draws TextLab's windows on this Linux desktop (X11),",
        "needs system libraries this computer does not have:",
        "    " + ", ".join(library.file for library in missing),
        "",
        "Install them, then start TextLab again:",
        "    Debian or Ubuntu:  sudo apt install " + " ".join(_once(library.debian for library in missing)),
        "    Fedora:            sudo dnf install " + " ".join(_once(library.fedora for library in missing)),
    ]
    if from_source:
        lines.append(f"(From TextLab's source folder, {INSTALL_SCRIPT} installs them on Debian or Ubuntu.)")
    lines += ["", f"To start TextLab without this check, set {SKIP_VARIABLE}=1."]
    return "\n".join(lines)


def window_libraries_problem(
    environ: Mapping[str, str],
    found: Callable[[str], bool],
    platform: str = sys.platform,
    wayland_plugin: bool = True,
    from_source: bool = True,
) -> str | None:
    """The message to show instead of the window when Qt's X11 libraries are missing; ``None`` when
    nothing is missing, or when the window will not be drawn through X11 (offscreen, Wayland, Windows,
    macOS). ``found(file)`` says whether the dynamic loader finds a library by its file name."""
    if environ.get(SKIP_VARIABLE, "") not in ("", "0"):
        return None
    if not platform_needs_xcb(environ, platform, wayland_plugin):
        return None
    missing = missing_libraries(found)
    return missing_libraries_message(missing, from_source) if missing else None


def library_loads(file: str) -> bool:
    """Whether the dynamic loader finds ``file`` as Qt will look for it: in the installed app's own
    folder, or on the system (loading it now, as Qt would a moment later)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle and (Path(bundle) / file).exists():
        return True
    try:
        ctypes.CDLL(file)
    except OSError:
        return False
    return True


def _qt_has_wayland_plugin() -> bool:
    """Whether PySide6 brings Qt's Wayland platform plugin (found without importing PySide6). When
    this cannot be told, say yes: the check then stays out of the way."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return True
    if spec is None or not spec.submodule_search_locations:
        return True
    for folder in spec.submodule_search_locations:
        platforms = Path(folder) / "Qt" / "plugins" / "platforms"
        if platforms.is_dir():
            return any(platforms.glob("libqwayland*.so"))
    return True


def stop_unless_windows_can_open() -> None:
    """Before Qt starts: when Qt's X11 libraries are missing, say which packages to install (on the
    error output) and end with exit code 1, instead of letting Qt abort the process."""
    problem = window_libraries_problem(
        os.environ,
        lambda file: library_loads(file),  # looked up when called, so a test can stand in for it
        wayland_plugin=_qt_has_wayland_plugin(),
        from_source=not getattr(sys, "frozen", False),
    )
    if problem:
        print(problem, file=sys.stderr)
        raise SystemExit(1)
