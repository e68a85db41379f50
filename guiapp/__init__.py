"""TextLab: compare machine-learning models against a researcher's own coding of texts."""

__version__ = "0.1.0"
APP_NAME = "TextLab"
