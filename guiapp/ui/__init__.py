"""The Qt user interface: starting the app, the main window and its steps (``pages``), the project's
saving, opening and autosave, files the system asks TextLab to open, and the widgets the pages are
built from (``widgets``). Layout and wiring only: every figure shown comes from the core."""
