"""The window's own parts beyond its steps: the step list, the Next button, the Help menu and its dialogs,
the File menu's actions and files opened by the system."""
