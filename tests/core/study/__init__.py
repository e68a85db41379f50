"""Tests of guiapp/core/study."""
