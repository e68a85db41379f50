"""Tests of guiapp/core/experiment/speed."""
