"""What the Help menu shows: about TextLab, about the example data, and the self-test."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

EXAMPLE_TEXT = (
    "The example holds the titles of the 4,449 bills introduced in the 107th US Congress "
    "(2001–2002), each coded by hand with one of 20 major policy topics.\n\n"
    "Source: Congressional Bills Project, E. Scott Adler and John D. Wilkerson "
    "(congressionalbills.org), as distributed in the R package RTextTools (GPL-3).\n"
    "Please cite: Adler, E. Scott and John Wilkerson. Congressional Bills Project: 2001–2002."
)


def show_about(parent: QWidget) -> None:
    from guiapp.ui.window.about_dialog import about_box

    about_box(parent).exec()


def show_about_example(parent: QWidget) -> None:
    QMessageBox.information(parent, "About the example data", EXAMPLE_TEXT)


def open_self_test(parent: QWidget) -> QDialog:
    """The self-test's checks run in a worker; the dialog shows each line as it comes."""
    from guiapp.ui.window.self_test_dialog import SelfTestDialog

    dialog = SelfTestDialog(parent)
    dialog.open()
    return dialog
