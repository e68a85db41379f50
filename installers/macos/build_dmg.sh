#!/usr/bin/env bash
# Make TextLab-<version>-macos-<arch>.dmg: TextLab.app next to a link to /Applications, so a user
# drags one onto the other.
#
#   bash installers/macos/build_dmg.sh [DIST_DIR]       (default DIST_DIR: dist)
#
# Needs macOS (hdiutil). Runs make_app.sh first, so DIST_DIR may hold either TextLab.app (the
# spec's BUNDLE step) or the one-folder build TextLab/.
#
# Optional, all off unless the variables are set (see installers/macos/NOTES.md):
#   MACOS_SIGN_IDENTITY   "Developer ID Application: Name (TEAMID)": sign the app (hardened
#                         runtime, installers/macos/entitlements.plist) and the .dmg
#   MACOS_NOTARY_PROFILE  a notarytool keychain profile (xcrun notarytool store-credentials):
#                         notarise the .dmg and staple the ticket
#   TEXTLAB_VARIANT       a suffix for the file name, e.g. -cuda (macOS builds have no CUDA variant)
#   TEXTLAB_VERSION       the version (default: pyproject.toml's)
# Without MACOS_SIGN_IDENTITY the app is signed ad hoc, which Apple-silicon Macs require to run it;
# users then open it the first time with right-click → Open (Gatekeeper).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dist="${1:-$root/dist}"
version="${TEXTLAB_VERSION:-$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$root/pyproject.toml" | head -n 1)}"
arch="$(uname -m)"
dmg="$dist/TextLab-$version-macos-$arch${TEXTLAB_VARIANT:-}.dmg"

if ! command -v hdiutil > /dev/null; then
  echo "build_dmg.sh: hdiutil not found: build the .dmg on macOS" >&2
  exit 1
fi

app="$(bash "$here/make_app.sh" "$dist" | tail -n 1)"

if [[ -n "${MACOS_SIGN_IDENTITY:-}" ]]; then
  echo "Signing $app as $MACOS_SIGN_IDENTITY"
  codesign --force --deep --timestamp --options runtime \
    --entitlements "$here/entitlements.plist" --sign "$MACOS_SIGN_IDENTITY" "$app"
else
  echo "Signing $app ad hoc (no MACOS_SIGN_IDENTITY)"
  codesign --force --deep --sign - "$app"
fi
codesign --verify --deep --strict "$app"

staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
cp -R "$app" "$staging/TextLab.app"
ln -s /Applications "$staging/Applications"
rm -f "$dmg"
hdiutil create -volname "TextLab $version" -srcfolder "$staging" -fs HFS+ -format UDZO -ov "$dmg"

if [[ -n "${MACOS_SIGN_IDENTITY:-}" ]]; then
  codesign --force --timestamp --sign "$MACOS_SIGN_IDENTITY" "$dmg"
fi
if [[ -n "${MACOS_NOTARY_PROFILE:-}" ]]; then
  echo "Notarising $dmg (this can take several minutes)"
  xcrun notarytool submit "$dmg" --keychain-profile "$MACOS_NOTARY_PROFILE" --wait
  xcrun stapler staple "$dmg"
fi
echo "$dmg"
