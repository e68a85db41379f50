"""Tests of guiapp/core/experiment/scores."""
