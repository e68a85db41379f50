"""Projects: save and open, autosave, recovery (issue 9)."""
