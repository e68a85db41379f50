"""Tests of guiapp/core/export."""
