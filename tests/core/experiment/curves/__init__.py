"""Tests of guiapp/core/experiment/curves."""
