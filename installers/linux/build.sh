#!/usr/bin/env bash
# Package TextLab's PyInstaller one-folder bundle for Linux: a .deb (installs under /opt/textlab,
# /usr/bin/textlab, a .desktop entry, the icon and the .textlab file type) and a portable .tar.gz.
#
#   installers/linux/build.sh DIST_DIR VERSION [OUT_DIR]
#
#   DIST_DIR  the folder PyInstaller made (contains the TextLab executable and _internal/),
#             e.g. dist/TextLab after `pyinstaller installers/textlab.spec --distpath dist`
#   VERSION   package version, e.g. 0.1.0
#   OUT_DIR   where the packages go (default: dist/packages)
#
# Needs dpkg-deb (Debian/Ubuntu: dpkg), tar, gzip. Runs as any user (the .deb is built with
# --root-owner-group, so no fakeroot is needed).
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
DIST=$(cd "$1" && pwd)
VERSION=$2
OUT=${3:-dist/packages}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ICONS="$ROOT/resources/icons"

[ -x "$DIST/TextLab" ] || { echo "no TextLab executable in $DIST" >&2; exit 1; }
[ -d "$DIST/_internal" ] || { echo "no _internal folder in $DIST" >&2; exit 1; }
case "$VERSION" in [0-9]*) ;; *) echo "version must start with a digit: $VERSION" >&2; exit 1 ;; esac

ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

# --- .deb ---------------------------------------------------------------------------------------
PKG="$STAGE/deb"
mkdir -p "$PKG/DEBIAN" "$PKG/opt" "$PKG/usr/bin" "$PKG/usr/share/applications" \
         "$PKG/usr/share/mime/packages" "$PKG/usr/share/doc/textlab"
cp -a "$DIST" "$PKG/opt/textlab"
find "$PKG/opt/textlab" -name '__pycache__' -type d -prune -exec rm -rf {} +
chmod -R u+rwX,go+rX,go-w "$PKG/opt/textlab"
ln -s /opt/textlab/TextLab "$PKG/usr/bin/textlab"
install -m 644 "$HERE/textlab.desktop" "$PKG/usr/share/applications/textlab.desktop"
install -m 644 "$HERE/textlab-mime.xml" "$PKG/usr/share/mime/packages/textlab.xml"
for size in 16 32 48 64 128 256 512; do
    if [ -f "$ICONS/textlab-$size.png" ]; then
        install -D -m 644 "$ICONS/textlab-$size.png" "$PKG/usr/share/icons/hicolor/${size}x${size}/apps/textlab.png"
    fi
done
if [ -f "$ICONS/textlab.svg" ]; then
    install -D -m 644 "$ICONS/textlab.svg" "$PKG/usr/share/icons/hicolor/scalable/apps/textlab.svg"
fi
install -m 644 "$ROOT/LICENSE" "$PKG/usr/share/doc/textlab/copyright"

SIZE_KB=$(du -sk --exclude=DEBIAN "$PKG" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@INSTALLED_SIZE@/$SIZE_KB/" \
    "$HERE/debian/control.in" > "$PKG/DEBIAN/control"
install -m 755 "$HERE/debian/postinst" "$PKG/DEBIAN/postinst"
install -m 755 "$HERE/debian/postrm" "$PKG/DEBIAN/postrm"

DEB="$OUT/textlab_${VERSION}_${ARCH}.deb"
# gzip by default (fast; every dpkg reads it); DEB_COMPRESS=xz makes a smaller .deb, slowly
dpkg-deb --root-owner-group "-Z${DEB_COMPRESS:-gzip}" --build "$PKG" "$DEB"

# --- portable .tar.gz ---------------------------------------------------------------------------
TARNAME="textlab-${VERSION}-linux-$(uname -m)"
mkdir -p "$STAGE/tar"
cp -a "$PKG/opt/textlab" "$STAGE/tar/$TARNAME"
install -m 644 "$HERE/textlab.desktop" "$STAGE/tar/$TARNAME/textlab.desktop"
[ -f "$ICONS/textlab-256.png" ] && install -m 644 "$ICONS/textlab-256.png" "$STAGE/tar/$TARNAME/textlab.png"
TAR="$OUT/$TARNAME.tar.gz"
tar -C "$STAGE/tar" --owner=0 --group=0 -czf "$TAR" "$TARNAME"

ls -l "$DEB" "$TAR"
