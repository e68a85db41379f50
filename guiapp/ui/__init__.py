"""The Qt user interface: starting the app, the main window (its pages, the table of menu actions
and the list of steps), the study session every page observes (``session``: what the study holds,
the files opened into it and saved from it, the project's autosave), files the system asks TextLab
to open, the widgets the pages are built from (``widgets``) and the colours and styles they share
(``theme``). Layout and wiring only: every figure shown comes from the core."""
