"""Writing results for people: the Excel workbook of a study (one module per sheet), predictions
of new texts as Excel, CSV or Parquet, explained documents as an HTML page and a table, the words
each category relies on, and the methods appendix (HTML, its JSON of facts, and a paragraph in
words). Every file is written to a temporary name and renamed into place when whole (``target``)."""
