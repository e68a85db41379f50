"""The data-health report: is a table of coded texts ready for model comparison, and if not, why."""
