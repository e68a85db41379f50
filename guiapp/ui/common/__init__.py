"""What several steps of the window share: chart base and numbers, layouts, scroll area, splitter, save dialogs,
wheel guard, job progress, glossary, empty states and the table model of a spreadsheet."""
