"""Tests of guiapp/core/models."""
