"""Render the app icon from its SVG source: PNGs at 16 … 512 px, a Windows .ico and a macOS .icns.

    python scripts/render_icons.py            # writes into resources/icons/

Run it again after editing ``resources/icons/textlab.svg``. It needs only PySide6 (QSvgRenderer);
the .ico and .icns containers are written by hand (both simply hold the PNGs).
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 32, 48, 64, 128, 256)
# ICNS element types that hold PNG data, by pixel size (ic10 is 512 pt @2x = 1024 px; not made here)
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def render_png(svg: Path, size: int) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not a valid SVG file")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A .ico file whose images are PNGs (Windows Vista and later read these)."""
    sizes = [size for size in ICO_SIZES if size in pngs]
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, images = b"", b""
    for size in sizes:
        data = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256 in the directory entry
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset + len(images))
        images += data
    return header + entries + images


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A .icns file whose elements are PNGs (macOS 10.7 and later)."""
    body = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
                    for size, kind in ICNS_TYPES.items() if size in pngs)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def render_all(folder: Path = ICONS) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - QImage needs one
    svg = folder / "textlab.svg"
    pngs = {size: render_png(svg, size) for size in SIZES}
    written = []
    for size, data in pngs.items():
        path = folder / f"textlab-{size}.png"
        path.write_bytes(data)
        written.append(path)
    for name, data in (("textlab.ico", ico_bytes(pngs)), ("textlab.icns", icns_bytes(pngs))):
        path = folder / name
        path.write_bytes(data)
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in render_all():
        print(f"{written_path.relative_to(ICONS.parents[1])}  {written_path.stat().st_size:,} bytes")
