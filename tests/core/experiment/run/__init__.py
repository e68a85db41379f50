"""Tests of guiapp/core/experiment/run."""
