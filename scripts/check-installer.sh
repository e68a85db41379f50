#!/usr/bin/env bash
# Builds TextLab's Linux package from the lock and smoke-tests it in a fresh Debian root, as every
# release does before it is published (docs/installers.md):
#   1. a fresh build environment: a new virtual environment with every package from
#      requirements/lock-linux-x86_64-py3.11-bundle.txt (exact versions, SHA-256 checked; the
#      development lock's versions without its test and cluster tools), TextLab itself,
#      and xgboost swapped for xgboost-cpu of the same version (no NVIDIA library in the bundle);
#   2. the PyInstaller one-folder bundle from installers/textlab.spec;
#   3. installers/linux/build.sh: the .deb and the portable .tar.gz;
#   4. installers/linux/smoke_test.sh: the .deb installed into a new bookworm root (an existing root
#      is removed first), the window, the full self-test, removal and purge; the root is removed after;
#   5. the list of the bundle's files with their sizes (bundle-files.txt) and their SHA-256
#      (bundle-hashes.txt), to compare with a later build of the same lock (diff the two lists: the
#      names and sizes must agree; PyInstaller's own archive and executable carry build times).
#
#   sudo scripts/check-installer.sh [WORK_DIR]      (default: a new folder under /tmp)
#
# Needs root (the smoke test's chroot), python3.11 with venv, binutils (strip), dpkg-deb and
# debootstrap (Debian/Ubuntu: apt-get install python3-venv binutils dpkg debootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-$(mktemp -d /tmp/textlab-installer.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
PY=${PYTHON:-python3.11}
LOCK=requirements/lock-linux-x86_64-py3.11-bundle.txt
VERSION=$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
step() { echo; echo "=== $* ($(date +%H:%M:%S))"; }
started=$(date +%s)

step "1. build environment from $LOCK"
rm -rf "$WORK/venv"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet --upgrade pip
"$WORK/venv/bin/python" -m pip install --quiet --require-hashes -r "$LOCK"
"$WORK/venv/bin/python" -m pip install --quiet --no-deps .
XGBOOST=$(sed -n 's/^xgboost==\([^ ]*\) .*/\1/p' "$LOCK")
"$WORK/venv/bin/python" -m pip uninstall --quiet -y xgboost nvidia-nccl-cu12
"$WORK/venv/bin/python" -m pip install --quiet --no-deps "xgboost-cpu==$XGBOOST"

step "2. PyInstaller bundle"
rm -rf "$WORK/dist" "$WORK/build"
"$WORK/venv/bin/pyinstaller" --noconfirm --log-level WARN --distpath "$WORK/dist" --workpath "$WORK/build" \
    installers/textlab.spec

step "3. packages"
bash installers/linux/build.sh "$WORK/dist/TextLab" "$VERSION" "$WORK/packages"
DEB="$WORK/packages/textlab_${VERSION}_amd64.deb"

step "4. smoke test in a fresh bookworm root"
bash installers/linux/smoke_test.sh "$DEB" "$WORK/root" "$WORK/window.png"

step "5. the bundle's files"
(cd "$WORK/dist/TextLab" && find . -type f -printf '%P\t%s\n' | LC_ALL=C sort) > "$WORK/bundle-files.txt"
(cd "$WORK/dist/TextLab" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) > "$WORK/bundle-hashes.txt"
echo "bundle: $(du -sm "$WORK/dist/TextLab" | cut -f1) MB in $(wc -l < "$WORK/bundle-files.txt") files;" \
     ".deb: $(du -m "$DEB" | cut -f1) MB; $(( ($(date +%s) - started) / 60 )) min in all"
echo "files: $WORK/bundle-files.txt, hashes: $WORK/bundle-hashes.txt (diff them against a later build)"
