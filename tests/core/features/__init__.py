"""Tests of guiapp/core/features."""
