"""The command line: ``textlab`` (the app), ``textlab health``, ``textlab run``."""

from guiapp.cli.entry import main, main_gui

__all__ = ["main", "main_gui"]
