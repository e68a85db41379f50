"""Tests of guiapp.core.project."""
