"""Tests of guiapp/core/tables."""
