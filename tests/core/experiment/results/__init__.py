"""Tests of guiapp/core/experiment/results."""
