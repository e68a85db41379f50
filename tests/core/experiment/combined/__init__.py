"""Tests of guiapp/core/experiment/combined."""
