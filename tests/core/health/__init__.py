"""Tests of guiapp/core/health."""
