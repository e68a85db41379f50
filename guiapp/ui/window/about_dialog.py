"""Help → About TextLab: name, version, icon, and the licences of everything bundled."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QMessageBox, QWidget

from guiapp import APP_NAME, __version__


def app_icon() -> QIcon:
    """The app icon at every rendered size (empty when the icon files are missing)."""
    from guiapp.core.locations import icon_path

    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256, 512):
        path = icon_path(size)
        if path.is_file():
            icon.addFile(str(path))
    return icon


def about_html() -> str:
    return (
        f"<h3>{APP_NAME} {__version__}</h3>"
        "<p>Find out which machine-learning model best reproduces your own coding of texts, "
        "see why it decides as it does, and use it on the rest of your corpus.</p>"
        "<p>Everything runs on this computer; your texts are never uploaded.</p>"
        f"<p>{APP_NAME} is free software under the GNU GPL v3 or later.</p>"
        "<p><b>Bundled with it</b></p>"
        "<ul>"
        "<li>Transformer model <i>all-MiniLM-L6-v2</i> (sentence-transformers; Microsoft MiniLM) — "
        "Apache License 2.0</li>"
        "<li>Word vectors <i>GloVe 6B, 50 dimensions</i> (Pennington, Socher and Manning, Stanford NLP) — "
        "Open Data Commons Public Domain Dedication and License (PDDL 1.0)</li>"
        "<li>Example data: bill titles of the 107th US Congress coded by policy topic, from the "
        "Congressional Bills Project (E. Scott Adler and John D. Wilkerson), as distributed in the R "
        "package RTextTools — GNU GPL v3</li>"
        "</ul>"
    )


def about_box(parent: QWidget | None = None) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle(f"About {APP_NAME}")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(about_html())
    from guiapp.core.locations import icon_path

    pixmap = QPixmap(str(icon_path(64)))
    if not pixmap.isNull():
        box.setIconPixmap(pixmap)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    return box

