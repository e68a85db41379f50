"""The widgets the steps are built from: the loaded spreadsheet's table model, the column mapping
and the data-health view (Data); the model grid, the Advanced dialog and the Transformer choice
(Models); where to run and each model's progress (Run); the comparison, charts, tables, groups of
texts, learning curve and exports (Results); the documents table, its filters and the explanation
views (Documents); the new texts' source (Predict); and small shared parts (charts' base, empty
states, the Next button, glossary tooltips, save dialogs, dialogs of the Help and File menus)."""
