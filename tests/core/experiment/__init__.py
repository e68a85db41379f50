"""Tests of guiapp/core/experiment."""
