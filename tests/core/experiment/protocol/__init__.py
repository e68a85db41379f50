"""Tests of guiapp/core/experiment/protocol."""
