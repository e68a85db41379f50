"""The Qt user interface: main window, pages and reusable widgets (layout and wiring only)."""
