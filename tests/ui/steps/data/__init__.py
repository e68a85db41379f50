"""Tests of guiapp/ui/steps/data."""
