"""Writing results for people: Excel, CSV, Parquet, the methods appendix (issue 9)."""
