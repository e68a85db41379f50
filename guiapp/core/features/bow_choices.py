"""The bag of words' fixed choices (weightings, units), light enough for the window to import at start."""

WEIGHTINGS = ("binary", "counts", "tfidf")
ANALYZERS = ("word", "char")
