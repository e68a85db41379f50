"""Tests of guiapp/core/experiment/families."""
