"""Reading tables of coded texts: file formats, encodings, delimiters, workbooks, column names, cell values."""
