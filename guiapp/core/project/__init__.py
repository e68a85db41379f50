"""Projects: the .textlab file (format, saving, opening), autosave and recovery (issue 9)."""
