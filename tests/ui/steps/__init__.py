"""Tests of guiapp/ui/steps."""
