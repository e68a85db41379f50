#!/usr/bin/env bash
# Make dist/TextLab.app from PyInstaller's output.
#
#   bash installers/macos/make_app.sh [DIST_DIR]        (default DIST_DIR: dist)
#
# If the spec's BUNDLE step already made DIST_DIR/TextLab.app, this completes its Info.plist (the
# .textlab type declaration and the version) and checks it. Otherwise it wraps the one-folder build
# DIST_DIR/TextLab/ into TextLab.app: the folder goes to Contents/MacOS, Info.plist.in (with the
# version) to Contents/Info.plist, resources/icons/textlab.icns to Contents/Resources.
# Version: $TEXTLAB_VERSION, else the one in pyproject.toml.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dist="${1:-$root/dist}"
app="$dist/TextLab.app"
version="${TEXTLAB_VERSION:-$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$root/pyproject.toml" | head -n 1)}"

if [[ ! -d "$app" ]]; then
  if [[ ! -x "$dist/TextLab/TextLab" ]]; then
    echo "make_app.sh: neither $app nor $dist/TextLab/TextLab exists: run 'pyinstaller installers/textlab.spec' first" >&2
    exit 1
  fi
  echo "Wrapping $dist/TextLab into $app"
  mkdir -p "$app/Contents/MacOS" "$app/Contents/Resources"
  cp -R "$dist/TextLab/." "$app/Contents/MacOS/"
  sed "s/@VERSION@/$version/g" "$here/Info.plist.in" > "$app/Contents/Info.plist"
  printf 'APPL????' > "$app/Contents/PkgInfo"
fi

plist="$app/Contents/Info.plist"
if [[ -f "$root/resources/icons/textlab.icns" && ! -f "$app/Contents/Resources/textlab.icns" ]]; then
  cp "$root/resources/icons/textlab.icns" "$app/Contents/Resources/textlab.icns"
fi
# The BUNDLE step's Info.plist: add what it lacks from ours (the .textlab type declaration; Merge
# skips keys that exist) and set the version (PlistBuddy is part of macOS).
if command -v /usr/libexec/PlistBuddy > /dev/null; then
  /usr/libexec/PlistBuddy -c "Merge $here/Info.plist.in" "$plist" 2>&1 | grep -v "Duplicate Entry" || true
  /usr/libexec/PlistBuddy -c "Set :CFBundleShortVersionString $version" "$plist"
  /usr/libexec/PlistBuddy -c "Set :CFBundleVersion $version" "$plist"
fi
if command -v plutil > /dev/null; then
  plutil -lint "$plist"
fi
if [[ ! -x "$app/Contents/MacOS/TextLab" ]]; then
  echo "make_app.sh: $app/Contents/MacOS/TextLab is missing" >&2
  exit 1
fi
echo "$app"
