#!/usr/bin/env bash
# Smoke test of TextLab's .deb on a clean Debian: install it into a minimal bookworm chroot,
# start the app under a virtual X server, take a screenshot, run the full self-test (every library
# TextLab loads on demand, a tiny study, two steps of fine-tuning), remove and purge the package and
# check that nothing is left under /opt/textlab nor in /tmp.
#
#   sudo installers/linux/smoke_test.sh PATH/TO/textlab_VERSION_amd64.deb [ROOT] [SHOT.png]
#
#   ROOT  the chroot (default /tmp/tl-root); always made anew with debootstrap (an existing one is
#         removed first, so no earlier run's leftovers can make the test pass) and removed at the end
#         unless KEEP_ROOT=1
#   SHOT  where the screenshot goes (default /tmp/tl-smoke.png)
#
# Needs root, debootstrap and a Debian mirror (MIRROR, default http://deb.debian.org/debian).
# Exits non-zero at the first step that fails and says which.
set -euo pipefail

DEB=$(realpath "$1")
ROOT=${2:-/tmp/tl-root}
SHOT=${3:-/tmp/tl-smoke.png}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
step() { echo; echo "=== $*"; }
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

unmount() {
    umount "$ROOT/dev/pts" 2>/dev/null || true
    umount "$ROOT/dev" 2>/dev/null || true
    umount "$ROOT/sys" 2>/dev/null || true
    umount "$ROOT/proc" 2>/dev/null || true
}
cleanup() {
    unmount
    if [ "${KEEP_ROOT:-0}" != "1" ]; then rm -rf --one-file-system "$ROOT"; fi
}
if [ -e "$ROOT" ]; then
    step "remove the root of an earlier run: $ROOT"
    unmount
    rm -rf --one-file-system "$ROOT"
fi
step "debootstrap bookworm into $ROOT"
debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR"
trap cleanup EXIT
mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
mountpoint -q "$ROOT/sys" || mount -t sysfs sys "$ROOT/sys"
mountpoint -q "$ROOT/dev" || mount --bind /dev "$ROOT/dev"
mountpoint -q "$ROOT/dev/pts" || mount --bind /dev/pts "$ROOT/dev/pts"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

step "install the .deb (dpkg -i, then apt-get -f install for the libraries it depends on)"
cp "$DEB" "$ROOT/tmp/textlab.deb"
in_root apt-get update -qq
in_root dpkg -i /tmp/textlab.deb || true  # fails on missing dependencies; apt-get -f fetches them
DEBIAN_FRONTEND=noninteractive in_root apt-get -f install -y --no-install-recommends
in_root dpkg -s textlab | grep -E '^(Status|Version)'
test -x "$ROOT/opt/textlab/TextLab"
test -L "$ROOT/usr/bin/textlab"
test -f "$ROOT/usr/share/applications/textlab.desktop"
test -f "$ROOT/usr/share/mime/packages/textlab.xml"
test -f "$ROOT/usr/share/icons/hicolor/256x256/apps/textlab.png"

step "tools for the test (virtual X server, screenshot)"
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y --no-install-recommends xvfb xauth x11-apps x11-utils imagemagick

step "command line: textlab --version, textlab self-test (the full one)"
in_root textlab --version
in_root env QT_QPA_PLATFORM=offscreen textlab self-test

step "GUI: start under xvfb-run, wait for the window, screenshot"
cat > "$ROOT/tmp/shot.sh" <<'EOF'
#!/bin/sh
/opt/textlab/TextLab > /tmp/textlab-gui.log 2>&1 &
pid=$!
for i in $(seq 1 90); do
    if xwininfo -root -tree 2>/dev/null | grep -q '"TextLab'; then break; fi
    sleep 1
done
sleep 3
xwd -root -silent | convert xwd:- png:/tmp/textlab-shot.png
xwininfo -root -tree | grep -i textlab || true
kill "$pid"
EOF
chmod +x "$ROOT/tmp/shot.sh"
in_root xvfb-run -a -s "-screen 0 1400x900x24" /tmp/shot.sh
cp "$ROOT/tmp/textlab-shot.png" "$SHOT"
echo "screenshot: $SHOT"
in_root env QT_QPA_PLATFORM=offscreen TEXTLAB_EXIT_WHEN_SHOWN=1 /opt/textlab/TextLab

step "nothing left in /tmp by the app (the test's own files aside)"
left=$(find "$ROOT/tmp" -mindepth 1 -maxdepth 1 ! -name 'textlab.deb' ! -name 'shot.sh' ! -name 'textlab-gui.log' \
       ! -name 'textlab-shot.png' ! -name '.X*' ! -name 'xvfb-run.*' ! -name '.font-unix' ! -name '.ICE-unix' \
       ! -name '.Test-unix' ! -name '.XIM-unix' -print)
if [ -n "$left" ]; then
    echo "left behind in /tmp:"; echo "$left"; ls -la $left 2>/dev/null | head -20
    exit 1
fi

step "remove and purge: dpkg -r, dpkg --purge; nothing may be left under /opt/textlab"
in_root dpkg -r textlab
in_root dpkg --purge textlab
if [ -e "$ROOT/opt/textlab" ]; then
    echo "left behind under /opt/textlab:"; find "$ROOT/opt/textlab" | head -20
    exit 1
fi
test ! -e "$ROOT/usr/bin/textlab"
if in_root dpkg -s textlab >/dev/null 2>&1; then echo "dpkg still knows textlab after the purge"; exit 1; fi
echo; echo "smoke test passed"
