"""The command line: ``textlab`` starts the app, ``textlab COMMAND …`` runs one step of a study
without it (``health``, ``run``, ``predict``, ``explain``, ``learning-curve``, ``subgroups``,
``agreement``, ``cluster-script``, ``self-test``; the table of commands is ``entry.COMMANDS``)."""

from guiapp.cli.entry import main, main_gui

__all__ = ["main", "main_gui"]
