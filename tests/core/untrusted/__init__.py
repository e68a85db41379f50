"""Tests of guiapp/core/untrusted."""
