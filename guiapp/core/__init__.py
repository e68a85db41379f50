"""TextLab's engine: pure Python, no Qt. Everything the GUI shows is computed here."""
