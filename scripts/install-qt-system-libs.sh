#!/usr/bin/env bash
# Installs the system libraries Qt needs to draw TextLab's windows on a Linux (X11) desktop: since
# Qt 6.5 its xcb platform plugin needs libxcb-cursor0, and a fresh desktop often also lacks
# libxcb-icccm4 and libxcb-keysyms1. The list matches guiapp/ui/qt_system_libraries.py (a test
# checks it). On Debian or Ubuntu, as root or with sudo that needs no password, it installs the
# missing packages with apt-get; otherwise it prints the one command to run. It never fails: it
# always exits 0, so a set-up script can call it without stopping.
set -u

PACKAGES="libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-util1 \
libxcb-randr0 libxcb-render0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb-xkb1 libxcb1 \
libx11-xcb1 libx11-6 libxkbcommon0 libxkbcommon-x11-0 libgl1 libegl1 libfontconfig1 libfreetype6 \
libglib2.0-0 libdbus-1-3"
FEDORA="xcb-util-cursor xcb-util-wm xcb-util-keysyms xcb-util-image xcb-util-renderutil xcb-util libxcb \
libX11-xcb libX11 libxkbcommon libxkbcommon-x11 libglvnd-glx libglvnd-egl fontconfig freetype glib2 dbus-libs"

say() { printf '%s\n' "$*" >&2; }

case "${OSTYPE:-}" in
  linux*) ;;
  *) exit 0 ;;  # Windows and macOS bring what Qt needs
esac

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  if command -v dnf >/dev/null 2>&1; then
    say "TextLab's windows need these system packages; if any is missing, run:"
    say "    sudo dnf install $FEDORA"
  else
    say "TextLab's windows need Qt's X11 libraries (libxcb-cursor, libxcb-icccm, libxcb-keysyms and"
    say "the other xcb libraries); install them with your system's package manager if the app says so."
  fi
  exit 0
fi

installed() {  # installed PACKAGE: true when dpkg has it (or its t64 successor) installed
  local status
  for name in "$1" "${1}t64"; do
    status=$(dpkg-query -W -f='${Status}' "$name" 2>/dev/null) || continue
    [ "$status" = "install ok installed" ] && return 0
  done
  return 1
}

missing=""
for package in $PACKAGES; do
  installed "$package" || missing="$missing $package"
done
missing="${missing# }"
if [ -z "$missing" ]; then
  exit 0
fi

command_line="apt-get install -y --no-install-recommends $missing"
if [ "$(id -u 2>/dev/null)" = "0" ]; then
  run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  run=(sudo -n)
else
  say "TextLab's windows need system libraries this computer lacks. Install them with:"
  say "    sudo $command_line"
  exit 0
fi

say "Installing the system libraries TextLab's windows need: $missing"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # one word per package
if ${run[@]+"${run[@]}"} apt-get install -y --no-install-recommends $missing \
  || { ${run[@]+"${run[@]}"} apt-get update -qq \
       && ${run[@]+"${run[@]}"} apt-get install -y --no-install-recommends $missing; }; then
  exit 0
fi
say "Could not install them. Install them with:"
say "    sudo $command_line"
exit 0
