"""Tests of guiapp/ui/steps/results."""
