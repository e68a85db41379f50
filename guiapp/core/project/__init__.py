"""Projects: the .textlab file (format, saving, opening), a results folder opened as a project,
autosave and recovery after a crash (telling a crashed session from a running one)."""
