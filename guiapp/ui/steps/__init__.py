"""The window's steps, one folder each (data, coding, models, run, results, documents, predict,
findings): a step's page and the widgets only it uses. No step's folder imports another's; what
several steps share is in ``guiapp/ui/common/``, and the steps meet in the study session."""
