"""Reusable widgets: table model for the loaded spreadsheet, charts, the data-health view."""
